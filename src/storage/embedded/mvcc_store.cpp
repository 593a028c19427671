// Open, load and the read side of MvccStore; the write side is in mvcc_apply.cpp.
#include "storage/embedded/mvcc_store.h"

#include <algorithm>
#include <mutex>

#include "storage/embedded/errors.h"
#include "util/log.h"

namespace capstan::storage::embedded {

MvccStore::MvccStore(MvccOptions options) : options_(std::move(options)), leases_(*options_.clock) {}

MvccStore::~MvccStore() = default;

StatusOr<std::unique_ptr<MvccStore>> MvccStore::Open(const MvccOptions& options) {
  std::unique_ptr<MvccStore> store(new MvccStore(options));
  // Room above the quota so that a batch admitted just under it, and the deletes and compactions that
  // are allowed over it, can still complete.
  int64_t headroom = std::max<int64_t>(options.quota_bytes / 8, 128LL << 20);
  ASSIGN_OR_RETURN(store->env_, LmdbEnv::Open(options.dir, options.quota_bytes + headroom));
  RETURN_IF_ERROR(store->Load());
  return store;
}

Status MvccStore::Load() {
  ReadTxn txn;
  RETURN_IF_ERROR(txn.Begin(env_->env()));
  auto meta = [&](std::string_view key) -> StatusOr<int64_t> {
    MDB_val k = ToVal(key), v;
    int rc = mdb_get(txn.get(), env_->meta(), &k, &v);
    if (rc == MDB_NOTFOUND) return int64_t{0};
    if (rc != 0) return LmdbError(rc, "read meta");
    auto n = DecodeFixed64(FromVal(v));
    if (!n.ok()) return CorruptAt(env_->path(), "meta " + std::string(key), n.status());
    return *n;
  };
  ASSIGN_OR_RETURN(int64_t meta_rev, meta(kMetaRevision));
  ASSIGN_OR_RETURN(int64_t compact, meta(kMetaCompactRevision));
  ASSIGN_OR_RETURN(int64_t lease_seq, meta(kMetaLeaseSeq));

  std::unique_lock lock(index_mu_);
  index_.Clear();
  leases_.Clear();
  int64_t max_rev = 0;
  {
    Cursor c;
    RETURN_IF_ERROR(c.Open(txn.get(), env_->history()));
    MDB_val k, v;
    int rc;
    for (rc = mdb_cursor_get(c.get(), &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(c.get(), &k, &v, MDB_NEXT)) {
      auto rev = DecodeRevisionKey(FromVal(k));
      if (!rev.ok()) return CorruptAt(env_->path(), "history key", rev.status());
      auto rec = DecodeRecord(FromVal(v), options_.verify_checksums_on_open);
      if (!rec.ok()) return CorruptAt(env_->path(), "history record at revision " + std::to_string(rev->main), rec.status());
      IndexEntry e;
      e.rev = *rev;
      e.tombstone = rec->tombstone;
      e.create_revision = rec->create_revision;
      e.version = rec->version;
      e.lease = rec->lease;
      index_.Append(rec->key, e);
      max_rev = std::max(max_rev, rev->main);
    }
    if (rc != MDB_NOTFOUND) return LmdbError(rc, "scan history");
  }
  {
    Cursor c;
    RETURN_IF_ERROR(c.Open(txn.get(), env_->leases()));
    MDB_val k, v;
    int rc;
    for (rc = mdb_cursor_get(c.get(), &k, &v, MDB_FIRST); rc == 0; rc = mdb_cursor_get(c.get(), &k, &v, MDB_NEXT)) {
      auto id = DecodeFixed64(FromVal(k));
      auto ttl = DecodeFixed64(FromVal(v));
      if (!id.ok() || !ttl.ok()) return CorruptAt(env_->path(), "lease table", id.ok() ? ttl.status() : id.status());
      leases_.Add(*id, *ttl);
      lease_seq = std::max(lease_seq, *id);
    }
    if (rc != MDB_NOTFOUND) return LmdbError(rc, "scan leases");
  }
  index_.ForEachKey([&](const std::string& key, const std::vector<IndexEntry>& entries) {
    const IndexEntry& last = entries.back();
    if (!last.tombstone && last.lease != 0) leases_.Attach(last.lease, key);
  });
  lease_seq_ = lease_seq;
  compact_rev_.store(compact, std::memory_order_release);
  // As etcd, an empty store is at revision 1.
  committed_rev_.store(std::max<int64_t>({meta_rev, max_rev, 1}), std::memory_order_release);
  return Status::Ok();
}

size_t MvccStore::key_count() const {
  std::shared_lock lock(index_mu_);
  return index_.key_count();
}

StatusOr<std::string_view> MvccStore::GetValue(MDB_txn* txn, Revision rev) const {
  std::string key = EncodeRevisionKey(rev);
  MDB_val k = ToVal(key), v;
  int rc = mdb_get(txn, env_->values(), &k, &v);
  if (rc == MDB_NOTFOUND) {
    return Status::Storage(StorageCode::kInternal, "embedded store " + env_->path() + ": the value of revision " +
                                                       std::to_string(rev.main) + " is missing");
  }
  if (rc != 0) return LmdbError(rc, "read value");
  auto value = DecodeValue(FromVal(v));
  if (!value.ok()) return CorruptAt(env_->path(), "value at revision " + std::to_string(rev.main), value.status());
  return *value;
}

StatusOr<KeyValue> MvccStore::ReadKeyValue(MDB_txn* txn, const std::string& key, const IndexEntry& e,
                                          bool keys_only) const {
  KeyValue kv;
  kv.key = key;
  kv.create_revision = e.create_revision;
  kv.mod_revision = e.rev.main;
  kv.version = e.version;
  kv.lease = e.lease;
  if (keys_only) return kv;
  ASSIGN_OR_RETURN(std::string_view value, GetValue(txn, e.rev));
  kv.value.assign(value);
  return kv;
}

StatusOr<RangeResponse> MvccStore::Range(const RangeRequest& req) const {
  if (req.key.empty()) return EmptyKey();
  // The committed revision first, then the snapshot: the snapshot holds every record up to it.
  int64_t current = revision();
  int64_t rev = req.revision > 0 ? req.revision : current;
  if (rev > current) return FutureRevision();
  ReadTxn txn;
  RETURN_IF_ERROR(txn.Begin(env_->env()));
  KeyRange range = KeyRange::From(req.key, req.range_end);
  std::vector<std::pair<std::string, IndexEntry>> found;
  int64_t count = 0;
  size_t limit = req.limit > 0 ? static_cast<size_t>(req.limit) : SIZE_MAX;
  {
    std::shared_lock lock(index_mu_);
    // Checked after the snapshot opened: compaction raises the compact revision before it deletes.
    int64_t compact = compact_revision();
    if (rev < compact) return Compacted(compact);
    index_.ForEachLive(range, rev, [&](const std::string& key, const IndexEntry& e) {
      ++count;
      if (!req.count_only && found.size() < limit) found.emplace_back(key, e);
      return true;
    });
  }
  RangeResponse resp;
  resp.revision = current;
  resp.count = count;
  if (req.count_only) return resp;
  resp.more = static_cast<size_t>(count) > found.size();
  resp.kvs.reserve(found.size());
  for (auto& [key, e] : found) {
    ASSIGN_OR_RETURN(KeyValue kv, ReadKeyValue(txn.get(), key, e, req.keys_only));
    resp.kvs.push_back(std::move(kv));
  }
  return resp;
}

Status MvccStore::ReadEvents(const KeyRange& range, int64_t from, int64_t to, size_t max_events,
                             std::vector<WatchEvent>* out, int64_t* next) const {
  *next = from;
  ReadTxn txn;
  RETURN_IF_ERROR(txn.Begin(env_->env()));
  int64_t compact = compact_revision();
  if (from < compact) return Compacted(compact);
  Cursor c;
  RETURN_IF_ERROR(c.Open(txn.get(), env_->history()));
  std::string start = EncodeRevisionKey(Revision{from, 0});
  MDB_val k = ToVal(start), v;
  int rc = mdb_cursor_get(c.get(), &k, &v, MDB_SET_RANGE);
  int64_t last_main = 0;
  size_t matched = 0;
  for (; rc == 0; rc = mdb_cursor_get(c.get(), &k, &v, MDB_NEXT)) {
    auto rev = DecodeRevisionKey(FromVal(k));
    if (!rev.ok()) return rev.TakeStatus();
    if (rev->main > to) break;
    if (matched >= max_events && rev->main != last_main) {
      *next = rev->main;
      return Status::Ok();
    }
    last_main = rev->main;
    auto rec = DecodeRecord(FromVal(v));
    if (!rec.ok()) return CorruptAt(env_->path(), "history record at revision " + std::to_string(rev->main), rec.status());
    if (!range.Contains(rec->key)) continue;
    WatchEvent ev;
    ev.type = rec->tombstone ? WatchEvent::Type::kDelete : WatchEvent::Type::kPut;
    ev.kv.key.assign(rec->key);
    ev.kv.mod_revision = rev->main;
    if (!rec->tombstone) {
      auto value = GetValue(txn.get(), *rev);
      if (!value.ok()) return value.TakeStatus();
      ev.kv.value.assign(*value);
      ev.kv.create_revision = rec->create_revision;
      ev.kv.version = rec->version;
      ev.kv.lease = rec->lease;
    }
    std::optional<IndexEntry> prev;
    {
      std::shared_lock lock(index_mu_);
      if (const IndexEntry* p = index_.Latest(ev.kv.key, rev->main - 1); p && !p->tombstone) prev = *p;
    }
    if (prev) {
      // The previous change may have been compacted away; then the event has no previous value.
      if (auto kv = ReadKeyValue(txn.get(), ev.kv.key, *prev, false); kv.ok()) ev.prev_kv = std::move(*kv);
    }
    out->push_back(std::move(ev));
    ++matched;
  }
  if (rc != 0 && rc != MDB_NOTFOUND) return LmdbError(rc, "scan history");
  *next = to + 1;
  return Status::Ok();
}

StatusOr<BackendStatus> MvccStore::GetStatus() const {
  BackendStatus st;
  st.revision = revision();
  st.compact_revision = compact_revision();
  st.version = "embedded";
  ReadTxn txn;
  RETURN_IF_ERROR(txn.Begin(env_->env()));
  st.db_size = env_->FileBytes();
  ASSIGN_OR_RETURN(int64_t free_pages, env_->FreePages(txn.get()));
  st.db_size_in_use = std::max<int64_t>(0, st.db_size - free_pages * env_->page_size());
  return st;
}

Status MvccStore::Check() const {
  ReadTxn txn;
  RETURN_IF_ERROR(txn.Begin(env_->env()));
  MDB_val k = ToVal(kMetaFormat), v;
  int rc = mdb_get(txn.get(), env_->meta(), &k, &v);
  if (rc != 0) return LmdbError(rc, "health check read");
  return Status::Ok();
}

Status MvccStore::CopyTo(int fd) const {
  int rc = mdb_env_copyfd2(env_->env(), fd, MDB_CP_COMPACT);
  if (rc != 0) return Status(500, "InternalError", std::string("cannot copy the store: ") + mdb_strerror(rc));
  return Status::Ok();
}

}  // namespace capstan::storage::embedded
