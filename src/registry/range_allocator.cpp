#include "registry/range_allocator.h"

#include <boost/json.hpp>
#include <random>

#include "apimachinery/object_meta.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::registry {

namespace json = boost::json;

RangeAllocator::RangeAllocator(storage::ObjectStore& store, std::string key, std::string range_text, int64_t size,
                               int64_t dynamic_offset, InUseFunc in_use)
    : store_(store),
      key_(std::move(key)),
      range_text_(std::move(range_text)),
      size_(size),
      dynamic_offset_(dynamic_offset),
      in_use_(std::move(in_use)) {}

std::string RangeAllocator::EncodeBitmap(const std::vector<bool>& bits) {
  const size_t nbytes = (bits.size() + 7) / 8;
  std::string out(nbytes, '\0');
  for (size_t i = 0; i < bits.size(); ++i) {
    if (bits[i]) out[nbytes - 1 - i / 8] = static_cast<char>(static_cast<uint8_t>(out[nbytes - 1 - i / 8]) | (1u << (i % 8)));
  }
  size_t first = out.find_first_not_of('\0');
  return first == std::string::npos ? std::string() : out.substr(first);
}

std::vector<bool> RangeAllocator::DecodeBitmap(std::string_view bytes, int64_t size) {
  std::vector<bool> bits(static_cast<size_t>(size), false);
  const size_t n = bytes.size();
  for (size_t b = 0; b < n; ++b) {
    uint8_t v = static_cast<uint8_t>(bytes[n - 1 - b]);
    for (int k = 0; k < 8; ++k) {
      size_t i = b * 8 + static_cast<size_t>(k);
      if ((v >> k) & 1u) {
        if (i < bits.size()) bits[i] = true;
      }
    }
  }
  return bits;
}

storage::Object RangeAllocator::MakeObject(const std::vector<bool>& bits) const {
  json::object o;
  o["kind"] = "RangeAllocation";
  o["apiVersion"] = "v1";
  o["metadata"] = json::object();
  o["range"] = range_text_;
  o["data"] = Base64Encode(EncodeBitmap(bits));
  return o;
}

std::optional<std::vector<bool>> RangeAllocator::BitsOf(const storage::Object* obj) const {
  if (!obj) return std::nullopt;
  const auto* range = obj->if_contains("range");
  if (!range || !range->is_string() || range->get_string() != range_text_) return std::nullopt;
  std::string raw;
  if (const auto* d = obj->if_contains("data"); d && d->is_string()) {
    if (!Base64Decode(std::string_view(d->get_string()), raw)) return std::nullopt;
  }
  return DecodeBitmap(raw, size_);
}

Task<StatusOr<std::vector<bool>>> RangeAllocator::Initial() {
  std::vector<bool> bits(static_cast<size_t>(size_), false);
  if (!in_use_) co_return bits;
  auto used = co_await in_use_();
  if (!used.ok()) co_return used.TakeStatus();
  for (int64_t off : used->offsets) {
    if (off >= 0 && off < size_) bits[static_cast<size_t>(off)] = true;
  }
  co_return bits;
}

namespace {

// Picks `count` free offsets: random starts in [from, size) first, then [0, from).
std::vector<int64_t> Pick(std::vector<bool>& bits, int count, int64_t from) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::vector<int64_t> out;
  const int64_t size = static_cast<int64_t>(bits.size());
  auto scan = [&](int64_t lo, int64_t hi) {
    if (hi <= lo) return;
    const int64_t span = hi - lo;
    int64_t start = static_cast<int64_t>(rng() % static_cast<uint64_t>(span));
    for (int64_t i = 0; i < span && static_cast<int>(out.size()) < count; ++i) {
      int64_t off = lo + (start + i) % span;
      if (!bits[static_cast<size_t>(off)]) {
        bits[static_cast<size_t>(off)] = true;
        out.push_back(off);
      }
    }
  };
  scan(from, size);
  scan(0, std::min(from, size));
  return out;
}

}  // namespace

Task<Status> RangeAllocator::RepairOnce() {
  if (repaired_.load() || !in_use_) co_return Status();
  // The answer of in_use_ is current at some revision R; if the bitmap changed after R (a release),
  // read again, so a released offset is not put back.
  for (int attempt = 0; attempt < 8; ++attempt) {
    auto used = co_await in_use_();
    if (!used.ok()) co_return used.TakeStatus();
    bool stale = false;
    auto r = co_await store_.GuaranteedUpdate(
        key_, {}, true, [&](const storage::Object* existing) -> Task<StatusOr<storage::UpdateResult>> {
          stale = false;
          auto bits = BitsOf(existing);
          if (!bits) {
            std::vector<bool> fresh(static_cast<size_t>(size_), false);
            for (int64_t off : used->offsets) {
              if (off >= 0 && off < size_) fresh[static_cast<size_t>(off)] = true;
            }
            if (existing) LogInfo("service range changed; rebuilding allocations", {{"key", key_}, {"range", range_text_}});
            co_return storage::UpdateResult{MakeObject(fresh), 0};
          }
          auto rv = storage::ParseResourceVersion(std::string(apimachinery::GetResourceVersion(*existing)));
          if (rv.ok() && *rv > used->revision) {
            stale = true;
            co_return storage::UpdateResult{*existing, 0};
          }
          bool changed = false;
          for (int64_t off : used->offsets) {
            if (off >= 0 && off < size_ && !(*bits)[static_cast<size_t>(off)]) {
              (*bits)[static_cast<size_t>(off)] = true;
              changed = true;
            }
          }
          if (changed) LogWarn("allocations missing from the range were restored", {{"key", key_}});
          co_return storage::UpdateResult{changed ? MakeObject(*bits) : *existing, 0};
        });
    if (!r.ok()) co_return r.TakeStatus();
    if (!stale) {
      repaired_ = true;
      co_return Status();
    }
  }
  // Under constant churn: the allocations stand as stored; try again on the next use.
  co_return Status();
}

Task<StatusOr<RangeAllocator::Result>> RangeAllocator::Allocate(Request req) {
  CO_RETURN_IF_ERROR(co_await RepairOnce());
  Result result;
  auto decide = [&](std::vector<bool>& bits) -> bool {
    result = Result();
    for (size_t i = 0; i < req.specific.size(); ++i) {
      int64_t off = req.specific[i];
      if (off < 0 || off >= size_ || bits[static_cast<size_t>(off)]) {
        result.conflict_index = static_cast<int>(i);
        return false;
      }
      bits[static_cast<size_t>(off)] = true;
    }
    if (req.count > 0) {
      result.chosen = Pick(bits, req.count, dynamic_offset_);
      if (static_cast<int>(result.chosen.size()) < req.count) {
        result.chosen.clear();
        result.full = true;
        return false;
      }
    }
    return true;
  };
  if (req.dry_run) {
    storage::GetOptions g;
    g.ignore_not_found = true;
    auto cur = co_await store_.Get(key_, g);
    if (!cur.ok()) co_return cur.TakeStatus();
    auto bits = BitsOf(cur->empty() ? nullptr : &*cur);
    if (!bits) {
      auto init = co_await Initial();
      if (!init.ok()) co_return init.TakeStatus();
      bits = std::move(*init);
    }
    decide(*bits);
    co_return result;
  }
  auto r = co_await store_.GuaranteedUpdate(
      key_, {}, true, [&](const storage::Object* existing) -> Task<StatusOr<storage::UpdateResult>> {
        auto bits = BitsOf(existing);
        bool fresh = !bits;
        if (fresh) {
          auto init = co_await Initial();
          if (!init.ok()) co_return init.TakeStatus();
          bits = std::move(*init);
        }
        if (!decide(*bits)) {
          // Nothing to allocate; write only a fresh initialization.
          if (!fresh) co_return storage::UpdateResult{*existing, 0};
          auto again = co_await Initial();
          if (!again.ok()) co_return again.TakeStatus();
          co_return storage::UpdateResult{MakeObject(*again), 0};
        }
        co_return storage::UpdateResult{MakeObject(*bits), 0};
      });
  if (!r.ok()) co_return r.TakeStatus();
  co_return result;
}

Task<Status> RangeAllocator::Release(std::vector<int64_t> offsets) {
  if (offsets.empty()) co_return Status();
  auto r = co_await store_.GuaranteedUpdate(
      key_, {}, true, [&](const storage::Object* existing) -> Task<StatusOr<storage::UpdateResult>> {
        auto bits = BitsOf(existing);
        if (!bits) {
          auto init = co_await Initial();
          if (!init.ok()) co_return init.TakeStatus();
          bits = std::move(*init);
        }
        for (int64_t off : offsets) {
          if (off >= 0 && off < size_) (*bits)[static_cast<size_t>(off)] = false;
        }
        co_return storage::UpdateResult{MakeObject(*bits), 0};
      });
  if (!r.ok()) co_return r.TakeStatus();
  co_return Status();
}

Task<StatusOr<std::vector<int64_t>>> RangeAllocator::Allocated() {
  CO_RETURN_IF_ERROR(co_await RepairOnce());
  storage::GetOptions g;
  g.ignore_not_found = true;
  auto cur = co_await store_.Get(key_, g);
  if (!cur.ok()) co_return cur.TakeStatus();
  auto bits = BitsOf(cur->empty() ? nullptr : &*cur);
  if (!bits) {
    auto init = co_await Initial();
    if (!init.ok()) co_return init.TakeStatus();
    bits = std::move(*init);
  }
  std::vector<int64_t> out;
  for (size_t i = 0; i < bits->size(); ++i) {
    if ((*bits)[i]) out.push_back(static_cast<int64_t>(i));
  }
  co_return out;
}

}  // namespace capstan::registry
