// admission/taint_nodes_by_condition.h: TaintNodesByCondition: a Node is created with the taint
// node.kubernetes.io/not-ready:NoSchedule (added at the end of spec.taints unless a taint with that key
// and effect is there already), so nothing is scheduled onto it before its lifecycle controller sees it
// Ready and takes the taint off, as kube-apiserver does. Mutating, CREATE only. Stateless; thread-safe.
#pragma once

#include "admission/plugin.h"

namespace capstan::admission {

inline constexpr const char* kTaintNodeNotReady = "node.kubernetes.io/not-ready";

class TaintNodesByCondition : public Plugin {
 public:
  std::string Name() const override { return "TaintNodesByCondition"; }
  bool Handles(const std::string& op) const override { return op == "CREATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;
};

}  // namespace capstan::admission
