// storage/embedded/snapshot_scheduler.h: scheduled snapshots of the embedded store a server serves
// (--snapshot-interval, --snapshot-retention, --snapshot-dir), as k3s schedules etcd snapshots.
//
// Every interval a thread saves a snapshot (snapshot.h's container, the same file `capstan snapshot
// save` writes; `capstan snapshot restore` takes it) to <dir>/capstan-snapshot-<UTC time>.db, the
// name sorting as the time does, then removes the oldest of those files beyond `retention`. Other
// files in the folder are left alone. A failed save is logged; the next one is tried at the
// next interval. Snapshots read in one read transaction: writes are never blocked.
//
// Thread-safety: constructed and destroyed by one thread; the destructor stops the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "storage/backend.h"

namespace capstan::storage::embedded {

class SnapshotScheduler {
 public:
  SnapshotScheduler(Backend& backend, std::string dir, std::chrono::nanoseconds interval, int64_t retention);
  ~SnapshotScheduler();
  SnapshotScheduler(const SnapshotScheduler&) = delete;
  SnapshotScheduler& operator=(const SnapshotScheduler&) = delete;

  // One snapshot now, then the pruning; the path written, or the error.
  StatusOr<std::string> SaveOnce();

 private:
  void Run();

  Backend& backend_;
  const std::string dir_;
  const std::chrono::nanoseconds interval_;
  const int64_t retention_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace capstan::storage::embedded
