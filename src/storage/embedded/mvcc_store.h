// storage/embedded/mvcc_store.h: the embedded store's MVCC state over LMDB: history, key index,
// revisions, leases, and the operations that read and change them.
//
// History (LMDB table "history") maps a revision key to the header of one change, and "values" maps
// it to a put's value; the in-memory KeyIndex maps each key to its changes and is rebuilt from the
// headers at Open (values are not read then; each is checked against its checksum when read). Reads run on the calling
// thread: they note the committed revision, open a short LMDB read snapshot, find the changes to read
// in the index under a shared lock, and fetch the records from the snapshot. Writes run only on the
// writer thread (writer_thread.h) inside a WriteBatch: one LMDB write transaction holding many client
// transactions, committed with one durable sync. The index is updated as each transaction applies;
// entries above the committed revision are invisible to readers, and a batch that fails to commit
// makes the store reload index and leases from disk.
//
// Compaction raises the compact revision before the batch that deletes the old records commits, so a
// reader that checks the compact revision after opening its snapshot never misses a record.
//
// Thread-safety: Range, ReadEvents, GetStatus, Check and the revision accessors are safe from any
// thread. Begin/Apply*/Commit/Abort are for the writer thread only.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <vector>

#include "storage/backend.h"
#include "storage/embedded/key_index.h"
#include "storage/embedded/lease_table.h"
#include "storage/embedded/lmdb_env.h"
#include "util/clock.h"

namespace capstan::storage::embedded {

struct MvccOptions {
  std::string dir;
  int64_t quota_bytes = 2LL << 30;
  int64_t max_request_bytes = 1572864 + 2048;  // etcd's default --max-request-bytes plus header room
  bool verify_checksums_on_open = true;
  const Clock* clock = &RealClock::Get();
};

using EventPtr = std::shared_ptr<const WatchEvent>;

// One group commit in progress (writer thread only).
struct WriteBatch {
  MDB_txn* txn = nullptr;
  int64_t rev = 0;              // the store revision including this batch's writes so far
  bool over_quota = false;      // puts and lease grants fail with kQuotaExceeded
  bool wrote = false;           // something to commit
  Status fatal;                 // an LMDB failure: the whole batch is abandoned
  std::vector<EventPtr> events;  // in revision order
  std::vector<std::function<void()>> after_commit;
  int64_t puts = 0, deletes = 0;
};

class MvccStore {
 public:
  static StatusOr<std::unique_ptr<MvccStore>> Open(const MvccOptions& options);
  ~MvccStore();

  // --- any thread ---
  StatusOr<RangeResponse> Range(const RangeRequest& req) const;
  // Changes of keys in `range` with revisions in [from, to], in order, each with its previous value.
  // Stops after about max_events, never inside a revision; *next is the first revision not read.
  Status ReadEvents(const KeyRange& range, int64_t from, int64_t to, size_t max_events, std::vector<WatchEvent>* out,
                    int64_t* next) const;
  StatusOr<BackendStatus> GetStatus() const;
  Status Check() const;
  int64_t revision() const { return committed_rev_.load(std::memory_order_acquire); }
  int64_t compact_revision() const { return compact_rev_.load(std::memory_order_acquire); }
  LeaseTable& leases() { return leases_; }
  size_t key_count() const;
  int64_t quota_bytes() const { return options_.quota_bytes; }
  int64_t FileBytes() const { return env_->FileBytes(); }
  // LMDB's compacting copy of the store to `fd`, in one read transaction (the store at one revision;
  // writes go on).
  Status CopyTo(int fd) const;

  // --- writer thread ---
  Status BeginBatch(WriteBatch& b);
  StatusOr<TxnResponse> ApplyTxn(WriteBatch& b, const TxnRequest& req);
  Status ApplyCompact(WriteBatch& b, int64_t revision);
  StatusOr<LeaseGrantResponse> ApplyLeaseGrant(WriteBatch& b, int64_t ttl_seconds);
  // expired=true: the ticker's revoke of an expired lease (a lease already gone is not an error).
  Status ApplyLeaseRevoke(WriteBatch& b, int64_t id, bool expired);
  // Commits (one durable sync) if the batch wrote, then publishes the new revision to readers.
  Status CommitBatch(WriteBatch& b);
  // Abandons the batch and reloads index and leases from disk.
  void AbortBatch(WriteBatch& b);

 private:
  explicit MvccStore(MvccOptions options);
  Status Load();  // builds index and leases from the committed state

  Status ValidateTxn(const TxnRequest& req) const;
  StatusOr<bool> EvalCompare(WriteBatch& b, const Compare& c) const;
  Status CheckBranch(WriteBatch& b, const std::vector<RequestOp>& ops) const;
  // A range against the state including the batch's writes.
  StatusOr<RangeResponse> RangeInBatch(WriteBatch& b, const RangeRequest& req, int64_t at_rev) const;
  // The value a put stored, read in `txn` and checked against its checksum.
  StatusOr<std::string_view> GetValue(MDB_txn* txn, Revision rev) const;
  StatusOr<KeyValue> ReadKeyValue(MDB_txn* txn, const std::string& key, const IndexEntry& e, bool keys_only) const;
  Status WriteChange(WriteBatch& b, const std::string& key, const IndexEntry& e, std::string_view value);
  Status PutMeta(WriteBatch& b, std::string_view key, int64_t v);
  int64_t NextRevision(WriteBatch& b, bool& started, int32_t& sub);

  MvccOptions options_;
  std::unique_ptr<LmdbEnv> env_;

  mutable std::shared_mutex index_mu_;  // readers shared; the writer thread exclusive while mutating
  KeyIndex index_;                      // guarded by index_mu_
  LeaseTable leases_;

  std::atomic<int64_t> committed_rev_{0};
  std::atomic<int64_t> compact_rev_{0};
  int64_t lease_seq_ = 0;  // writer thread
};

}  // namespace capstan::storage::embedded
