// The write side of MvccStore: group-commit batches, transactions, compaction and leases. Runs only
// on the writer thread.
#include <algorithm>
#include <mutex>
#include <set>

#include "storage/embedded/errors.h"
#include "storage/embedded/mvcc_store.h"
#include "util/log.h"

namespace capstan::storage::embedded {
namespace {

constexpr int64_t kMinLeaseTtl = 1;
constexpr int64_t kMaxLeaseTtl = 9000000000LL;  // etcd's MaxLeaseTTL

bool HasPut(const std::vector<RequestOp>& ops) {
  return std::any_of(ops.begin(), ops.end(), [](const RequestOp& op) { return op.type == RequestOp::Type::kPut; });
}

}  // namespace

Status MvccStore::BeginBatch(WriteBatch& b) {
  int64_t file = env_->FileBytes();
  if (file > options_.quota_bytes) {
    // The file only grows; what counts is the part not on LMDB's free list. LMDB reads its free list
    // only in read transactions, so this looks at the last committed state.
    ReadTxn rt;
    StatusOr<int64_t> free_pages = rt.Begin(env_->env()).ok() ? env_->FreePages(rt.get()) : StatusOr<int64_t>(int64_t{0});
    int64_t in_use = free_pages.ok() ? file - *free_pages * env_->page_size() : file;
    b.over_quota = in_use > options_.quota_bytes;
  }
  int rc = mdb_txn_begin(env_->env(), nullptr, 0, &b.txn);
  if (rc != 0) {
    b.txn = nullptr;
    return LmdbError(rc, "begin write transaction");
  }
  b.rev = revision();
  return Status::Ok();
}

Status MvccStore::PutMeta(WriteBatch& b, std::string_view key, int64_t v) {
  std::string bytes = EncodeFixed64(v);
  MDB_val k = ToVal(key), val = ToVal(bytes);
  int rc = mdb_put(b.txn, env_->meta(), &k, &val, 0);
  if (rc != 0) return LmdbError(rc, "write meta");
  return Status::Ok();
}

Status MvccStore::WriteChange(WriteBatch& b, const std::string& key, const IndexEntry& e, std::string_view value) {
  Record rec;
  rec.tombstone = e.tombstone;
  rec.key = key;
  rec.create_revision = e.create_revision;
  rec.version = e.version;
  rec.lease = e.lease;
  std::string k = EncodeRevisionKey(e.rev);
  std::string h = EncodeRecord(rec);
  MDB_val mk = ToVal(k), mh = ToVal(h);
  // Revisions only grow, so every history and value write is an append.
  int rc = mdb_put(b.txn, env_->history(), &mk, &mh, MDB_APPEND);
  if (rc != 0) return LmdbError(rc, "write history");
  if (!e.tombstone) {
    std::string v = EncodeValue(value);
    MDB_val mv = ToVal(v);
    rc = mdb_put(b.txn, env_->values(), &mk, &mv, MDB_APPEND);
    if (rc != 0) return LmdbError(rc, "write value");
  }
  {
    std::unique_lock lock(index_mu_);
    index_.Append(key, e);
  }
  b.wrote = true;
  return Status::Ok();
}

int64_t MvccStore::NextRevision(WriteBatch& b, bool& started, int32_t& sub) {
  if (!started) {
    started = true;
    sub = 0;
  }
  return b.rev + 1;
}

Status MvccStore::ValidateTxn(const TxnRequest& req) const {
  size_t bytes = 0;
  for (const Compare& c : req.compare) {
    if (c.key.empty()) return EmptyKey();
    bytes += c.key.size() + c.value.size();
  }
  for (const auto* ops : {&req.success, &req.failure}) {
    std::set<std::string_view> puts;
    for (const RequestOp& op : *ops) {
      switch (op.type) {
        case RequestOp::Type::kRange:
          if (op.range.key.empty()) return EmptyKey();
          bytes += op.range.key.size() + op.range.range_end.size();
          break;
        case RequestOp::Type::kPut:
          if (op.put.key.empty()) return EmptyKey();
          if (!puts.insert(op.put.key).second) return DuplicateKey();
          bytes += op.put.key.size() + op.put.value.size();
          break;
        case RequestOp::Type::kDeleteRange:
          if (op.delete_range.key.empty()) return EmptyKey();
          bytes += op.delete_range.key.size() + op.delete_range.range_end.size();
          break;
      }
    }
    for (const RequestOp& op : *ops) {
      if (op.type != RequestOp::Type::kDeleteRange) continue;
      KeyRange r = KeyRange::From(op.delete_range.key, op.delete_range.range_end);
      for (std::string_view k : puts) {
        if (r.Contains(k)) return DuplicateKey();
      }
    }
  }
  if (bytes > static_cast<size_t>(options_.max_request_bytes)) return RequestTooLarge();
  return Status::Ok();
}

StatusOr<bool> MvccStore::EvalCompare(WriteBatch& b, const Compare& c) const {
  const IndexEntry* e = index_.Live(c.key, b.rev);
  int cmp = 0;
  if (c.target == Compare::Target::kValue) {
    if (!e) return false;
    auto value = GetValue(b.txn, e->rev);
    if (!value.ok()) return value.TakeStatus();
    int r = value->compare(c.value);
    cmp = r < 0 ? -1 : (r > 0 ? 1 : 0);
  } else {
    int64_t v = 0;
    if (e) {
      switch (c.target) {
        case Compare::Target::kVersion: v = e->version; break;
        case Compare::Target::kCreateRevision: v = e->create_revision; break;
        case Compare::Target::kModRevision: v = e->rev.main; break;
        case Compare::Target::kLease: v = e->lease; break;
        case Compare::Target::kValue: break;
      }
    }
    cmp = v < c.number ? -1 : (v > c.number ? 1 : 0);
  }
  switch (c.result) {
    case Compare::Result::kEqual: return cmp == 0;
    case Compare::Result::kGreater: return cmp > 0;
    case Compare::Result::kLess: return cmp < 0;
    case Compare::Result::kNotEqual: return cmp != 0;
  }
  return false;
}

Status MvccStore::CheckBranch(WriteBatch& b, const std::vector<RequestOp>& ops) const {
  for (const RequestOp& op : ops) {
    if (op.type == RequestOp::Type::kPut && op.put.lease != 0 && !leases_.Exists(op.put.lease)) return LeaseNotFound();
    if (op.type == RequestOp::Type::kRange && op.range.revision > 0) {
      if (op.range.revision > b.rev) return FutureRevision();
      if (op.range.revision < compact_revision()) return Compacted(compact_revision());
    }
  }
  return Status::Ok();
}

StatusOr<RangeResponse> MvccStore::RangeInBatch(WriteBatch& b, const RangeRequest& req, int64_t at_rev) const {
  int64_t rev = req.revision > 0 ? req.revision : at_rev;
  KeyRange range = KeyRange::From(req.key, req.range_end);
  size_t limit = req.limit > 0 ? static_cast<size_t>(req.limit) : SIZE_MAX;
  RangeResponse resp;
  resp.revision = at_rev;
  std::vector<std::pair<std::string, IndexEntry>> found;
  index_.ForEachLive(range, rev, [&](const std::string& key, const IndexEntry& e) {
    ++resp.count;
    if (!req.count_only && found.size() < limit) found.emplace_back(key, e);
    return true;
  });
  if (req.count_only) return resp;
  resp.more = static_cast<size_t>(resp.count) > found.size();
  for (auto& [key, e] : found) {
    ASSIGN_OR_RETURN(KeyValue kv, ReadKeyValue(b.txn, key, e, req.keys_only));
    resp.kvs.push_back(std::move(kv));
  }
  return resp;
}

StatusOr<TxnResponse> MvccStore::ApplyTxn(WriteBatch& b, const TxnRequest& req) {
  RETURN_IF_ERROR(ValidateTxn(req));
  if (b.over_quota && (HasPut(req.success) || HasPut(req.failure))) return QuotaExceeded();
  bool succeeded = true;
  for (const Compare& c : req.compare) {
    ASSIGN_OR_RETURN(bool ok, EvalCompare(b, c));
    if (!ok) {
      succeeded = false;
      break;
    }
  }
  const std::vector<RequestOp>& ops = succeeded ? req.success : req.failure;
  RETURN_IF_ERROR(CheckBranch(b, ops));

  // From here on a failure is an LMDB failure and abandons the whole batch.
  auto fatal = [&](Status s) {
    b.fatal = s;
    return s;
  };
  TxnResponse resp;
  resp.succeeded = succeeded;
  const int64_t new_rev = b.rev + 1;
  bool started = false;
  int32_t sub = 0;
  for (const RequestOp& op : ops) {
    ResponseOp out;
    out.type = op.type;
    switch (op.type) {
      case RequestOp::Type::kRange: {
        auto r = RangeInBatch(b, op.range, started ? new_rev : b.rev);
        if (!r.ok()) return fatal(r.TakeStatus());
        out.range = std::move(*r);
        break;
      }
      case RequestOp::Type::kPut: {
        const PutRequest& p = op.put;
        std::optional<IndexEntry> prev;
        if (const IndexEntry* e = index_.Live(p.key, b.rev)) prev = *e;
        std::optional<KeyValue> prev_kv;
        if (prev) {
          auto kv = ReadKeyValue(b.txn, p.key, *prev, false);
          if (!kv.ok()) return fatal(kv.TakeStatus());
          prev_kv = std::move(*kv);
        }
        NextRevision(b, started, sub);
        IndexEntry e;
        e.rev = Revision{new_rev, sub++};
        e.create_revision = prev ? prev->create_revision : new_rev;
        e.version = prev ? prev->version + 1 : 1;
        e.lease = p.lease;
        if (Status s = WriteChange(b, p.key, e, p.value); !s.ok()) return fatal(s);
        if (prev && prev->lease != 0 && prev->lease != p.lease) leases_.Detach(prev->lease, p.key);
        if (p.lease != 0) leases_.Attach(p.lease, p.key);
        auto ev = std::make_shared<WatchEvent>();
        ev->type = WatchEvent::Type::kPut;
        ev->kv = KeyValue{p.key, p.value, e.create_revision, new_rev, e.version, p.lease};
        ev->prev_kv = prev_kv;
        b.events.push_back(std::move(ev));
        ++b.puts;
        if (p.prev_kv) out.put.prev_kv = std::move(prev_kv);
        break;
      }
      case RequestOp::Type::kDeleteRange: {
        const DeleteRangeRequest& d = op.delete_range;
        std::vector<std::pair<std::string, IndexEntry>> victims;
        index_.ForEachLive(KeyRange::From(d.key, d.range_end), b.rev, [&](const std::string& k, const IndexEntry& e) {
          victims.emplace_back(k, e);
          return true;
        });
        for (auto& [key, live] : victims) {
          auto kv = ReadKeyValue(b.txn, key, live, false);
          if (!kv.ok()) return fatal(kv.TakeStatus());
          NextRevision(b, started, sub);
          IndexEntry e;
          e.rev = Revision{new_rev, sub++};
          e.tombstone = true;
          if (Status s = WriteChange(b, key, e, {}); !s.ok()) return fatal(s);
          if (live.lease != 0) leases_.Detach(live.lease, key);
          auto ev = std::make_shared<WatchEvent>();
          ev->type = WatchEvent::Type::kDelete;
          ev->kv.key = key;
          ev->kv.mod_revision = new_rev;
          ev->prev_kv = *kv;
          b.events.push_back(std::move(ev));
          ++b.deletes;
          ++out.delete_range.deleted;
          if (d.prev_kv) out.delete_range.prev_kvs.push_back(std::move(*kv));
        }
        break;
      }
    }
    resp.responses.push_back(std::move(out));
  }
  if (started) b.rev = new_rev;
  resp.revision = b.rev;
  return resp;
}

Status MvccStore::ApplyCompact(WriteBatch& b, int64_t revision) {
  int64_t current = compact_revision();
  if (revision <= current) return Compacted(current);
  if (revision > b.rev) return FutureRevision();
  std::vector<Revision> drop = index_.CompactedRevisions(revision);
  // Raised before the deletes commit: see the read protocol in MvccStore::Range.
  compact_rev_.store(revision, std::memory_order_seq_cst);
  b.wrote = true;
  if (Status s = PutMeta(b, kMetaCompactRevision, revision); !s.ok() || !(s = PutMeta(b, kMetaRevision, b.rev)).ok()) {
    b.fatal = s;
    return s;
  }
  for (Revision r : drop) {
    std::string k = EncodeRevisionKey(r);
    MDB_val mk = ToVal(k);
    int rc = mdb_del(b.txn, env_->history(), &mk, nullptr);
    if (rc == 0 || rc == MDB_NOTFOUND) rc = mdb_del(b.txn, env_->values(), &mk, nullptr);  // none for deletes
    if (rc != 0 && rc != MDB_NOTFOUND) {
      b.fatal = LmdbError(rc, "compact history");
      return b.fatal;
    }
  }
  b.after_commit.push_back([this, revision] {
    std::unique_lock lock(index_mu_);
    index_.Compact(revision);
  });
  return Status::Ok();
}

StatusOr<LeaseGrantResponse> MvccStore::ApplyLeaseGrant(WriteBatch& b, int64_t ttl_seconds) {
  if (b.over_quota) return QuotaExceeded();
  if (ttl_seconds > kMaxLeaseTtl) return Status::Storage(StorageCode::kInvalidArgument, "etcdserver: too large lease TTL");
  int64_t ttl = std::max(ttl_seconds, kMinLeaseTtl);
  int64_t id = lease_seq_ + 1;
  std::string k = EncodeFixed64(id), v = EncodeFixed64(ttl);
  MDB_val mk = ToVal(k), mv = ToVal(v);
  int rc = mdb_put(b.txn, env_->leases(), &mk, &mv, 0);
  Status s = rc == 0 ? PutMeta(b, kMetaLeaseSeq, id) : LmdbError(rc, "write lease");
  if (!s.ok()) {
    b.fatal = s;
    return s;
  }
  lease_seq_ = id;
  b.wrote = true;
  leases_.Add(id, ttl);
  return LeaseGrantResponse{id, ttl};
}

Status MvccStore::ApplyLeaseRevoke(WriteBatch& b, int64_t id, bool expired) {
  if (!leases_.Exists(id)) return expired ? Status::Ok() : LeaseNotFound();
  // Like etcd: the lease's keys are deleted in key order, in one transaction (one revision).
  const int64_t new_rev = b.rev + 1;
  bool started = false;
  int32_t sub = 0;
  for (const std::string& key : leases_.Keys(id)) {
    std::optional<IndexEntry> live;
    if (const IndexEntry* e = index_.Live(key, b.rev)) live = *e;
    if (!live) continue;
    auto kv = ReadKeyValue(b.txn, key, *live, false);
    if (!kv.ok()) {
      b.fatal = kv.TakeStatus();
      return b.fatal;
    }
    NextRevision(b, started, sub);
    IndexEntry e;
    e.rev = Revision{new_rev, sub++};
    e.tombstone = true;
    if (Status s = WriteChange(b, key, e, {}); !s.ok()) {
      b.fatal = s;
      return s;
    }
    auto ev = std::make_shared<WatchEvent>();
    ev->type = WatchEvent::Type::kDelete;
    ev->kv.key = key;
    ev->kv.mod_revision = new_rev;
    ev->prev_kv = std::move(*kv);
    b.events.push_back(std::move(ev));
    ++b.deletes;
  }
  std::string k = EncodeFixed64(id);
  MDB_val mk = ToVal(k);
  int rc = mdb_del(b.txn, env_->leases(), &mk, nullptr);
  if (rc != 0 && rc != MDB_NOTFOUND) {
    b.fatal = LmdbError(rc, "delete lease");
    return b.fatal;
  }
  leases_.Remove(id);
  b.wrote = true;
  if (started) b.rev = new_rev;
  return Status::Ok();
}

Status MvccStore::CommitBatch(WriteBatch& b) {
  if (!b.wrote) {
    mdb_txn_abort(b.txn);
    b.txn = nullptr;
    return Status::Ok();
  }
  // The revision is not written per commit: it is the newest history record's (compaction keeps
  // every record at or above the compact revision, so the newest one always survives).
  int rc = mdb_txn_commit(b.txn);  // writes and syncs (LMDB's default durable commit)
  b.txn = nullptr;
  if (rc != 0) {
    Status err = LmdbError(rc, "commit");
    LogError("embedded store commit failed", {{"error", err.message()}});
    if (Status l = Load(); !l.ok()) LogError("embedded store reload failed", {{"error", l.message()}});
    return err;
  }
  committed_rev_.store(b.rev, std::memory_order_release);
  return Status::Ok();
}

void MvccStore::AbortBatch(WriteBatch& b) {
  if (b.txn) mdb_txn_abort(b.txn);
  b.txn = nullptr;
  if (Status l = Load(); !l.ok()) LogError("embedded store reload failed", {{"error", l.message()}});
}

}  // namespace capstan::storage::embedded
