// admission/spec_policy_plugins.h: three small off-by-default plugins that look at one field of the object:
// - DenyServiceExternalIPs: a Service may not gain spec.externalIPs ("Use of external IPs is denied by
//   admission control"); an update may keep or drop the ones it had.
// - LimitPodHardAntiAffinityTopology: a pod's required anti-affinity terms may only use the topology key
//   kubernetes.io/hostname.
// - ExtendedResourceToleration: a pod requesting an extended resource (example.com/gpu) tolerates the
//   NoSchedule taint of that name (operator Exists), as nodes with such devices are tainted by it.
// Each handles CREATE and UPDATE of the main resource only, as kube's. Stateless; thread-safe.
#pragma once

#include "admission/plugin.h"

namespace capstan::admission {

class DenyServiceExternalIPs : public Plugin {
 public:
  std::string Name() const override { return "DenyServiceExternalIPs"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;
};

class LimitPodHardAntiAffinityTopology : public Plugin {
 public:
  std::string Name() const override { return "LimitPodHardAntiAffinityTopology"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;
};

class ExtendedResourceToleration : public Plugin {
 public:
  std::string Name() const override { return "ExtendedResourceToleration"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;
};

// kube's helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io that is not a
// "requests." quota name and forms a valid quota key.
bool IsExtendedResourceName(const std::string& name);

}  // namespace capstan::admission
