// storage/etcd3/health_check.h: the etcd health checks behind /livez/etcd and /readyz/etcd, made as
// kube-apiserver makes them.
//
// A background thread tries to make an etcd client (connected, answering a read) every second until
// one works, and publishes it; until then every check fails with "etcd client connection not yet
// established" (or the last connection error). A check reads <prefix>/health with its own timeout
// (--etcd-healthcheck-timeout, --etcd-readycheck-timeout) and fails with "error getting data from
// etcd: ...". Each check sends at most one probe per half of its timeout; checks in between get the
// result of the last probe sent, so a flood of /readyz requests does not become a flood of reads.
//
// The published client is separate from the one serving requests (as kube's), so a health probe never
// queues behind request traffic.
//
// Thread-safety: checks may run concurrently on any thread. Destroying the object stops the thread and
// fails later checks with "server is shutting down".
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "apimachinery/status.h"
#include "storage/etcd3/etcd3_backend.h"
#include "storage/etcd3/etcd3_options.h"
#include "util/task.h"

namespace capstan::storage::etcd3 {

class EtcdHealth {
 public:
  // retry: how often to try to make the client (kube: every second).
  explicit EtcdHealth(EtcdOptions options, std::chrono::milliseconds retry = std::chrono::seconds(1));
  ~EtcdHealth();
  EtcdHealth(const EtcdHealth&) = delete;
  EtcdHealth& operator=(const EtcdHealth&) = delete;

  // A health check probing with `timeout`, for server::HealthChecks::Add.
  std::function<Task<Status>()> MakeCheck(std::chrono::milliseconds timeout);

  // Blocks until a client is published, or `timeout` passes (then the last error). For start-up.
  Status WaitForClient(std::chrono::milliseconds timeout);

 private:
  struct CheckState;
  void Run();
  std::shared_ptr<Etcd3Backend> Client(Status* error) const;
  Task<Status> RunCheck(std::shared_ptr<CheckState> state);

  const EtcdOptions options_;
  const std::chrono::milliseconds retry_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;                  // guarded by mu_
  std::shared_ptr<Etcd3Backend> client_;   // guarded by mu_: published once
  Status client_error_;                    // guarded by mu_
  std::thread thread_;
};

}  // namespace capstan::storage::etcd3
