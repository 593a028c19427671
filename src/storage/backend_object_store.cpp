#include "storage/backend_object_store.h"

#include <algorithm>
#include <boost/json.hpp>

#include "apimachinery/json_stored.h"
#include "storage/continue_token.h"
#include "util/async.h"
#include "util/log.h"

namespace capstan::storage {

namespace json = boost::json;
namespace am = apimachinery;

namespace {

constexpr int kMaxUpdateRetries = 100000;  // like kube, until the compare succeeds

Status NotFound(const std::string& key) { return Status::Storage(StorageCode::kKeyNotFound, "key not found: " + key); }

std::string ObjectResourceVersion(const Object& obj) {
  if (const auto* md = obj.if_contains("metadata"); md && md->is_object()) {
    if (const auto* rv = md->get_object().if_contains("resourceVersion"); rv && rv->is_string()) {
      return std::string(rv->get_string());
    }
  }
  return "";
}

std::string ObjectUid(const Object& obj) {
  if (const auto* md = obj.if_contains("metadata"); md && md->is_object()) {
    if (const auto* uid = md->get_object().if_contains("uid"); uid && uid->is_string()) {
      return std::string(uid->get_string());
    }
  }
  return "";
}

Status CheckPreconditions(const std::string& key, const Preconditions& pre, const Object& existing) {
  if (pre.uid && *pre.uid != ObjectUid(existing)) {
    return Status::Storage(StorageCode::kConflict, "Precondition failed: UID in precondition: " + *pre.uid +
                                                       ", UID in object meta: " + ObjectUid(existing));
  }
  if (pre.resource_version && *pre.resource_version != ObjectResourceVersion(existing)) {
    return Status::Storage(StorageCode::kConflict, "Precondition failed: ResourceVersion in precondition: " +
                                                       *pre.resource_version + ", ResourceVersion in object meta: " +
                                                       ObjectResourceVersion(existing));
  }
  (void)key;
  return Status();
}

std::string WithTrailingSlash(const std::string& key) {
  if (!key.empty() && key.back() == '/') return key;
  return key + "/";
}

Status CompactedListStatus() {
  return Status(410, "Expired", "The resourceVersion for the provided list is too old.");
}

// kube's answer to a continue token whose revision is compacted: a token to go on from the same key
// at the latest revision (rv -1), for a client that accepts an inconsistent list.
Status ContinueExpiredStatus(const std::string& continue_from, const std::string& prefix) {
  return Status(410, "Expired",
                "The provided continue parameter is too old to display a consistent list result. You can start a new "
                "list without the continue parameter, or use the continue token in this response to retrieve the "
                "remainder of the results. Continuing with the provided token results in an inconsistent list - "
                "objects that were created, modified, or deleted between the time the first chunk was returned and "
                "now may show up in the list.")
      .WithListContinue(EncodeContinue(continue_from, prefix, -1));
}

}  // namespace

StatusOr<int64_t> ParseResourceVersion(const std::string& rv) {
  if (rv.empty()) return int64_t{0};
  int64_t v = 0;
  for (char c : rv) {
    if (c < '0' || c > '9' || v > (INT64_MAX - 9) / 10) {
      return Status(400, "BadRequest",
                    "invalid resource version: resourceVersion: Invalid value: \"" + rv +
                        "\": strconv.ParseUint: parsing \"" + rv + "\": invalid syntax");
    }
    v = v * 10 + (c - '0');
  }
  return v;
}

Status TooLargeResourceVersionStatus(int64_t requested, int64_t current) {
  Status st(504, "Timeout",
            "Timeout: Too large resource version: " + std::to_string(requested) + ", current: " + std::to_string(current));
  StatusDetails d;
  d.causes.push_back({"ResourceVersionTooLarge", "Too large resource version", ""});
  d.retry_after_seconds = 1;
  st.WithDetails(std::move(d));
  return st;
}

// Equal apart from metadata.resourceVersion. Member order does not count: kube encodes typed objects
// in field order and unstructured ones with sorted keys, so two requests that differ only in the
// order of their keys encode to the same bytes.
bool SameObject(const Object& a, const Object& b) {
  if (a.size() != b.size()) return false;
  for (const auto& kv : a) {
    const json::value* other = b.if_contains(kv.key());
    if (other == nullptr) return false;
    if (kv.key() != "metadata" || !kv.value().is_object() || !other->is_object()) {
      if (kv.value() != *other) return false;
      continue;
    }
    const json::object& ma = kv.value().get_object();
    const json::object& mb = other->get_object();
    size_t na = ma.size() - (ma.contains("resourceVersion") ? 1 : 0);
    size_t nb = mb.size() - (mb.contains("resourceVersion") ? 1 : 0);
    if (na != nb) return false;
    for (const auto& m : ma) {
      if (m.key() == "resourceVersion") continue;
      const json::value* o = mb.if_contains(m.key());
      if (o == nullptr || m.value() != *o) return false;
    }
  }
  return true;
}

void SetResourceVersion(Object& obj, int64_t revision) {
  json::value& md = obj["metadata"];
  if (!md.is_object()) md = json::object();
  md.get_object()["resourceVersion"] = std::to_string(revision);
}

BackendObjectStore::BackendObjectStore(Backend& backend, const Transformer* transformer, const StorageCodec* codec)
    : backend_(backend), transformer_(transformer ? transformer : &identity_), codec_(codec ? codec : &json_codec_) {}

StatusOr<std::string> BackendObjectStore::EncodePlain(Object& obj, const std::string& key) const {
  if (auto* md = obj.if_contains("metadata"); md && md->is_object()) md->get_object().stable_erase("resourceVersion");
  return codec_->Encode(obj, key);
}

StatusOr<std::string> BackendObjectStore::Encode(Object obj, const std::string& key) const {
  auto plain = EncodePlain(obj, key);
  if (!plain.ok()) return plain.TakeStatus();
  return transformer_->ToStorage(*plain, key);
}

StatusOr<Object> BackendObjectStore::Decode(std::string_view stored, const std::string& key, int64_t revision) const {
  return DecodeKeepingPlain(stored, key, revision, nullptr, nullptr);
}

StatusOr<Object> BackendObjectStore::DecodeKeepingPlain(std::string_view stored, const std::string& key,
                                                        int64_t revision, std::string* plain_out, bool* stale) const {
  bool was_stale = false;
  auto plain = transformer_->FromStorage(stored, key, &was_stale);
  if (!plain.ok()) return plain.TakeStatus();
  auto obj = codec_->Decode(*plain, key);
  if (!obj.ok()) return obj.TakeStatus();
  SetResourceVersion(*obj, revision);
  if (stale) *stale = was_stale;
  if (plain_out) *plain_out = std::move(*plain);
  return obj;
}

Task<StatusOr<int64_t>> BackendObjectStore::LeaseFor(int64_t ttl_seconds) {
  // kube's lease manager: objects share a lease granted `reuse` seconds longer than their TTL (reuse:
  // 5% of the TTL, at most --lease-reuse-duration-seconds), while it outlives their TTL and expires
  // within TTL + reuse of now, for at most 1000 objects.
  constexpr int64_t kMaxObjects = 1000;
  const int64_t reuse = std::min(static_cast<int64_t>(0.05 * static_cast<double>(ttl_seconds)), lease_reuse_seconds_);
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(lease_mu_);
    bool valid = now + std::chrono::seconds(ttl_seconds) < lease_expires_;
    bool sufficient = now + std::chrono::seconds(ttl_seconds + reuse) > lease_expires_;
    ++lease_objects_;
    if (lease_id_ != 0 && valid && sufficient && lease_objects_ <= kMaxObjects) co_return lease_id_;
  }
  auto grant = co_await backend_.LeaseGrant(ttl_seconds + reuse);
  if (!grant.ok()) co_return grant.TakeStatus();
  std::lock_guard lock(lease_mu_);
  lease_id_ = grant->id;
  lease_expires_ = now + std::chrono::seconds(ttl_seconds + reuse);
  lease_objects_ = 1;
  co_return grant->id;
}

Task<StatusOr<int64_t>> BackendObjectStore::CurrentRevision() {
  auto st = co_await backend_.GetStatus();
  if (!st.ok()) co_return st.TakeStatus();
  co_return st->revision;
}

Task<StatusOr<Object>> BackendObjectStore::Create(const std::string& key, Object obj, int64_t ttl_seconds) {
  if (!ObjectResourceVersion(obj).empty()) {
    co_return Status(500, "InternalError", "resourceVersion should not be set on objects to be created");
  }
  auto data = co_await Transforming(WriteMayBlock(key), [&] { return Encode(obj, key); });
  if (!data.ok()) co_return data.TakeStatus();
  int64_t lease = 0;
  if (ttl_seconds > 0) {
    auto l = co_await LeaseFor(ttl_seconds);
    if (!l.ok()) co_return l.TakeStatus();
    lease = *l;
  }
  TxnRequest txn;
  txn.compare.push_back({key, Compare::Target::kModRevision, Compare::Result::kEqual, 0, ""});
  txn.success.push_back(RequestOp::Put(key, std::move(*data), lease));
  auto resp = co_await backend_.Txn(std::move(txn));
  if (!resp.ok()) co_return resp.TakeStatus();
  if (!resp->succeeded) co_return Status::Storage(StorageCode::kKeyExists, "key exists: " + key);
  SetResourceVersion(obj, resp->revision);
  co_return obj;
}

Task<StatusOr<Object>> BackendObjectStore::Get(const std::string& key, const GetOptions& opts) {
  auto min_rv = ParseResourceVersion(opts.resource_version);
  if (!min_rv.ok()) co_return min_rv.TakeStatus();
  RangeRequest req;
  req.key = key;
  auto resp = co_await backend_.Range(std::move(req));
  if (!resp.ok()) co_return resp.TakeStatus();
  if (*min_rv > resp->revision) co_return TooLargeResourceVersionStatus(*min_rv, resp->revision);
  if (resp->kvs.empty()) {
    if (opts.ignore_not_found) co_return Object();
    co_return NotFound(key);
  }
  const KeyValue& kv = resp->kvs[0];
  co_return co_await Transforming(ReadMayBlock(key, kv.value), [&] { return Decode(kv.value, key, kv.mod_revision); });
}

Task<StatusOr<ListResult>> BackendObjectStore::GetList(const std::string& key, const ListOptions& opts) {
  ListResult out;
  if (!opts.recursive) {
    GetOptions g;
    g.resource_version = opts.resource_version;
    g.ignore_not_found = true;
    auto one = co_await Get(key, g);
    if (!one.ok()) co_return one.TakeStatus();
    auto rev = co_await CurrentRevision();
    if (!rev.ok()) co_return rev.TakeStatus();
    out.revision = *rev;
    if (!one->empty() && (!opts.predicate || opts.predicate(*one))) out.items.push_back(std::move(*one));
    co_return out;
  }
  const std::string prefix = WithTrailingSlash(key);
  int64_t with_rev = 0;
  std::string from = prefix;
  bool continuing = false;
  std::string continue_from;
  int64_t min_rv = 0;
  if (!opts.continue_token.empty()) {
    auto pos = DecodeContinue(opts.continue_token, prefix);
    if (!pos.ok()) co_return pos.TakeStatus();
    if (!opts.resource_version.empty() && opts.resource_version != "0") {
      co_return Status(400, "BadRequest", "specifying resource version is not allowed when using continue");
    }
    with_rev = pos->revision > 0 ? pos->revision : 0;
    from = pos->from_key;
    continue_from = pos->from_key;
    continuing = true;
  } else if (!opts.resource_version.empty()) {
    auto rv = ParseResourceVersion(opts.resource_version);
    if (!rv.ok()) co_return rv.TakeStatus();
    switch (opts.match) {
      case ResourceVersionMatch::kExact:
        with_rev = *rv;
        break;
      case ResourceVersionMatch::kNotOlderThan:
        min_rv = *rv;
        break;
      case ResourceVersionMatch::kUnset:
        if (opts.limit > 0 && *rv > 0) {
          with_rev = *rv;
        } else {
          min_rv = *rv;
        }
        break;
    }
  }
  const std::string end = PrefixEnd(prefix);
  bool has_more = false;
  std::string last_key;
  int64_t count = -1;
  const bool paging = opts.limit > 0;
  for (;;) {
    RangeRequest req;
    req.key = from;
    req.range_end = end;
    req.revision = with_rev;
    if (paging) req.limit = std::max<int64_t>(opts.limit - static_cast<int64_t>(out.items.size()), 1);
    if (paging && opts.predicate) req.limit = std::max<int64_t>(req.limit, 100);  // filtering: read ahead
    auto resp = co_await backend_.Range(std::move(req));
    if (!resp.ok()) {
      Status st = resp.TakeStatus();
      if (st.IsStorage(StorageCode::kCompacted)) co_return continuing ? ContinueExpiredStatus(continue_from, prefix) : CompactedListStatus();
      if (st.IsStorage(StorageCode::kFutureRevision)) co_return TooLargeResourceVersionStatus(with_rev, st.revision());
      co_return st;
    }
    if (with_rev == 0) {
      if (min_rv > resp->revision) co_return TooLargeResourceVersionStatus(min_rv, resp->revision);
      with_rev = resp->revision;
    }
    if (count < 0) count = resp->count;
    bool limit_reached = false;
    Status decoded = co_await Transforming(BatchMayBlock(key), [&]() -> Status {
      for (size_t i = 0; i < resp->kvs.size(); ++i) {
        const auto& kv = resp->kvs[i];
        last_key = kv.key;
        auto obj = Decode(kv.value, kv.key, kv.mod_revision);
        if (!obj.ok()) return obj.TakeStatus();
        if (opts.predicate && !opts.predicate(*obj)) continue;
        out.items.push_back(std::move(*obj));
        if (paging && static_cast<int64_t>(out.items.size()) >= opts.limit) {
          limit_reached = i + 1 < resp->kvs.size() || resp->more;
          break;
        }
      }
      return Status();
    });
    if (!decoded.ok()) co_return decoded;
    has_more = limit_reached || (resp->more && !(paging && static_cast<int64_t>(out.items.size()) >= opts.limit));
    if (paging && static_cast<int64_t>(out.items.size()) >= opts.limit) {
      has_more = limit_reached;
      break;
    }
    if (!resp->more) {
      has_more = false;
      break;
    }
    from = last_key + std::string(1, '\0');
  }
  out.revision = with_rev;
  if (has_more) {
    out.continue_token = EncodeContinue(last_key + std::string(1, '\0'), prefix, with_rev);
    if (opts.predicate_empty) out.remaining_item_count = std::max<int64_t>(count - opts.limit, 0);
  }
  co_return out;
}

Task<StatusOr<Object>> BackendObjectStore::GuaranteedUpdate(const std::string& key, const Preconditions& pre,
                                                            bool ignore_not_found, UpdateFunc try_update) {
  for (int attempt = 0; attempt < kMaxUpdateRetries; ++attempt) {
    RangeRequest req;
    req.key = key;
    auto cur = co_await backend_.Range(std::move(req));
    if (!cur.ok()) co_return cur.TakeStatus();
    std::optional<Object> existing;
    int64_t existing_rev = 0;
    std::string existing_plain;
    bool existing_stale = false;
    if (!cur->kvs.empty()) {
      existing_rev = cur->kvs[0].mod_revision;
      auto obj = co_await Transforming(ReadMayBlock(key, cur->kvs[0].value), [&] {
        return DecodeKeepingPlain(cur->kvs[0].value, key, existing_rev, &existing_plain, &existing_stale);
      });
      if (!obj.ok()) co_return obj.TakeStatus();
      existing = std::move(*obj);
      CO_RETURN_IF_ERROR(CheckPreconditions(key, pre, *existing));
    } else if (!ignore_not_found) {
      co_return NotFound(key);
    }
    auto updated = co_await try_update(existing ? &*existing : nullptr);
    if (!updated.ok()) co_return updated.TakeStatus();
    Object next = std::move(updated->object);
    if (existing && !existing_stale && SameObject(next, *existing)) {
      // A result identical to what is stored is not written (no new revision, no watch event), as
      // kube skips a write whose encoding equals the stored bytes, unless the value is under a key
      // that is no longer the first: then it is rewritten with the current one (how `kubectl replace`
      // migrates objects after a key rotation).
      co_return std::move(*existing);
    }
    auto plain = EncodePlain(next, key);
    if (!plain.ok()) co_return plain.TakeStatus();
    if (existing && !existing_stale && *plain == existing_plain) {
      // The same bytes as stored (kube compares the encodings: a field written in another order or
      // form that encodes the same is no change).
      co_return std::move(*existing);
    }
    auto data = co_await Transforming(WriteMayBlock(key), [&] { return transformer_->ToStorage(*plain, key); });
    if (!data.ok()) co_return data.TakeStatus();
    int64_t lease = 0;
    if (updated->ttl_seconds > 0) {
      auto l = co_await LeaseFor(updated->ttl_seconds);
      if (!l.ok()) co_return l.TakeStatus();
      lease = *l;
    }
    TxnRequest txn;
    txn.compare.push_back({key, Compare::Target::kModRevision, Compare::Result::kEqual, existing_rev, ""});
    txn.success.push_back(RequestOp::Put(key, std::move(*data), lease));
    auto resp = co_await backend_.Txn(std::move(txn));
    if (!resp.ok()) co_return resp.TakeStatus();
    if (!resp->succeeded) continue;  // someone else wrote in between: read again and retry
    SetResourceVersion(next, resp->revision);
    co_return next;
  }
  co_return Status(500, "InternalError", "too many conflicting updates of " + key);
}

Task<StatusOr<Object>> BackendObjectStore::Delete(const std::string& key, const Preconditions& pre,
                                                  ValidateDeleteFunc validate) {
  for (int attempt = 0; attempt < kMaxUpdateRetries; ++attempt) {
    RangeRequest req;
    req.key = key;
    auto cur = co_await backend_.Range(std::move(req));
    if (!cur.ok()) co_return cur.TakeStatus();
    if (cur->kvs.empty()) co_return NotFound(key);
    int64_t rev = cur->kvs[0].mod_revision;
    const KeyValue& kv = cur->kvs[0];
    auto existing = co_await Transforming(ReadMayBlock(key, kv.value), [&] { return Decode(kv.value, key, rev); });
    if (!existing.ok()) co_return existing.TakeStatus();
    CO_RETURN_IF_ERROR(CheckPreconditions(key, pre, *existing));
    if (validate) CO_RETURN_IF_ERROR(co_await validate(*existing));
    TxnRequest txn;
    txn.compare.push_back({key, Compare::Target::kModRevision, Compare::Result::kEqual, rev, ""});
    txn.success.push_back(RequestOp::Delete(key));
    auto resp = co_await backend_.Txn(std::move(txn));
    if (!resp.ok()) co_return resp.TakeStatus();
    if (!resp->succeeded) continue;
    Object out = std::move(*existing);
    SetResourceVersion(out, resp->revision);
    co_return out;
  }
  co_return Status(500, "InternalError", "too many conflicting deletes of " + key);
}

namespace {

// A watch over the Backend: raw responses are queued by the backend's callback (never blocking it)
// and decoded by the consumer in Next().
class BackendWatch : public ObjectWatch {
 public:
  BackendWatch(Backend& backend, const BackendObjectStore& store, std::string key, std::string range_end,
               WatchOptions opts, int64_t start_rev)
      : backend_(backend),
        store_(store),
        key_(std::move(key)),
        range_end_(std::move(range_end)),
        opts_(std::move(opts)),
        start_rev_(start_rev),
        queue_(std::make_shared<AsyncQueue<WatchResponse>>()) {}

  ~BackendWatch() override { Stop(); }

  Task<std::vector<ObjectEvent>> Next() override {
    if (!started_) {
      started_ = true;
      std::vector<ObjectEvent> initial;
      int64_t from = start_rev_;
      if (start_rev_ == 0) {
        // "" or "0": the current state first, as ADDED events, then changes after it.
        ListOptions lo;
        lo.predicate = opts_.predicate;
        lo.recursive = opts_.recursive;
        auto list = co_await const_cast<BackendObjectStore&>(store_).GetList(key_, lo);
        if (!list.ok()) {
          ObjectEvent e;
          e.type = ObjectEvent::Type::kError;
          e.error = list.TakeStatus();
          ended_ = true;
          co_return std::vector<ObjectEvent>{std::move(e)};
        }
        for (auto& item : list->items) {
          ObjectEvent e;
          e.type = ObjectEvent::Type::kAdded;
          e.object = std::move(item);
          e.revision = list->revision;
          initial.push_back(std::move(e));
        }
        from = list->revision;
      }
      StartBackendWatch(from + 1);
      if (!initial.empty()) co_return initial;
    }
    while (!ended_) {
      auto batch = co_await queue_->PopAll();
      if (batch.empty()) {
        ended_ = true;
        break;
      }
      std::vector<ObjectEvent> out;
      for (auto& resp : batch) {
        if (!resp.error.ok()) {
          ObjectEvent e;
          e.type = ObjectEvent::Type::kError;
          if (resp.error.IsStorage(StorageCode::kCompacted)) {
            e.error = Status(410, "Expired", "The resourceVersion for the provided watch is too old.");
          } else {
            e.error = Status(500, "InternalError", resp.error.message());
          }
          out.push_back(std::move(e));
          ended_ = true;
          queue_->Close();
          break;
        }
        if (resp.progress_notify && resp.events.empty()) {
          if (opts_.progress_notify) {
            ObjectEvent e;
            e.type = ObjectEvent::Type::kBookmark;
            e.revision = resp.header_revision;
            SetResourceVersion(e.object, resp.header_revision);
            out.push_back(std::move(e));
          }
          continue;
        }
        co_await BackendObjectStore::Transforming(store_.BatchMayBlock(key_), [&] {
          for (auto& ev : resp.events) Translate(ev, out);
          return true;
        });
      }
      if (!out.empty()) co_return out;
    }
    co_return std::vector<ObjectEvent>();
  }

  void Stop() override {
    std::unique_ptr<WatchHandle> h;
    {
      std::lock_guard lock(mu_);
      h = std::move(handle_);
      stopped_ = true;
    }
    h.reset();  // no callback runs after this returns
    queue_->Close();
  }

 private:
  void StartBackendWatch(int64_t from) {
    WatchRequest req;
    req.key = key_;
    req.range_end = range_end_;
    req.start_revision = from;
    req.prev_kv = true;
    req.progress_notify = opts_.progress_notify;
    auto q = queue_;
    auto handle = backend_.Watch(std::move(req), [q](WatchResponse r) { q->Push(std::move(r)); });
    std::lock_guard lock(mu_);
    if (stopped_) return;  // handle destroyed on return: the watch is cancelled
    handle_ = std::move(handle);
  }

  void Translate(const WatchEvent& ev, std::vector<ObjectEvent>& out) {
    std::optional<Object> prev;
    if (ev.prev_kv) {
      auto p = store_.Decode(ev.prev_kv->value, ev.prev_kv->key, ev.kv.mod_revision);
      if (p.ok()) prev = std::move(*p);
    }
    bool old_matches = prev && (!opts_.predicate || opts_.predicate(*prev));
    if (ev.type == WatchEvent::Type::kDelete) {
      if (!old_matches) return;
      ObjectEvent e;
      e.type = ObjectEvent::Type::kDeleted;
      e.object = std::move(*prev);
      e.revision = ev.kv.mod_revision;
      out.push_back(std::move(e));
      return;
    }
    auto cur = store_.Decode(ev.kv.value, ev.kv.key, ev.kv.mod_revision);
    if (!cur.ok()) {
      LogWarn("watch: undecodable object skipped", {{"key", ev.kv.key}, {"error", cur.status().message()}});
      return;
    }
    bool cur_matches = !opts_.predicate || opts_.predicate(*cur);
    bool created = ev.kv.create_revision == ev.kv.mod_revision;
    ObjectEvent e;
    e.revision = ev.kv.mod_revision;
    if (cur_matches && (created || !old_matches)) {
      e.type = ObjectEvent::Type::kAdded;
      e.object = std::move(*cur);
    } else if (cur_matches) {
      e.type = ObjectEvent::Type::kModified;
      e.object = std::move(*cur);
    } else if (old_matches && !created) {
      // It moved out of the selection: a DELETED with its previous state at this revision.
      e.type = ObjectEvent::Type::kDeleted;
      e.object = std::move(*prev);
    } else {
      return;
    }
    out.push_back(std::move(e));
  }

  Backend& backend_;
  const BackendObjectStore& store_;
  std::string key_;
  std::string range_end_;
  WatchOptions opts_;
  int64_t start_rev_;
  std::shared_ptr<AsyncQueue<WatchResponse>> queue_;
  std::mutex mu_;
  std::unique_ptr<WatchHandle> handle_;  // GUARDED_BY(mu_)
  bool stopped_ = false;                 // GUARDED_BY(mu_)
  bool started_ = false;
  bool ended_ = false;
};

}  // namespace

StatusOr<std::unique_ptr<ObjectWatch>> BackendObjectStore::Watch(const std::string& key, const WatchOptions& opts) {
  auto rv = ParseResourceVersion(opts.resource_version);
  if (!rv.ok()) return rv.TakeStatus();
  std::string k = opts.recursive ? WithTrailingSlash(key) : key;
  std::string end = opts.recursive ? PrefixEnd(k) : "";
  return std::unique_ptr<ObjectWatch>(std::make_unique<BackendWatch>(backend_, *this, k, end, opts, *rv));
}

}  // namespace capstan::storage
