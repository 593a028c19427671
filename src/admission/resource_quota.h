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
// as kube does. Evaluations of one namespace are serialized (kube queues them per namespace), and
// the quotas this process wrote last are preferred over an older copy listed from the watch cache.
// Not yet: the admission configuration's limitedResources. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "admission/builtin_plugins.h"
#include "admission/resource_quota_evaluator.h"

namespace capstan::admission {

// kube's CheckRequest: the quotas with their status.used charged for this request, or the 403 (or
// other error) that refuses it. `quotas` are ResourceQuota objects of the request's namespace.
StatusOr<std::vector<registry::Object>> CheckQuotaRequest(const std::vector<registry::Object>& quotas,
                                                           const Attributes& a, const quota::Evaluator& e,
                                                           quota::Clock::time_point now);

class ResourceQuotaPlugin : public Plugin {
 public:
  ResourceQuotaPlugin(ObjectGetter get, ObjectLister list, ObjectUpdater update)
      : get_(std::move(get)), list_(std::move(list)), update_(std::move(update)) {}
  std::string Name() const override { return "ResourceQuota"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  Task<StatusOr<std::vector<registry::Object>>> Quotas(const std::string& ns);
  Task<Status> Check(std::vector<registry::Object> quotas, const Attributes& a, const quota::Evaluator& e,
                     int retries);
  void Remember(const std::string& ns, const registry::Object& q);
  Task<void> LockNamespace(const std::string& ns);
  void UnlockNamespace(const std::string& ns);

  ObjectGetter get_;
  ObjectLister list_;
  ObjectUpdater update_;
  std::mutex mu_;
  // Namespaces being evaluated, each with the evaluations waiting for it.
  std::map<std::string, std::vector<std::function<void(bool)>>> busy_;
  // The quotas written last, by namespace and name (kube's updatedQuotas cache).
  std::map<std::string, std::map<std::string, registry::Object>> written_;
};

}  // namespace capstan::admission
