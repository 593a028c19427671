#include "storage/embedded/key_index.h"

#include <algorithm>

#include "util/check.h"

namespace capstan::storage::embedded {

KeyRange KeyRange::From(const std::string& key, const std::string& range_end) {
  KeyRange r;
  r.begin = key;
  if (range_end.empty()) {
    r.single = true;
  } else if (range_end.size() == 1 && range_end[0] == '\0') {
    r.unbounded = true;
  } else {
    r.end = range_end;
  }
  return r;
}

bool KeyRange::Contains(std::string_view key) const {
  if (single) return key == begin;
  if (key < std::string_view(begin)) return false;
  return unbounded || key < std::string_view(end);
}

const IndexEntry* KeyIndex::LatestIn(const std::vector<IndexEntry>& entries, int64_t rev) {
  auto it = std::upper_bound(entries.begin(), entries.end(), rev,
                             [](int64_t r, const IndexEntry& e) { return r < e.rev.main; });
  if (it == entries.begin()) return nullptr;
  return &*std::prev(it);
}

const IndexEntry* KeyIndex::Latest(std::string_view key, int64_t rev) const {
  auto it = keys_.find(key);
  if (it == keys_.end()) return nullptr;
  return LatestIn(it->second, rev);
}

const IndexEntry* KeyIndex::Live(std::string_view key, int64_t rev) const {
  const IndexEntry* e = Latest(key, rev);
  return (e && !e->tombstone) ? e : nullptr;
}

void KeyIndex::Append(std::string_view key, const IndexEntry& e) {
  // One search: lower_bound doubles as the insertion hint.
  auto it = keys_.lower_bound(key);
  if (it == keys_.end() || it->first != key) it = keys_.emplace_hint(it, std::string(key), std::vector<IndexEntry>());
  CAPSTAN_CHECK(it->second.empty() || it->second.back().rev < e.rev);
  it->second.push_back(e);
  ++entries_;
}

size_t KeyIndex::FirstKept(const std::vector<IndexEntry>& entries, int64_t compact_rev) {
  // First entry at or above compact_rev.
  size_t first_at = std::lower_bound(entries.begin(), entries.end(), compact_rev,
                                     [](const IndexEntry& e, int64_t r) { return e.rev.main < r; }) -
                    entries.begin();
  if (first_at == 0) return 0;
  // Keep the last change below compact_rev when it is a put and nothing at compact_rev replaces it.
  const IndexEntry& last_below = entries[first_at - 1];
  bool replaced = first_at < entries.size() && entries[first_at].rev.main == compact_rev;
  if (!last_below.tombstone && !replaced) return first_at - 1;
  return first_at;
}

std::vector<Revision> KeyIndex::CompactedRevisions(int64_t compact_rev) const {
  std::vector<Revision> out;
  for (const auto& [key, entries] : keys_) {
    size_t keep = FirstKept(entries, compact_rev);
    for (size_t i = 0; i < keep; ++i) out.push_back(entries[i].rev);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void KeyIndex::Compact(int64_t compact_rev) {
  for (auto it = keys_.begin(); it != keys_.end();) {
    auto& entries = it->second;
    size_t keep = FirstKept(entries, compact_rev);
    if (keep > 0) {
      entries.erase(entries.begin(), entries.begin() + static_cast<ptrdiff_t>(keep));
      entries_ -= keep;
    }
    if (entries.empty()) {
      it = keys_.erase(it);
    } else {
      ++it;
    }
  }
}

const std::vector<IndexEntry>* KeyIndex::Entries(std::string_view key) const {
  auto it = keys_.find(key);
  return it == keys_.end() ? nullptr : &it->second;
}

}  // namespace capstan::storage::embedded
