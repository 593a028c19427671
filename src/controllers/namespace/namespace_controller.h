// controllers/namespace/namespace_controller.h: the namespace lifecycle loop (kube's
// namespace-controller): a namespace that is being deleted is emptied of every namespaced object
// and then finalized (content_deleter.h).
//
// Namespaces with a deletionTimestamp are queued (after `deletion_delay`, kube's 5 s grace for HA
// API servers and etcd; 0 where one process owns the store) on add and update, and again every
// `resync_period`. Workers (kube's ConcurrentNamespaceSyncs, 10) run the deleter; content held by
// finalizers requeues the namespace after estimate/2+1 seconds, errors requeue with the
// namespace rate limiter (5 ms doubling to 60 s, and 10 qps overall), forever.
// Queue: "namespace". Thread-safety: loop-thread only.
#pragma once

#include <chrono>
#include <memory>

#include "controllers/controller.h"
#include "controllers/namespace/content_deleter.h"

namespace capstan::controllers {

struct NamespaceControllerOptions {
  int workers = 10;
  std::chrono::milliseconds deletion_delay{0};
  std::chrono::seconds resync_period{300};
};

class NamespaceController : public Controller {
 public:
  explicit NamespaceController(NamespaceControllerOptions opts = {}) : opts_(opts) {}
  std::string_view Name() const override;
  void Start(ControllerContext& ctx) override;

 private:
  void Enqueue(const Object& ns);
  Task<void> Run(ControllerContext& ctx);
  Task<void> Resync(ControllerContext& ctx);
  Task<SyncResult> Sync(const std::string& name);

  NamespaceControllerOptions opts_;
  Informer* namespaces_ = nullptr;
  WorkQueue* queue_ = nullptr;
  std::unique_ptr<NamespacedContentDeleter> deleter_;
};

}  // namespace capstan::controllers
