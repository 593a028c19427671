// admission/default_toleration_seconds.h: DefaultTolerationSeconds: a pod created or updated without a
// toleration for the node.kubernetes.io/not-ready or node.kubernetes.io/unreachable NoExecute taints
// gets one with tolerationSeconds 300 (kube's --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds). kube runs it on updates too, so a pod replaced from its
// manifest keeps the tolerations it was created with. Stateless; thread-safe.
#pragma once

#include "admission/plugin.h"

namespace capstan::admission {

class DefaultTolerationSeconds : public Plugin {
 public:
  explicit DefaultTolerationSeconds(int64_t not_ready_seconds = 300, int64_t unreachable_seconds = 300)
      : not_ready_(not_ready_seconds), unreachable_(unreachable_seconds) {}
  std::string Name() const override { return "DefaultTolerationSeconds"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;

 private:
  int64_t not_ready_;
  int64_t unreachable_;
};

// True for the pods resource itself (not a subresource).
bool IsPod(const Attributes& a);

}  // namespace capstan::admission
