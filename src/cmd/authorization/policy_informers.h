// cmd/authorization/policy_informers.h: keeps the authorizers' views of the API current: the RBAC
// authorizer's RbacPolicy snapshot (from informers over roles, clusterroles, rolebindings and
// clusterrolebindings) and the Node authorizer's graph (from informers over pods and
// persistentvolumeclaims).
//
// The informers list and watch through the endpoints ApiRegistry (so the watch cache answers them)
// on one dedicated thread, independent of the controllers' leader election: every server keeps its
// own view. A change to any RBAC object marks the policy dirty; a ticker rebuilds and publishes
// the snapshot at most every 20 ms, so a burst of changes costs one rebuild. Decisions never touch
// storage.
//
// Thread-safety: Start, WaitForSync and Stop from one thread (the main thread).
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "auth/authz/node_authorizer.h"
#include "auth/authz/rbac_authorizer.h"
#include "endpoints/api_registry.h"

namespace capstan::authz {

class PolicyInformers {
 public:
  // Either authorizer may be null (its informers are not started). Both must outlive this object.
  PolicyInformers(const endpoints::ApiRegistry& registry, RbacAuthorizer* rbac, NodeAuthorizer* node);
  ~PolicyInformers();
  PolicyInformers(const PolicyInformers&) = delete;
  PolicyInformers& operator=(const PolicyInformers&) = delete;

  void Start();
  // Whether every informer delivered its first list (and the first snapshot is published) within
  // `timeout`.
  bool WaitForSync(std::chrono::milliseconds timeout);
  void Stop();

  // Snapshots published so far.
  uint64_t rebuilds() const { return rebuilds_.load(); }

 private:
  struct LoopState;
  void Loop();

  const endpoints::ApiRegistry& registry_;
  RbacAuthorizer* rbac_;
  NodeAuthorizer* node_;
  std::unique_ptr<LoopState> state_;
  std::thread thread_;
  bool started_ = false;

  std::mutex mu_;
  std::condition_variable cv_;
  bool synced_ = false;  // guarded by mu_
  std::atomic<uint64_t> rebuilds_{0};
};

}  // namespace capstan::authz
