// The evaluator: which checks run for a level and version, in kube's order; and the aggregate texts.
#include <algorithm>

#include "admission/pod_security_checks.h"

namespace capstan::admission::psa {

namespace json = boost::json;

const std::vector<Check>& AllChecks() {
  static const std::vector<Check> kChecks = [] {
    using namespace checks;
    std::vector<Check> c = {
        {"appArmorProfile", Level::kBaseline, {{0, AppArmorProfile_1_0}}, {}},
        {"capabilities_baseline", Level::kBaseline, {{0, CapabilitiesBaseline_1_0}}, {}},
        {"hostNamespaces", Level::kBaseline, {{0, HostNamespaces_1_0}}, {}},
        {"hostPathVolumes", Level::kBaseline, {{0, HostPathVolumes_1_0}}, {}},
        {"hostPorts", Level::kBaseline, {{0, HostPorts_1_0}}, {}},
        {"privileged", Level::kBaseline, {{0, Privileged_1_0}}, {}},
        {"procMount", Level::kBaseline, {{0, ProcMount_1_0}}, {}},
        {"seLinuxOptions", Level::kBaseline, {{0, SeLinuxOptions_1_0}, {31, SeLinuxOptions_1_31}}, {}},
        {"seccompProfile_baseline", Level::kBaseline, {{0, SeccompBaseline_1_0}, {19, SeccompBaseline_1_19}}, {}},
        {"sysctls", Level::kBaseline, {{0, Sysctls_1_0}, {27, Sysctls_1_27}, {29, Sysctls_1_29}, {32, Sysctls_1_32}}, {}},
        {"windowsHostProcess", Level::kBaseline, {{0, WindowsHostProcess_1_0}}, {}},
        {"allowPrivilegeEscalation", Level::kRestricted,
         {{8, AllowPrivilegeEscalation_1_8}, {25, AllowPrivilegeEscalation_1_25}}, {}},
        {"capabilities_restricted", Level::kRestricted,
         {{22, CapabilitiesRestricted_1_22}, {25, CapabilitiesRestricted_1_25}}, {"capabilities_baseline"}},
        {"restrictedVolumes", Level::kRestricted, {{0, RestrictedVolumes_1_0}}, {"hostPathVolumes"}},
        {"runAsNonRoot", Level::kRestricted, {{0, RunAsNonRoot_1_0}}, {}},
        {"runAsUser", Level::kRestricted, {{23, RunAsUser_1_23}}, {}},
        {"seccompProfile_restricted", Level::kRestricted,
         {{19, SeccompRestricted_1_19}, {25, SeccompRestricted_1_25}}, {"seccompProfile_baseline"}},
    };
    // Baseline first, then restricted; by id (byte order) within each.
    std::stable_sort(c.begin(), c.end(), [](const Check& a, const Check& b) {
      if (a.level != b.level) return a.level < b.level;
      return a.id < b.id;
    });
    return c;
  }();
  return kChecks;
}

int NewestCheckMinor() {
  static const int kNewest = [] {
    int m = 0;
    for (const auto& c : AllChecks()) m = std::max(m, c.versions.back().min_minor);
    return m;
  }();
  return kNewest;
}

namespace {

// The version of check c in force at minor, or null before its first.
const VersionedCheck* At(const Check& c, int minor) {
  const VersionedCheck* found = nullptr;
  for (const auto& v : c.versions) {
    if (v.min_minor <= minor) found = &v;
  }
  return found;
}

}  // namespace

std::vector<CheckResult> EvaluatePod(const LevelVersion& lv, const json::object* metadata, const json::object& spec) {
  std::vector<CheckResult> out;
  if (lv.level == Level::kPrivileged) return out;
  int minor = lv.version.latest ? NewestCheckMinor() : std::min(lv.version.minor, NewestCheckMinor());
  const auto& all = AllChecks();
  std::vector<const std::string*> overridden;
  if (lv.level == Level::kRestricted) {
    for (const auto& c : all) {
      if (c.level == Level::kRestricted && At(c, minor)) {
        for (const auto& o : c.overrides) overridden.push_back(&o);
      }
    }
  }
  for (const auto& c : all) {
    if (c.level == Level::kRestricted && lv.level != Level::kRestricted) continue;
    const VersionedCheck* v = At(c, minor);
    if (!v) continue;
    bool skip = false;
    for (const std::string* o : overridden) skip = skip || *o == c.id;
    if (skip) continue;
    out.push_back(v->fn(metadata, spec));
  }
  return out;
}

std::string AggregateResult::ForbiddenReason() const {
  std::string out;
  for (size_t i = 0; i < reasons.size(); ++i) {
    if (i) out += ", ";
    out += reasons[i];
  }
  return out;
}

std::string AggregateResult::ForbiddenDetail() const {
  std::string out;
  for (size_t i = 0; i < reasons.size(); ++i) {
    out += reasons[i];
    if (!details[i].empty()) out += " (" + details[i] + ")";
    if (i + 1 != reasons.size()) out += ", ";
  }
  return out;
}

AggregateResult Aggregate(const std::vector<CheckResult>& results) {
  AggregateResult a;
  for (const auto& r : results) {
    if (r.allowed) continue;
    a.reasons.push_back(r.reason.empty() ? "unknown forbidden reason" : r.reason);
    a.details.push_back(r.detail);
  }
  a.allowed = a.reasons.empty();
  return a;
}

}  // namespace capstan::admission::psa
