// controllers/garbagecollector/garbage_collector.h: kube's garbage-collector-controller over the
// ownerReferences graph (graph.h) of every served resource.
//
// Monitors: one metadata-only informer per resource that supports delete, list and watch (preferred
// versions; core and events.k8s.io Events are ignored, as in kube), feeding the graph; the informers
// are the run's shared ones, so the quota controller's counted resources are cached once. The served
// set is re-read from the API registry snapshot every `discovery_period`, so custom resources
// installed later are monitored and removed ones dropped.
// Workers (kube's ConcurrentGCSyncs, 20) take UIDs from two queues once every monitor has synced:
//   attemptToDelete: reads the object; gone → a virtual delete; waiting for its dependents
//     (foregroundDeletion) → removes the finalizer once no blocking dependent is left, else queues
//     them; otherwise classifies its owner references as solid (owner exists), dangling (owner
//     missing or with another UID, remembered in the absent-owner cache) or waiting (owner is being
//     deleted in the foreground): with a solid owner, dangling and waiting references are removed
//     from it; with a waiting owner and dependents of its own, it is deleted in the foreground
//     (unblocking its own references first when a dependent also waits, to break cycles);
//     otherwise it is deleted, in the propagation its finalizers ask for (orphan, foreground,
//     else background), with its UID as precondition. A cluster-scoped object that names a
//     namespaced owner is left alone; an owner reference whose kind is not served is retried.
//   attemptToOrphan: removes the owner's reference from every dependent, then the owner's
//     `orphan` finalizer.
// A namespaced owner referenced from another namespace is reported with a Warning event
// OwnerRefInvalidNamespace on the dependent. Queues: garbage_collector_attempt_to_delete and
// garbage_collector_attempt_to_orphan, kube's default rate limiter, retried forever.
// Thread-safety: loop-thread only.
#pragma once

#include <chrono>
#include <map>
#include <memory>

#include "controllers/controller.h"
#include "controllers/discovery.h"
#include "controllers/garbagecollector/graph.h"

namespace capstan::controllers {

struct GarbageCollectorOptions {
  int workers = 20;
  std::chrono::milliseconds discovery_period{1000};
};

class GarbageCollector : public Controller, private gc::GraphSink {
 public:
  explicit GarbageCollector(GarbageCollectorOptions opts = {}) : opts_(opts) {}
  std::string_view Name() const override;
  void Start(ControllerContext& ctx) override;

  // For tests: the graph as the collector sees it.
  const gc::Graph* graph() const { return graph_.get(); }

 private:
  enum class Outcome { kDone, kRetry, kVirtualDeleteEnqueued, kNamespacedOwnerOfClusterScoped };
  struct Result {
    Outcome outcome = Outcome::kDone;
    Status status;
  };
  struct Monitor {
    Informer* informer = nullptr;  // shared with other controllers of the run (one cache per resource)
    size_t handler = 0;
  };

  // GraphSink.
  void AttemptToDelete(const std::string& uid) override;
  void AttemptToDeleteRateLimited(const std::string& uid) override;
  void AttemptToOrphan(const std::string& uid) override;
  void InvalidNamespaceOwnerRef(const gc::ObjectReference& dependent, const gc::ObjectReference& owner) override;

  void SyncMonitors();
  Task<void> Run();
  Task<void> DiscoveryLoop();
  Task<SyncResult> ProcessAttemptToDelete(const std::string& uid);
  Task<SyncResult> ProcessAttemptToOrphan(const std::string& uid);
  Task<Result> AttemptToDeleteItem(const std::string& uid);
  Task<Result> ProcessDeletingDependentsItem(const std::string& uid);
  struct Dangling {
    bool dangling = false;
    std::optional<Object> owner;
  };
  Task<StatusOr<Dangling>> IsDangling(const gc::OwnerReference& ref, const gc::ObjectReference& item, Outcome* special);
  Task<StatusOr<Object>> GetObject(const gc::ObjectReference& id);
  Task<Status> DeleteObject(const gc::ObjectReference& id, const std::string& policy);
  Task<Status> RemoveFinalizer(const gc::ObjectReference& id, std::string_view finalizer);
  // Applies `change` to the live object of `id` (which must still have id's UID).
  Task<Status> PatchObject(const gc::ObjectReference& id, std::function<bool(Object&)> change);
  Task<void> RecordEvent(gc::ObjectReference involved, std::string reason, std::string message);

  GarbageCollectorOptions opts_;
  ControllerContext* ctx_ = nullptr;
  WorkQueue* attempt_to_delete_ = nullptr;
  WorkQueue* attempt_to_orphan_ = nullptr;
  gc::AbsentOwnerCache absent_;
  std::unique_ptr<gc::Graph> graph_;
  std::map<Gvr, Monitor> monitors_;
  std::shared_ptr<const endpoints::ApiSnapshot> seen_snapshot_;
  bool workers_started_ = false;
};

}  // namespace capstan::controllers
