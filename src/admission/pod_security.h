// admission/pod_security.h: PodSecurity, kube's built-in Pod Security admission (a validating plugin).
//
// The policy of a namespace comes from its pod-security.kubernetes.io/{enforce,audit,warn}[-version]
// labels over the configured defaults (PodSecurityConfiguration from --admission-control-config-file;
// without one, privileged:latest everywhere). Pods are checked against the Pod Security Standards
// (pod_security_checks.h): an enforce violation is kube's 403 (`pods "x" is forbidden: violates
// PodSecurity "restricted:latest": ...`), a warn violation a Warning (`would violate PodSecurity ...`),
// an audit violation the pod-security.kubernetes.io/audit-violations audit annotation; the enforced
// policy is recorded as pod-security.kubernetes.io/enforce-policy. The pod templates of workload
// resources (deployments, replicasets, statefulsets, daemonsets, jobs, cronjobs,
// replicationcontrollers, podtemplates) get warn and audit only. A namespace with invalid labels is
// refused (422); a label change that tightens enforce warns about the existing pods that would
// violate it. Exempt usernames, runtime classes and namespaces are not checked (audit annotation
// pod-security.kubernetes.io/exempt). Warnings and audit annotations go to the request's
// RequestScope (Attributes::scope). Immutable after construction; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admission/namespace_lifecycle.h"
#include "admission/plugin.h"
#include "admission/pod_security_config.h"
#include "admission/pod_security_metrics.h"

namespace capstan::admission {

class PodSecurityPlugin : public Plugin {
 public:
  // The pods of a namespace (for the warnings on a namespace whose enforce level tightens).
  using PodLister = std::function<Task<StatusOr<std::vector<registry::Object>>>(const std::string& ns)>;
  struct Deps {
    NamespaceLookup namespace_lookup;
    PodLister list_pods;                    // none: no existing-pod warnings
    MetricsRegistry* metrics = nullptr;      // none: no pod_security_* metrics
  };

  // What the plugin decided about one request.
  struct Decision {
    Status status;                                    // ok: allowed
    std::vector<std::string> warnings;
    std::map<std::string, std::string> annotations;  // audit annotations, keys with kube's prefix
  };

  // config: the plugin's entry in the AdmissionConfiguration (nullopt or null: the defaults). Errors
  // read as kube's ("couldn't init admission plugin \"PodSecurity\": ...").
  static StatusOr<std::unique_ptr<PodSecurityPlugin>> Create(const std::optional<boost::json::value>& config, Deps deps);

  std::string Name() const override { return "PodSecurity"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Validating() const override { return true; }
  Task<Status> Validate(const Attributes& a) override;

  // The decision without applying it to a request scope (tests, benchmarks).
  Task<Decision> Decide(const Attributes& a) const;

  const psa::PodSecurityConfig& config() const { return config_; }

  // At most this many existing pods are checked when a namespace's enforce level tightens, and for
  // at most this long (kube's defaults: 3000 pods, 1 s).
  static constexpr size_t kMaxPodsToCheck = 3000;

 private:
  PodSecurityPlugin(psa::PodSecurityConfig config, Deps deps)
      : config_(std::move(config)), deps_(std::move(deps)), metrics_(deps_.metrics) {}

  Task<Decision> DecideNamespace(const Attributes& a) const;
  Task<Decision> DecidePod(const Attributes& a) const;
  Task<Decision> DecidePodController(const Attributes& a) const;
  Decision EvaluatePod(const psa::Policy& policy, const ErrorList& policy_errors, const boost::json::object* metadata,
                       const boost::json::object& spec, const Attributes& a, bool enforce) const;
  Task<std::vector<std::string>> EvaluatePodsInNamespace(const std::string& ns, const psa::LevelVersion& enforce) const;
  std::string ExemptNamespaceWarning(const std::string& ns, const psa::Policy& p, const psa::Labels& labels) const;
  bool ExemptNamespace(const std::string& ns) const;
  bool ExemptUser(const std::string& user) const;
  bool ExemptRuntimeClass(const boost::json::object& spec) const;

  psa::PodSecurityConfig config_;
  Deps deps_;
  PodSecurityMetrics metrics_;
};

}  // namespace capstan::admission
