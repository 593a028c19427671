// admission/limit_ranger.h: LimitRanger for pods being created: each LimitRange of the namespace with
// a Container item fills in the containers' (and init containers') missing limits from `default` and
// requests from `defaultRequest`, noting what it set in the kubernetes.io/limit-ranger annotation as
// kube does ("LimitRanger plugin set: cpu request for container app; ..."), then refuses a container
// outside the item's min or max with kube's texts ("maximum cpu usage per Container is 500m, but limit
// is 1"), 403. Not yet: Pod-type sums, maxLimitRequestRatio, PersistentVolumeClaim limits. Thread-safe.
#pragma once

#include "admission/builtin_plugins.h"

namespace capstan::admission {

class LimitRanger : public Plugin {
 public:
  explicit LimitRanger(ObjectLister list) : list_(std::move(list)) {}
  std::string Name() const override { return "LimitRanger"; }
  bool Handles(const std::string& op) const override { return op == "CREATE"; }
  bool Mutating() const override { return true; }
  bool Validating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;
  Task<Status> Validate(const Attributes& a) override;

 private:
  Task<StatusOr<std::vector<boost::json::object>>> ContainerItems(const Attributes& a);
  ObjectLister list_;
};

}  // namespace capstan::admission
