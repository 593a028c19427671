// admission/priority.h: Priority: a pod being created gets spec.priority (and preemptionPolicy) from its
// PriorityClass: the named one ("no PriorityClass with name x was found" when it does not exist), or
// the globalDefault class when it names none (which the pod then names), or 0 and
// PreemptLowerPriority when there is no default. A pod that sets priority or preemptionPolicy to
// something else is refused with kube's messages. On update, a pod that leaves priority or
// preemptionPolicy out keeps the stored ones (the plugin set them on create; validation refuses any
// change), so replacing a pod from its manifest works. Thread-safe.
#pragma once

#include "admission/builtin_plugins.h"

namespace capstan::admission {

class PriorityPlugin : public Plugin {
 public:
  PriorityPlugin(ObjectGetter get, ObjectLister list) : get_(std::move(get)), list_(std::move(list)) {}
  std::string Name() const override { return "Priority"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;

 private:
  ObjectGetter get_;
  ObjectLister list_;
};

}  // namespace capstan::admission
