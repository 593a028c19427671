// admission/pod_security_metrics.h: kube's PodSecurity metrics: pod_security_evaluations_total (every
// evaluation's decision by policy level, version and mode), pod_security_exemptions_total and
// pod_security_errors_total, labelled with the request's operation, resource kind (pod, namespace or
// controller) and subresource. Without a registry nothing is recorded. Thread-safe.
#pragma once

#include <string>

#include "admission/plugin.h"
#include "admission/pod_security_policy.h"
#include "util/metrics.h"

namespace capstan::admission {

class PodSecurityMetrics {
 public:
  explicit PodSecurityMetrics(MetricsRegistry* registry);
  // decision "allow" or "deny"; mode "enforce", "audit" or "warn".
  void RecordEvaluation(const char* decision, const psa::LevelVersion& policy, const char* mode, const Attributes& a) const;
  void RecordExemption(const Attributes& a) const;
  void RecordError(bool fatal, const Attributes& a) const;

  // kube's policy_version label: "latest" (also for privileged), "v1.N" up to the server's own
  // version (v1.32), "future" past it.
  static std::string VersionLabel(const psa::LevelVersion& policy);

 private:
  CounterVec* evaluations_ = nullptr;
  CounterVec* exemptions_ = nullptr;
  CounterVec* errors_ = nullptr;
};

}  // namespace capstan::admission
