// storage/size_monitor.h: kube's apiserver_storage_size_bytes{storage_cluster_id="etcd-0"}, the bytes
// the storage database file occupies (the embedded store's data.mdb, or etcd's dbSize), for /metrics.
//
// A thread of its own reads Backend::GetStatus() at start and then every `interval`, so a scrape never
// waits for the store; the sample is absent until the first read succeeds (kube leaves it out when
// its monitor fails). The collector keeps the last value alive on its own, so it may outlive the
// monitor. Thread-safe; the Backend outlives the monitor.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "storage/backend.h"
#include "util/metrics.h"

namespace capstan::storage {

class SizeMonitor {
 public:
  SizeMonitor(Backend& backend, MetricsRegistry& metrics, std::chrono::milliseconds interval);
  ~SizeMonitor();  // stops and joins the thread
  SizeMonitor(const SizeMonitor&) = delete;
  SizeMonitor& operator=(const SizeMonitor&) = delete;

  // The last size read (-1: none yet).
  int64_t bytes() const { return bytes_->load(); }

 private:
  void Run();

  Backend& backend_;
  std::chrono::milliseconds interval_;
  std::shared_ptr<std::atomic<int64_t>> bytes_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // guarded by mu_
  std::thread thread_;
};

}  // namespace capstan::storage
