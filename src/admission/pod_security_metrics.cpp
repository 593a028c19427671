#include "admission/pod_security_metrics.h"

#include "util/strings.h"

namespace capstan::admission {

namespace {

constexpr int kServerMinor = 32;  // Capstan serves Kubernetes 1.32

std::string Operation(const Attributes& a) {
  if (a.operation == "CREATE") return "create";
  if (a.operation == "UPDATE") return "update";
  return ToLower(a.operation);
}

std::string Resource(const Attributes& a) {
  if (a.resource && a.resource->group.empty()) {
    if (a.resource->resource == "pods") return "pod";
    if (a.resource->resource == "namespaces") return "namespace";
  }
  return "controller";
}

}  // namespace

PodSecurityMetrics::PodSecurityMetrics(MetricsRegistry* registry) {
  if (!registry) return;
  evaluations_ = &registry->NewCounterVec(
      "pod_security_evaluations_total",
      "Number of policy evaluations that occurred, not counting ignored or exempt requests.",
      {"decision", "policy_level", "policy_version", "mode", "request_operation", "resource", "subresource"});
  exemptions_ = &registry->NewCounterVec("pod_security_exemptions_total", "Number of exempt requests, not counting ignored or out of scope requests.",
                                         {"request_operation", "resource", "subresource"});
  errors_ = &registry->NewCounterVec(
      "pod_security_errors_total",
      "Number of errors preventing normal evaluation. Non-fatal errors may result in the latest restricted profile being "
      "used for evaluation.",
      {"fatal", "request_operation", "resource", "subresource"});
}

std::string PodSecurityMetrics::VersionLabel(const psa::LevelVersion& policy) {
  if (policy.version.latest || policy.level == psa::Level::kPrivileged) return "latest";
  if (policy.version.minor <= kServerMinor) return policy.version.String();
  return "future";
}

void PodSecurityMetrics::RecordEvaluation(const char* decision, const psa::LevelVersion& policy, const char* mode,
                                          const Attributes& a) const {
  if (!evaluations_) return;
  evaluations_
      ->With({decision, std::string(psa::LevelName(policy.level)), VersionLabel(policy), mode, Operation(a), Resource(a),
              a.subresource})
      ->Inc();
}

void PodSecurityMetrics::RecordExemption(const Attributes& a) const {
  if (exemptions_) exemptions_->With({Operation(a), Resource(a), a.subresource})->Inc();
}

void PodSecurityMetrics::RecordError(bool fatal, const Attributes& a) const {
  if (errors_) errors_->With({fatal ? "true" : "false", Operation(a), Resource(a), a.subresource})->Inc();
}

}  // namespace capstan::admission
