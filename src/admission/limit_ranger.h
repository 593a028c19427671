// admission/limit_ranger.h: LimitRanger, as kube's: the namespace's LimitRanges default and bound
// the resources of pods being created and of claims being created or updated.
//
// Mutating (pods): every Container item's `default` (limits) and `defaultRequest` (requests) fill in
// what each container and init container leaves out, noted in the kubernetes.io/limit-ranger
// annotation ("LimitRanger plugin set: cpu request for container app; ..."). Validating: Container
// items bound each container's requests and limits with min, max and maxLimitRequestRatio; Pod items
// bound the pod's totals (the containers' sum, raised to what an init container needs, sidecars
// counted as kube does); PersistentVolumeClaim items bound a claim's storage request with min and max.
// Refusals are 403s with kube's texts ("maximum cpu usage per Container is 500m, but limit is 1",
// "cpu max limit to request ratio per Pod is 2, but provided ratio is 4.000000"), several joined in
// brackets. Thread-safe.
#pragma once

#include "admission/builtin_plugins.h"

namespace capstan::admission {

class LimitRanger : public Plugin {
 public:
  explicit LimitRanger(ObjectLister list) : list_(std::move(list)) {}
  std::string Name() const override { return "LimitRanger"; }
  bool Handles(const std::string& op) const override;
  bool Mutating() const override { return true; }
  bool Validating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;
  Task<Status> Validate(const Attributes& a) override;

 private:
  static bool Applies(const Attributes& a);
  // Every item of every LimitRange in the request's namespace.
  Task<StatusOr<std::vector<boost::json::object>>> Items(const Attributes& a);
  ObjectLister list_;
};

}  // namespace capstan::admission
