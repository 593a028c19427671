// controllers/resource_quota_controller.h: kube's resourcequota-controller: every ResourceQuota's
// status says its hard limits (status.hard = spec.hard) and the usage of its namespace (status.used,
// one value per hard resource, measured by the quota evaluators of admission/resource_quota_evaluator.h
// over the namespace's objects, honouring the quota's scopes).
//
// Quotas are synced when added, when their spec.hard changes, when an object they may count goes
// away (deleted, a pod turning terminal, a service changing type or ports, a claim's storage
// changing) and in a full resync every resync_period (kube's --resource-quota-sync-period, 5m). The
// objects of the core evaluators (pods, services, persistentvolumeclaims, configmaps, secrets,
// replicationcontrollers, resourcequotas) are watched from the start; a quota counting another
// resource (count/deployments.apps) gets that resource watched (metadata only) at its first sync.
// A sync lists what it counts from the watch cache and writes status (with the quota's
// resourceVersion; a conflict is retried through the rate-limited queue) only when it changed.
// Queue: "resourcequota_primary". Thread-safety: loop-thread only.
#pragma once

#include <chrono>
#include <set>
#include <string>

#include "controllers/controller.h"

namespace capstan::controllers {

inline constexpr std::string_view kResourceQuotaController = "resourcequota-controller";

struct ResourceQuotaControllerOptions {
  std::chrono::milliseconds resync_period = std::chrono::minutes(5);
  int workers = 5;  // kube's --concurrent-resource-quota-syncs
};

class ResourceQuotaController : public Controller {
 public:
  explicit ResourceQuotaController(ResourceQuotaControllerOptions opts = {}) : opts_(opts) {}
  std::string_view Name() const override;
  void Start(ControllerContext& ctx) override;

 private:
  Task<void> Run(ControllerContext& ctx);
  Task<void> Resync(ControllerContext& ctx);
  Task<SyncResult> Sync(const std::string& key);
  // Queues the quotas of `ns` whose hard resources include something of group/resource.
  void Replenish(const std::string& group, const std::string& resource, const std::string& ns);
  void Watch(ControllerContext& ctx, const Gvr& gvr, bool metadata_only);
  void WatchCounted(const std::string& group, const std::string& resource);

  ResourceQuotaControllerOptions opts_;
  ControllerContext* ctx_ = nullptr;
  ApiClient* client_ = nullptr;
  Informer* quotas_ = nullptr;
  WorkQueue* queue_ = nullptr;
  std::set<std::pair<std::string, std::string>> watched_;  // group, resource
};

}  // namespace capstan::controllers
