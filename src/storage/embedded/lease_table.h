// storage/embedded/lease_table.h: the embedded store's leases in memory: TTL, deadline, attached keys.
//
// Leases are persisted (id → TTL in the "leases" table) by the writer thread; deadlines are not: like
// etcd, a restart gives every lease its full TTL again. The writer thread attaches and detaches keys
// as puts and deletes commit; the backend's ticker asks TakeExpired() for leases past their deadline
// and revokes them through the writer. KeepAlive renews a deadline without touching disk.
//
// Thread-safety: every method locks the table's mutex; safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "apimachinery/status.h"
#include "util/clock.h"

namespace capstan::storage::embedded {

class LeaseTable {
 public:
  explicit LeaseTable(const Clock& clock) : clock_(clock) {}

  void Add(int64_t id, int64_t ttl_seconds);
  // Removes the lease; returns false if it was not there.
  bool Remove(int64_t id);
  bool Exists(int64_t id) const;
  // The keys attached to the lease, sorted.
  std::vector<std::string> Keys(int64_t id) const;
  void Attach(int64_t id, const std::string& key);
  void Detach(int64_t id, const std::string& key);

  // Renews the deadline to now + TTL and returns the TTL; kKeyNotFound if the lease does not exist or
  // has already expired.
  StatusOr<int64_t> KeepAlive(int64_t id);
  // Leases whose deadline has passed and that were not returned before, oldest first.
  std::vector<int64_t> TakeExpired();

  void Clear();
  size_t size() const;

 private:
  struct Lease {
    int64_t ttl = 0;
    std::chrono::steady_clock::time_point deadline;
    std::set<std::string> keys;
    bool expired = false;  // handed to TakeExpired; waiting for its revoke to commit
  };
  const Clock& clock_;
  mutable std::mutex mu_;
  std::unordered_map<int64_t, Lease> leases_;  // guarded by mu_
};

Status LeaseNotFound();

}  // namespace capstan::storage::embedded
