// admission/runtime_class.h: RuntimeClass for pods being created with spec.runtimeClassName: the class
// must exist ("pod rejected: RuntimeClass \"x\" not found"); its overhead.podFixed becomes the pod's
// spec.overhead (a different overhead given by the pod is refused); its scheduling.nodeSelector is
// merged into the pod's (a conflicting value is refused with kube's text) and its tolerations are
// added. 403 Forbidden for refusals, as kube. Thread-safe.
#pragma once

#include "admission/builtin_plugins.h"

namespace capstan::admission {

class RuntimeClassPlugin : public Plugin {
 public:
  explicit RuntimeClassPlugin(ObjectGetter get) : get_(std::move(get)) {}
  std::string Name() const override { return "RuntimeClass"; }
  bool Handles(const std::string& op) const override { return op == "CREATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;

 private:
  ObjectGetter get_;
};

}  // namespace capstan::admission
