// storage/backend.h: storage::Backend, the MVCC key-value store under everything Capstan keeps.
//
// The semantics are etcd v3's, exactly, so that the embedded store and a real etcd cluster are
// interchangeable:
//  - one global revision, +1 per committed transaction that writes (a txn whose compares fail, or that
//    only reads, does not bump it; a put of an identical value does); an empty store is at revision 1;
//  - per key: create_revision, mod_revision, version (1 on create, +1 per put, and a delete ends the
//    key's generation: a later put starts again at version 1 with a new create_revision);
//  - ranges over [key, range_end) at the current or a past revision (not below the compact revision);
//  - transactions: all compares are evaluated against the current state; if all hold, the success ops
//    run, else the failure ops; every op of one txn sees the same revision and the writes of one txn
//    share one new revision;
//  - watches deliver every change after start_revision in revision order, each put/delete with the
//    previous value when asked for;
//  - leases: keys attached to a lease are deleted when it expires or is revoked, all in one
//    transaction in key order (one revision, as etcd's lessor.Revoke does; none if it had no keys);
//  - compaction removes history below a revision; reads and watches below it fail with kCompacted
//    carrying the compact revision.
//
// Errors are Status values with a StorageCode (kCompacted, kFutureRevision, kUnavailable,
// kQuotaExceeded, kInvalidArgument, kInternal). Compare failures are not errors: succeeded=false.
// As etcd: an empty key, or a txn branch that puts one key twice or deletes a key it puts, is
// kInvalidArgument; a put with a lease that does not exist is kKeyNotFound; a request over the size
// limit is kTooLarge; over the space quota, txns with a put and lease grants are kQuotaExceeded
// ("database space exceeded") while reads and deletes still work.
//
// Thread-safety: every method may be called from any thread, concurrently. Tasks resume on the
// caller's executor (util/executor.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "util/task.h"

namespace capstan::storage {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t version = 0;
  int64_t lease = 0;
  bool operator==(const KeyValue&) const = default;
};

// The range_end that selects every key with this prefix (etcd's GetPrefixRangeEnd).
std::string PrefixEnd(const std::string& prefix);

struct RangeRequest {
  std::string key;
  // Empty: only `key`. "\0" (a one-byte string holding zero): every key >= key. Otherwise [key, range_end).
  std::string range_end;
  int64_t revision = 0;  // 0: the current revision
  int64_t limit = 0;     // 0: no limit
  bool keys_only = false;
  bool count_only = false;
};

struct RangeResponse {
  std::vector<KeyValue> kvs;
  int64_t count = 0;     // number of keys in the range (ignoring limit)
  bool more = false;     // more keys in the range than returned
  int64_t revision = 0;  // the header revision: the store's current revision when served, also for a
                         // range at a past revision
};

struct PutRequest {
  std::string key;
  std::string value;
  int64_t lease = 0;
  bool prev_kv = false;
};

struct DeleteRangeRequest {
  std::string key;
  std::string range_end;
  bool prev_kv = false;
};

struct Compare {
  enum class Target { kVersion, kCreateRevision, kModRevision, kValue, kLease };
  enum class Result { kEqual, kGreater, kLess, kNotEqual };
  std::string key;
  Target target = Target::kModRevision;
  Result result = Result::kEqual;
  int64_t number = 0;  // for version/create/mod/lease; a missing key has 0 for all of them
  std::string value;   // for kValue; a compare on the value of a missing key is false
};

struct RequestOp {
  enum class Type { kRange, kPut, kDeleteRange };
  Type type = Type::kRange;
  RangeRequest range;
  PutRequest put;
  DeleteRangeRequest delete_range;

  static RequestOp Get(std::string key) {
    RequestOp op;
    op.type = Type::kRange;
    op.range.key = std::move(key);
    return op;
  }
  static RequestOp Put(std::string key, std::string value, int64_t lease = 0) {
    RequestOp op;
    op.type = Type::kPut;
    op.put.key = std::move(key);
    op.put.value = std::move(value);
    op.put.lease = lease;
    return op;
  }
  static RequestOp Delete(std::string key, bool prev_kv = false) {
    RequestOp op;
    op.type = Type::kDeleteRange;
    op.delete_range.key = std::move(key);
    op.delete_range.prev_kv = prev_kv;
    return op;
  }
};

struct PutResponse {
  std::optional<KeyValue> prev_kv;
};

struct DeleteRangeResponse {
  int64_t deleted = 0;
  std::vector<KeyValue> prev_kvs;
};

struct ResponseOp {
  RequestOp::Type type = RequestOp::Type::kRange;
  RangeResponse range;
  PutResponse put;
  DeleteRangeResponse delete_range;
};

struct TxnRequest {
  std::vector<Compare> compare;
  std::vector<RequestOp> success;
  std::vector<RequestOp> failure;
};

struct TxnResponse {
  bool succeeded = false;
  int64_t revision = 0;  // the revision after the txn (the new one if it wrote)
  std::vector<ResponseOp> responses;
};

struct WatchEvent {
  enum class Type { kPut, kDelete };
  Type type = Type::kPut;
  KeyValue kv;  // for a delete: key and mod_revision (the delete's revision); value empty
  std::optional<KeyValue> prev_kv;
};

struct WatchResponse {
  std::vector<WatchEvent> events;  // in revision order
  int64_t header_revision = 0;     // the store revision when this response was sent
  bool progress_notify = false;    // no events: every change up to header_revision was delivered
  Status error;                    // not OK: the watch has ended (kCompacted with the compact revision,
                                   // kUnavailable, or the watcher fell too far behind)
};

struct WatchRequest {
  std::string key;
  std::string range_end;       // as in RangeRequest
  int64_t start_revision = 0;  // 0: changes after the current revision
  bool prev_kv = false;
  bool progress_notify = false;  // periodic progress notifications while idle
};

// Called serially, in revision order, on a backend thread. Must not block, and must not destroy the
// WatchHandle it belongs to.
using WatchCallback = std::function<void(WatchResponse)>;

// A running watch. Destroying it cancels the watch; once the destructor returns no callback runs.
class WatchHandle {
 public:
  virtual ~WatchHandle() = default;
  // Asks for a progress notification (a response with progress_notify set) as soon as possible.
  virtual void RequestProgress() = 0;
};

struct LeaseGrantResponse {
  int64_t id = 0;
  int64_t ttl = 0;  // seconds
};

struct BackendStatus {
  int64_t revision = 0;
  int64_t compact_revision = 0;
  int64_t db_size = 0;         // bytes the store occupies
  int64_t db_size_in_use = 0;  // bytes holding live data
  std::string version;         // implementation and version, e.g. "embedded" or etcd's version
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual Task<StatusOr<RangeResponse>> Range(RangeRequest req) = 0;
  virtual Task<StatusOr<TxnResponse>> Txn(TxnRequest req) = 0;
  virtual std::unique_ptr<WatchHandle> Watch(WatchRequest req, WatchCallback cb) = 0;
  // Compacts history below `revision`. Compacting at or below the current compact revision is
  // kCompacted; above the current revision is kFutureRevision.
  virtual Task<Status> Compact(int64_t revision) = 0;

  virtual Task<StatusOr<LeaseGrantResponse>> LeaseGrant(int64_t ttl_seconds) = 0;
  virtual Task<Status> LeaseRevoke(int64_t id) = 0;
  // Renews the lease for its full TTL; returns the TTL (kKeyNotFound once it has expired).
  virtual Task<StatusOr<int64_t>> LeaseKeepAlive(int64_t id) = 0;

  virtual Task<StatusOr<BackendStatus>> GetStatus() = 0;
  // A cheap probe that the store answers (kube's etcd health check: a read of one key).
  virtual Task<Status> Check() = 0;

  // Convenience wrappers over Txn.
  Task<StatusOr<TxnResponse>> Put(std::string key, std::string value, int64_t lease = 0);
  Task<StatusOr<TxnResponse>> Delete(std::string key);
  Task<StatusOr<std::optional<KeyValue>>> Get(std::string key, int64_t revision = 0);
};

}  // namespace capstan::storage
