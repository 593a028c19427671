// admission/pod_security_checks.h: the Pod Security Standards' checks, each a pure function of a pod's
// metadata and spec (JSON as the API stores them), with the reason and detail texts kube's
// pod-security-admission library writes, and the evaluator that picks, for a level and version, which
// checks run and in which order (baseline checks, then restricted ones, each group by check id; a
// restricted check replaces the baseline check it overrides; a version newer than the newest check
// reads as the newest). Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <string>
#include <vector>

#include "admission/pod_security_policy.h"

namespace capstan::admission::psa {

struct CheckResult {
  bool allowed = true;
  std::string reason;  // e.g. "allowPrivilegeEscalation != false"
  std::string detail;  // e.g. container "c" must set securityContext.allowPrivilegeEscalation=false
};

// metadata may be null (a template without one); spec is the pod spec.
using CheckFn = CheckResult (*)(const boost::json::object* metadata, const boost::json::object& spec);

struct VersionedCheck {
  int min_minor;  // applies from v1.min_minor on
  CheckFn fn;
};

struct Check {
  std::string id;
  Level level;                        // kBaseline or kRestricted
  std::vector<VersionedCheck> versions;  // strictly increasing min_minor
  std::vector<std::string> overrides;    // restricted only: the baseline checks it replaces
};

// Every check in the order they run (baseline ids sorted, then restricted ids sorted).
const std::vector<Check>& AllChecks();
// The newest version any check has (v1.32 for Capstan's Kubernetes 1.32).
int NewestCheckMinor();

// The results of every check that applies to lv (none for privileged).
std::vector<CheckResult> EvaluatePod(const LevelVersion& lv, const boost::json::object* metadata,
                                     const boost::json::object& spec);

struct AggregateResult {
  bool allowed = true;
  std::vector<std::string> reasons;
  std::vector<std::string> details;
  std::string ForbiddenReason() const;  // reasons joined by ", "
  std::string ForbiddenDetail() const;  // "reason (detail), reason, ..."
};
AggregateResult Aggregate(const std::vector<CheckResult>& results);

// The individual checks, by kube's check id and version (for tests).
namespace checks {
CheckResult AllowPrivilegeEscalation_1_8(const boost::json::object* md, const boost::json::object& spec);
CheckResult AllowPrivilegeEscalation_1_25(const boost::json::object* md, const boost::json::object& spec);
CheckResult AppArmorProfile_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult CapabilitiesBaseline_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult CapabilitiesRestricted_1_22(const boost::json::object* md, const boost::json::object& spec);
CheckResult CapabilitiesRestricted_1_25(const boost::json::object* md, const boost::json::object& spec);
CheckResult HostNamespaces_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult HostPathVolumes_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult HostPorts_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult Privileged_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult ProcMount_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult RestrictedVolumes_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult RunAsNonRoot_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult RunAsUser_1_23(const boost::json::object* md, const boost::json::object& spec);
CheckResult SeLinuxOptions_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult SeLinuxOptions_1_31(const boost::json::object* md, const boost::json::object& spec);
CheckResult SeccompBaseline_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult SeccompBaseline_1_19(const boost::json::object* md, const boost::json::object& spec);
CheckResult SeccompRestricted_1_19(const boost::json::object* md, const boost::json::object& spec);
CheckResult SeccompRestricted_1_25(const boost::json::object* md, const boost::json::object& spec);
CheckResult Sysctls_1_0(const boost::json::object* md, const boost::json::object& spec);
CheckResult Sysctls_1_27(const boost::json::object* md, const boost::json::object& spec);
CheckResult Sysctls_1_29(const boost::json::object* md, const boost::json::object& spec);
CheckResult Sysctls_1_32(const boost::json::object* md, const boost::json::object& spec);
CheckResult WindowsHostProcess_1_0(const boost::json::object* md, const boost::json::object& spec);
}  // namespace checks

}  // namespace capstan::admission::psa
