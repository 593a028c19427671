// admission/validating_admission_policy.h: the ValidatingAdmissionPolicy plugin
// (admissionregistration.k8s.io/v1), as kube's policy/validating plugin and dispatcher.
//
// Policies and bindings come from the watch cache (PolicySource: a list at resourceVersion 0 per
// request, re-compiled only when a name or resourceVersion changed), so a change acts as soon as the
// watch cache has it and no request reads storage. For each policy whose matchConstraints match
// (webhook configurations are exempt, as in kube), in name order, each binding naming it whose
// matchResources match, and each parameter (paramKind/paramRef: the named object or those the
// selector picks, in the binding's namespace or the request's; none found: parameterNotFoundAction),
// the policy is evaluated (validating_policy.h) and every denial acts as the binding's
// validationActions say:
//   Deny:  the request fails with the first denial: `<resource> "<name>" is forbidden:
//          ValidatingAdmissionPolicy '<policy>' with binding '<binding>' denied request: <message>`,
//          reason and code from the validation's reason (Invalid 422 by default, Forbidden 403,
//          RequestEntityTooLarge 413), the message also as a cause;
//   Warn:  the warning "Validation failed for ValidatingAdmissionPolicy '<p>' with binding '<b>': <message>";
//   Audit: the audit annotation validation.policy.admission.k8s.io/validation_failure (a JSON list of
//          {message, policy, binding, expressionIndex, validationActions}).
// An audit annotation that fails under failurePolicy Fail is a denial whatever the validationActions.
// Each denial by action, and each evaluation error under failurePolicy Ignore, is counted in
// apiserver_validating_admission_policy_check_total and timed in ..._check_duration_seconds
// {policy, policy_binding, error_type, enforcement_action: deny, warn, audit, allow}, as kube's.
// Audit annotations of the policy are published as "<policy>/<key>". A binding that cannot be used
// (its params missing under Deny, a bad selector) is a denial under failurePolicy Fail ("failed to
// configure binding: ...") and skipped under Ignore.
// Thread-safety: Validate may run concurrently.
#pragma once

#include <memory>
#include <mutex>

#include "admission/builtin_plugins.h"
#include "admission/validating_policy.h"
#include "util/metrics.h"

namespace capstan::admission {

class PolicySource {
 public:
  struct Snapshot {
    std::vector<std::shared_ptr<const CompiledPolicy>> policies;  // by name
    std::vector<PolicyBinding> bindings;                          // by name
  };
  explicit PolicySource(ObjectLister list) : list_(std::move(list)) {}
  Task<StatusOr<std::shared_ptr<const Snapshot>>> Current();

 private:
  ObjectLister list_;
  std::mutex mu_;
  std::string fingerprint_;                 // guarded by mu_
  std::shared_ptr<const Snapshot> current_;  // guarded by mu_
};

class ValidatingAdmissionPolicyPlugin : public Plugin {
 public:
  // `get`: reads params by name; `list`: policies, bindings and params by selector; `metrics`: where
  // the check metrics go (null: not recorded).
  ValidatingAdmissionPolicyPlugin(ObjectLister list, ObjectGetter get, NamespaceLookup namespace_lookup,
                                  MetricsRegistry* metrics = nullptr);
  std::string Name() const override { return "ValidatingAdmissionPolicy"; }
  bool Handles(const std::string& op) const override { return op != ""; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

 private:
  PolicySource source_;
  ObjectLister list_;
  ObjectGetter get_;
  NamespaceLookup namespace_lookup_;
  CounterVec* checks_ = nullptr;
  HistogramVec* latency_ = nullptr;
  void Observe(const PolicyDecision& d, const std::string& policy, const std::string& binding, const char* action) const;
};

}  // namespace capstan::admission
