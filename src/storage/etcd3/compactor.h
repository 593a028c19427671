// storage/etcd3/compactor.h: periodic compaction of etcd's history (--etcd-compaction-interval), done
// by one replica at a time as kube-apiserver's compactor does.
//
// Every interval each replica runs one round: a transaction compares the version of the shared key
// "compact_rev_key" (kube's key, outside --etcd-prefix, so Capstan and kube-apiserver replicas on one
// cluster share the schedule) with the version this replica last saw. The replica whose compare holds
// writes the key (bumping its version: the other replicas' compares now fail, and they learn the new
// version) and compacts to the revision it saw one interval earlier; the others only catch up. So
// history is kept for at least one interval, and at most one replica compacts per interval. The
// first round of a replica never compacts (it has not seen a revision an interval ago yet).
//
// Thread-safety: RunOnce is for tests and must not run concurrently with itself; the background
// thread (Start) calls it. The destructor stops the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "apimachinery/status.h"
#include "storage/backend.h"
#include "util/task.h"

namespace capstan::storage::etcd3 {

inline constexpr char kCompactRevKey[] = "compact_rev_key";

struct CompactRound {
  bool won = false;           // this replica's compare held
  int64_t compacted_to = 0;   // the revision compacted to (0: none this round)
  int64_t logical_time = 0;   // the key's version after the round
  int64_t revision = 0;       // the store revision seen this round
};

class Compactor {
 public:
  explicit Compactor(Backend& backend) : backend_(backend) {}
  ~Compactor();
  Compactor(const Compactor&) = delete;
  Compactor& operator=(const Compactor&) = delete;

  // Runs a round every `interval` on a thread of its own (interval <= 0: never).
  void Start(std::chrono::milliseconds interval);
  Task<StatusOr<CompactRound>> RunOnce();

 private:
  void Loop(std::chrono::milliseconds interval);

  Backend& backend_;
  int64_t logical_time_ = 0;  // the key's version this replica last saw
  int64_t last_revision_ = 0;  // the store revision at the previous round
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace capstan::storage::etcd3
