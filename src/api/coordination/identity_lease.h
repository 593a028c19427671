// api/coordination/identity_lease.h: this server's identity Lease, as kube-apiserver 1.32 keeps it
// (APIServerIdentity, beta and on by default): kube-system/apiserver-<id>, where <id> is kube's hash
// of the hostname and "kube-apiserver" (IdentityFor), labelled apiserver.kubernetes.io/identity=
// kube-apiserver and kubernetes.io/hostname=<host>, held by "<name>_<uuid>" with leaseDurationSeconds
// 3600 and renewed every 10 s. Every replica keeps its own. The garbage collector (every hour, first at
// start) deletes identity Leases whose renewTime + leaseDurationSeconds has passed: replicas that went
// away. Writes go through the registry (validation and admission apply). Runs on its own thread;
// RenewOnce and CollectOnce may be awaited directly (tests). Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "registry/rest.h"
#include "util/clock.h"
#include "util/task.h"

namespace capstan::api::coordination {

// kube's APIServerID: "apiserver-" + lowercase unpadded base32 of the first 16 bytes of SHA-256 over
// the hostname and "kube-apiserver", each with a 2-byte big-endian length in front.
std::string IdentityFor(const std::string& hostname);

class IdentityLeaseController {
 public:
  struct Config {
    registry::Storage* leases = nullptr;  // coordination.k8s.io/v1 leases (Getter, Creater, Updater, Lister, GracefulDeleter)
    std::string hostname;
    const Clock* clock = &RealClock::Get();
    std::chrono::seconds renew_interval{10};
    int lease_duration_seconds = 3600;
    std::chrono::seconds gc_period{3600};
  };

  explicit IdentityLeaseController(Config c);
  ~IdentityLeaseController() { Stop(); }
  IdentityLeaseController(const IdentityLeaseController&) = delete;
  IdentityLeaseController& operator=(const IdentityLeaseController&) = delete;

  const std::string& lease_name() const { return name_; }
  // Creates the Lease or renews it.
  Task<Status> RenewOnce();
  // Deletes the expired identity Leases (not this server's).
  Task<Status> CollectOnce();

  void Start();
  void Stop();

 private:
  Config c_;
  std::string name_;
  std::string holder_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace capstan::api::coordination
