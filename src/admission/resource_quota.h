// admission/resource_quota.h: the ResourceQuota admission plugin (kube's validating plugin of
// k8s.io/apiserver/pkg/admission/plugin/resourcequota).
//
// For a namespaced create (and the updates an evaluator handles: service updates, PVC updates and
// allocated-storage changes, pod resizes), the ResourceQuotas of the namespace that match the object
// (their status.hard names something the object's evaluator measures, and the object matches every
// scope) are checked: the evaluator's constraints ("failed quota: q: must specify limits.cpu for:
// app"), known usage ("status unknown for quota: q, resources: cpu"), and used + requested <= hard
// ("exceeded quota: q, requested: cpu=2, used: cpu=1, limited: cpu=2"), each a 403 Forbidden. An
// update is charged only its increase. Unless the request is a dry run, the new usage is written to
// each changed quota's status with its resourceVersion as precondition before the object is
// stored; on a conflict the failed quotas are read again and checked again, three times at most,
// as kube does. As in kube, the requests of one namespace are evaluated by one worker at a time, in
// batches: the requests that queued while a batch was being written are checked together, in order,
// and their usage is written with one status update per quota. The quotas this process wrote last
// are preferred over an older copy listed from the watch cache.
// The configuration's limitedResources are honoured (admission/resource_quota_config.h). Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "admission/builtin_plugins.h"
#include "admission/resource_quota_config.h"
#include "admission/resource_quota_evaluator.h"

namespace capstan::admission {

// kube's CheckRequest: the quotas with their status.used charged for this request, or the 403 (or
// other error) that refuses it. `quotas` are ResourceQuota objects of the request's namespace;
// `limited` the configuration's limitedResources.
StatusOr<std::vector<registry::Object>> CheckQuotaRequest(const std::vector<registry::Object>& quotas,
                                                           const Attributes& a, const quota::Evaluator& e,
                                                           quota::Clock::time_point now,
                                                           const std::vector<quota::LimitedResource>& limited = {});

class ResourceQuotaPlugin : public Plugin {
 public:
  ResourceQuotaPlugin(ObjectGetter get, ObjectLister list, ObjectUpdater update,
                      quota::QuotaConfiguration config = {})
      : get_(std::move(get)), list_(std::move(list)), update_(std::move(update)), config_(std::move(config)) {}
  std::string Name() const override { return "ResourceQuota"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  // One admission request waiting for its namespace's evaluation.
  struct Waiter {
    const Attributes* attrs;
    std::shared_ptr<const quota::Evaluator> evaluator;
    std::optional<Status> result;  // unset: charged, waiting for the quota writes
    std::function<void(Status)> done;
  };
  using Batch = std::vector<std::shared_ptr<Waiter>>;

  Task<StatusOr<std::vector<registry::Object>>> Quotas(const std::string& ns);
  // Drains the namespace's queue, one batch at a time (kube's per-namespace worker).
  Task<void> Work(std::string ns);
  Task<void> CheckBatch(const std::string& ns, Batch& batch);
  Task<void> CheckQuotas(const std::string& ns, std::vector<registry::Object> quotas, Batch& batch, int retries);
  void Remember(const std::string& ns, const registry::Object& q);

  ObjectGetter get_;
  ObjectLister list_;
  ObjectUpdater update_;
  quota::QuotaConfiguration config_;
  std::mutex mu_;
  // Namespaces with a running worker, each with the requests queued for its next batch.
  std::map<std::string, Batch> queued_;
  // The quotas written last, by namespace and name (kube's updatedQuotas cache).
  std::map<std::string, std::map<std::string, registry::Object>> written_;
};

// The plugin as BuildChain makes it: its configuration from deps.config (an invalid one is the
// start-up error).
StatusOr<std::unique_ptr<Plugin>> NewResourceQuotaPlugin(const PluginDeps& deps);

}  // namespace capstan::admission
