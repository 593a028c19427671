// Each Pod Security check's reason and detail texts, and the evaluator's choice of checks by level
// and version.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "admission/pod_security_checks.h"

namespace capstan::admission::psa {
namespace {

namespace json = boost::json;
using namespace checks;

struct Pod {
  explicit Pod(const char* text) : pod(json::parse(text).as_object()) {}
  const json::object* md() const {
    const json::value* v = pod.if_contains("metadata");
    return v ? &v->as_object() : nullptr;
  }
  const json::object& spec() const {
    static const json::object kEmpty;
    const json::value* v = pod.if_contains("spec");
    return v ? v->as_object() : kEmpty;
  }
  json::object pod;
};

void ExpectForbidden(CheckFn fn, const char* pod, const std::string& reason, const std::string& detail) {
  Pod p(pod);
  CheckResult r = fn(p.md(), p.spec());
  EXPECT_FALSE(r.allowed) << pod;
  EXPECT_EQ(r.reason, reason) << pod;
  EXPECT_EQ(r.detail, detail) << pod;
}

void ExpectAllowed(CheckFn fn, const char* pod) {
  Pod p(pod);
  CheckResult r = fn(p.md(), p.spec());
  EXPECT_TRUE(r.allowed) << pod << ": " << r.detail;
}

TEST(PodSecurityChecks, AllowPrivilegeEscalation) {
  const char* pod = R"({"spec":{"containers":[{"name":"a"},{"name":"b","securityContext":{}},
      {"name":"c","securityContext":{"allowPrivilegeEscalation":true}},
      {"name":"d","securityContext":{"allowPrivilegeEscalation":false}}]}})";
  ExpectForbidden(AllowPrivilegeEscalation_1_8, pod, "allowPrivilegeEscalation != false",
                  R"(containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false)");
  ExpectForbidden(AllowPrivilegeEscalation_1_25, R"({"spec":{"os":{"name":"linux"},"containers":[{"name":"a"}]}})",
                  "allowPrivilegeEscalation != false", R"(container "a" must set securityContext.allowPrivilegeEscalation=false)");
  ExpectAllowed(AllowPrivilegeEscalation_1_25, R"({"spec":{"os":{"name":"windows"},"containers":[{"name":"a"}]}})");
  // Before v1.25 Windows pods are checked too.
  ExpectForbidden(AllowPrivilegeEscalation_1_8, R"({"spec":{"os":{"name":"windows"},"containers":[{"name":"a"}]}})",
                  "allowPrivilegeEscalation != false", R"(container "a" must set securityContext.allowPrivilegeEscalation=false)");
}

TEST(PodSecurityChecks, AppArmor) {
  ExpectAllowed(AppArmorProfile_1_0, R"({"metadata":{"annotations":{"container.apparmor.security.beta.kubernetes.io/test":"runtime/default","env":"prod"}},"spec":{}})");
  ExpectAllowed(AppArmorProfile_1_0, R"({"metadata":{"annotations":{"container.apparmor.security.beta.kubernetes.io/test":"localhost/p"}},"spec":{}})");
  ExpectAllowed(AppArmorProfile_1_0, R"({"spec":{"securityContext":{"appArmorProfile":{"type":"RuntimeDefault"}},
      "containers":[{"name":"foo","securityContext":{"appArmorProfile":{"type":"Localhost","localhostProfile":"x"}}}]}})");
  ExpectForbidden(AppArmorProfile_1_0, R"({"spec":{"securityContext":{"appArmorProfile":{"type":"Unconfined"}}}})",
                  "forbidden AppArmor profile", R"(pod must not set AppArmor profile type to "Unconfined")");
  ExpectForbidden(AppArmorProfile_1_0,
                  R"({"spec":{"initContainers":[{"name":"bar","securityContext":{"appArmorProfile":{"type":"Unconfined"}}}],"containers":[{"name":"foo"}]}})",
                  "forbidden AppArmor profile", R"(container "bar" must not set AppArmor profile type to "Unconfined")");
  ExpectForbidden(AppArmorProfile_1_0, R"({"metadata":{"annotations":{
      "container.apparmor.security.beta.kubernetes.io/":"bogus",
      "container.apparmor.security.beta.kubernetes.io/a":"",
      "container.apparmor.security.beta.kubernetes.io/b":"runtime/default",
      "container.apparmor.security.beta.kubernetes.io/c":"localhost/",
      "container.apparmor.security.beta.kubernetes.io/d":"localhost/foo",
      "container.apparmor.security.beta.kubernetes.io/e":"unconfined",
      "container.apparmor.security.beta.kubernetes.io/f":"unknown"}},"spec":{}})",
                  "forbidden AppArmor profiles",
                  "annotations must not set AppArmor profile type to "
                  R"("container.apparmor.security.beta.kubernetes.io/="bogus"", )"
                  R"("container.apparmor.security.beta.kubernetes.io/e="unconfined"", )"
                  R"("container.apparmor.security.beta.kubernetes.io/f="unknown"")");
}

TEST(PodSecurityChecks, Capabilities) {
  ExpectForbidden(CapabilitiesBaseline_1_0, R"({"spec":{"containers":[
      {"name":"a","securityContext":{"capabilities":{"add":["FOO","BAR"]}}},
      {"name":"b","securityContext":{"capabilities":{"add":["BAR","BAZ"]}}},
      {"name":"c","securityContext":{"capabilities":{"add":["NET_BIND_SERVICE","CHOWN"]}}}]}})",
                  "non-default capabilities",
                  R"(containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add)");
  const char* pod = R"({"spec":{"containers":[
      {"name":"a","securityContext":{"capabilities":{"add":["FOO","BAR"]}}},
      {"name":"b","securityContext":{"capabilities":{"add":["BAR","BAZ"],"drop":["NET_RAW"]}}},
      {"name":"c","securityContext":{"capabilities":{"add":["NET_BIND_SERVICE","CHOWN"],"drop":["ALL","FOO"]}}}]}})";
  ExpectForbidden(CapabilitiesRestricted_1_22, pod, "unrestricted capabilities",
                  R"(containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; )"
                  R"(containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add)");
  ExpectForbidden(CapabilitiesRestricted_1_25, R"({"spec":{"containers":[{"name":"a"}]}})", "unrestricted capabilities",
                  R"(container "a" must set securityContext.capabilities.drop=["ALL"])");
  ExpectAllowed(CapabilitiesRestricted_1_25, R"({"spec":{"os":{"name":"windows"},"containers":[{"name":"a"}]}})");
  ExpectAllowed(CapabilitiesRestricted_1_25,
                R"({"spec":{"containers":[{"name":"a","securityContext":{"capabilities":{"drop":["ALL"],"add":["NET_BIND_SERVICE"]}}}]}})");
}

TEST(PodSecurityChecks, HostNamespacesPathsAndPorts) {
  ExpectForbidden(HostNamespaces_1_0, R"({"spec":{"hostNetwork":true,"hostIPC":true,"hostPID":true}})", "host namespaces",
                  "hostNetwork=true, hostPID=true, hostIPC=true");
  ExpectAllowed(HostNamespaces_1_0, R"({"spec":{"hostNetwork":false}})");
  ExpectForbidden(HostPathVolumes_1_0, R"({"spec":{"volumes":[{"name":"a","hostPath":{"path":"/"}},
      {"name":"b","hostPath":{}},{"name":"c","emptyDir":{}}]}})", "hostPath volumes", R"(volumes "a", "b")");
  ExpectForbidden(HostPorts_1_0, R"({"spec":{"containers":[{"name":"a","ports":[{"hostPort":0}]},
      {"name":"b","ports":[{"hostPort":0},{"hostPort":20}]}]}})", "hostPort", R"(container "b" uses hostPort 20)");
  ExpectForbidden(HostPorts_1_0, R"({"spec":{"containers":[{"name":"a","ports":[{"hostPort":0}]},
      {"name":"b","ports":[{"hostPort":0},{"hostPort":10},{"hostPort":20}]},
      {"name":"c","ports":[{"hostPort":0},{"hostPort":10},{"hostPort":30}]}]}})", "hostPort",
                  R"(containers "b", "c" use hostPorts 10, 20, 30)");
}

TEST(PodSecurityChecks, PrivilegedAndProcMount) {
  ExpectForbidden(Privileged_1_0, R"({"spec":{"containers":[{"name":"a"},{"name":"b","securityContext":{}},
      {"name":"c","securityContext":{"privileged":false}},{"name":"d","securityContext":{"privileged":true}},
      {"name":"e","securityContext":{"privileged":true}}]}})", "privileged",
                  R"(containers "d", "e" must not set securityContext.privileged=true)");
  ExpectForbidden(ProcMount_1_0, R"({"spec":{"hostUsers":false,"containers":[{"name":"a"},{"name":"b","securityContext":{}},
      {"name":"c","securityContext":{"procMount":"Default"}},{"name":"d","securityContext":{"procMount":"Unmasked"}},
      {"name":"e","securityContext":{"procMount":"other"}}]}})", "procMount",
                  R"(containers "d", "e" must not set securityContext.procMount to "Unmasked", "other")");
}

TEST(PodSecurityChecks, RestrictedVolumes) {
  ExpectForbidden(RestrictedVolumes_1_0, R"({"spec":{"volumes":[
      {"name":"a","configMap":{}},{"name":"b","csi":{}},{"name":"c","downwardAPI":{}},{"name":"d","emptyDir":{}},
      {"name":"e","ephemeral":{}},{"name":"f","persistentVolumeClaim":{}},{"name":"g","projected":{}},{"name":"h","secret":{}},
      {"name":"i","hostPath":{}},{"name":"j","nfs":{}},{"name":"k","gitRepo":{}},{"name":"l","hostPath":{}},
      {"name":"m","image":{"reference":"x"}}]}})",
                  "restricted volume types",
                  R"(volumes "i", "j", "k", "l", "m" use restricted volume types "gitRepo", "hostPath", "nfs", "unknown")");
  ExpectForbidden(RestrictedVolumes_1_0, R"({"spec":{"volumes":[{"name":"a","hostPath":{}}]}})", "restricted volume types",
                  R"(volume "a" uses restricted volume type "hostPath")");
}

TEST(PodSecurityChecks, RunAsNonRootAndRunAsUser) {
  ExpectForbidden(RunAsNonRoot_1_0, R"({"spec":{"securityContext":{"runAsNonRoot":false},"containers":[{"name":"a"}]}})",
                  "runAsNonRoot != true", "pod must not set securityContext.runAsNonRoot=false");
  ExpectForbidden(RunAsNonRoot_1_0, R"({"spec":{"containers":[{"name":"a"},{"name":"b","securityContext":{}},
      {"name":"c","securityContext":{"runAsNonRoot":false}},{"name":"d","securityContext":{"runAsNonRoot":false}},
      {"name":"e","securityContext":{"runAsNonRoot":true}}]}})", "runAsNonRoot != true",
                  R"(containers "c", "d" must not set securityContext.runAsNonRoot=false)");
  ExpectForbidden(RunAsNonRoot_1_0, R"({"spec":{"containers":[{"name":"a"},{"name":"b","securityContext":{"runAsNonRoot":true}}]}})",
                  "runAsNonRoot != true", R"(pod or container "a" must set securityContext.runAsNonRoot=true)");
  ExpectAllowed(RunAsNonRoot_1_0, R"({"spec":{"securityContext":{"runAsNonRoot":true},"containers":[{"name":"a"}]}})");
  ExpectForbidden(RunAsUser_1_23, R"({"spec":{"securityContext":{"runAsUser":0},"containers":[{"name":"a"},
      {"name":"b","securityContext":{"runAsUser":1}},{"name":"c","securityContext":{"runAsUser":0}},
      {"name":"d","securityContext":{"runAsUser":0}}]}})", "runAsUser=0",
                  R"(pod and containers "c", "d" must not set runAsUser=0)");
  ExpectAllowed(RunAsUser_1_23, R"({"spec":{"securityContext":{"runAsUser":1000},"containers":[{"name":"a"}]}})");
}

TEST(PodSecurityChecks, SeLinuxOptions) {
  const char* pod = R"({"spec":{"securityContext":{"seLinuxOptions":{"type":"foo","user":"u","role":"r"}},"containers":[
      {"name":"a"},{"name":"b","securityContext":{"seLinuxOptions":{}}},{"name":"c","securityContext":{"seLinuxOptions":{"type":"container_t"}}},
      {"name":"d","securityContext":{"seLinuxOptions":{"level":"s0"}}},
      {"name":"e","securityContext":{"seLinuxOptions":{"type":"bar"}}},
      {"name":"f","securityContext":{"seLinuxOptions":{"user":"bar"}}},
      {"name":"g","securityContext":{"seLinuxOptions":{"role":"baz"}}},
      {"name":"h","securityContext":{"seLinuxOptions":{"type":"container_engine_t"}}}]}})";
  ExpectForbidden(SeLinuxOptions_1_31, pod, "seLinuxOptions",
                  R"(pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set)");
  // container_engine_t is allowed from v1.31 only.
  ExpectForbidden(SeLinuxOptions_1_0, pod, "seLinuxOptions",
                  R"(pod and containers "e", "f", "g", "h" set forbidden securityContext.seLinuxOptions: types "bar", "container_engine_t", "foo"; user may not be set; role may not be set)");
  ExpectForbidden(SeLinuxOptions_1_31, R"({"spec":{"securityContext":{"seLinuxOptions":{"role":"r"}}}})", "seLinuxOptions",
                  "pod set forbidden securityContext.seLinuxOptions: role may not be set");
}

TEST(PodSecurityChecks, Seccomp) {
  ExpectForbidden(SeccompBaseline_1_0, R"({"metadata":{"annotations":{"seccomp.security.alpha.kubernetes.io/pod":"unconfined",
      "container.seccomp.security.alpha.kubernetes.io/a":"unconfined","container.seccomp.security.alpha.kubernetes.io/b":"unknown",
      "container.seccomp.security.alpha.kubernetes.io/c":"runtime/default"}},
      "spec":{"containers":[{"name":"a"},{"name":"b"},{"name":"c"}]}})", "seccompProfile",
                  R"(forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="unconfined", container.seccomp.security.alpha.kubernetes.io/b="unknown", seccomp.security.alpha.kubernetes.io/pod="unconfined")");
  ExpectForbidden(SeccompBaseline_1_19, R"({"spec":{"securityContext":{"seccompProfile":{"type":"Unconfined"}},"containers":[
      {"name":"a"},{"name":"b","securityContext":{"seccompProfile":{"type":"RuntimeDefault"}}},
      {"name":"c","securityContext":{"seccompProfile":{"type":"Unconfined"}}},
      {"name":"d","securityContext":{"seccompProfile":{"type":"Unconfined"}}}]}})", "seccompProfile",
                  R"(pod and containers "c", "d" must not set securityContext.seccompProfile.type to "Unconfined")");
  ExpectAllowed(SeccompBaseline_1_19, R"({"spec":{"containers":[{"name":"a"}]}})");
  ExpectForbidden(SeccompRestricted_1_19, R"({"spec":{"containers":[{"name":"a"},{"name":"b"}]}})", "seccompProfile",
                  R"(pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")");
  ExpectAllowed(SeccompRestricted_1_19, R"({"spec":{"securityContext":{"seccompProfile":{"type":"RuntimeDefault"}},"containers":[{"name":"a"}]}})");
  ExpectAllowed(SeccompRestricted_1_25, R"({"spec":{"os":{"name":"windows"},"containers":[{"name":"a"}]}})");
}

TEST(PodSecurityChecks, SysctlsByVersion) {
  const char* pod = R"({"spec":{"securityContext":{"sysctls":[{"name":"net.ipv4.tcp_rmem"},{"name":"kernel.shm_rmid_forced"},
      {"name":"net.ipv4.ip_local_reserved_ports"},{"name":"net.ipv4.tcp_fin_timeout"}]}}})";
  ExpectForbidden(Sysctls_1_0, pod, "forbidden sysctls", "net.ipv4.tcp_rmem, net.ipv4.ip_local_reserved_ports, net.ipv4.tcp_fin_timeout");
  ExpectForbidden(Sysctls_1_27, pod, "forbidden sysctls", "net.ipv4.tcp_rmem, net.ipv4.tcp_fin_timeout");
  ExpectForbidden(Sysctls_1_29, pod, "forbidden sysctls", "net.ipv4.tcp_rmem");
  ExpectAllowed(Sysctls_1_32, pod);
  ExpectForbidden(Sysctls_1_32, R"({"spec":{"securityContext":{"sysctls":[{"name":"a"},{"name":"b"}]}}})", "forbidden sysctls", "a, b");
}

TEST(PodSecurityChecks, WindowsHostProcess) {
  ExpectForbidden(WindowsHostProcess_1_0, R"({"spec":{"securityContext":{"windowsOptions":{"hostProcess":true}},"containers":[
      {"name":"a"},{"name":"b","securityContext":{"windowsOptions":{"hostProcess":false}}},
      {"name":"e","securityContext":{"windowsOptions":{"hostProcess":true}}},
      {"name":"f","securityContext":{"windowsOptions":{"hostProcess":true}}}]}})", "hostProcess",
                  R"(pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true)");
}

// The pod kube's documentation calls restricted-compliant.
const char* kRestrictedPod = R"({"metadata":{"name":"ok"},"spec":{"securityContext":{"runAsNonRoot":true,
    "seccompProfile":{"type":"RuntimeDefault"}},"containers":[{"name":"c","image":"nginx","securityContext":{
    "allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}})";

std::string Detail(const LevelVersion& lv, const char* pod) {
  Pod p(pod);
  return Aggregate(EvaluatePod(lv, p.md(), p.spec())).ForbiddenDetail();
}

TEST(PodSecurityEvaluator, OrderAndLevels) {
  LevelVersion restricted{Level::kRestricted, Version::Latest()};
  LevelVersion baseline{Level::kBaseline, Version::Latest()};
  LevelVersion privileged{Level::kPrivileged, Version::Latest()};
  EXPECT_EQ(Detail(restricted, kRestrictedPod), "");
  const char* plain = R"({"spec":{"containers":[{"name":"c","image":"nginx"}]}})";
  EXPECT_EQ(Detail(baseline, plain), "");
  EXPECT_EQ(Detail(restricted, plain),
            R"(allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), )"
            R"(unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), )"
            R"(runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), )"
            R"(seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))");
  const char* priv = R"({"spec":{"hostNetwork":true,"containers":[{"name":"c","securityContext":{"privileged":true}}]}})";
  EXPECT_EQ(Detail(baseline, priv),
            R"(host namespaces (hostNetwork=true), privileged (container "c" must not set securityContext.privileged=true))");
  // Baseline checks run first at restricted too.
  EXPECT_EQ(Detail(restricted, priv).rfind("host namespaces (hostNetwork=true), privileged (", 0), 0u);
  EXPECT_EQ(Detail(privileged, priv), "");
  Pod p(plain);
  EXPECT_TRUE(EvaluatePod(privileged, p.md(), p.spec()).empty());
  EXPECT_EQ(Aggregate(EvaluatePod(restricted, p.md(), p.spec())).ForbiddenReason(),
            "allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile");
}

TEST(PodSecurityEvaluator, Versions) {
  // hostPath is reported once at restricted (restrictedVolumes overrides hostPathVolumes).
  const char* host_path = R"({"spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
      "volumes":[{"name":"v","hostPath":{}}],"containers":[{"name":"c","securityContext":{"allowPrivilegeEscalation":false,
      "capabilities":{"drop":["ALL"]}}}]}})";
  EXPECT_EQ(Detail({Level::kRestricted, Version::Latest()}, host_path),
            R"(restricted volume types (volume "v" uses restricted volume type "hostPath"))");
  EXPECT_EQ(Detail({Level::kBaseline, Version::Latest()}, host_path), R"(hostPath volumes (volume "v"))");
  // runAsUser=0 is checked from v1.23; capabilities drop ALL from v1.22.
  const char* root = R"({"spec":{"securityContext":{"runAsNonRoot":true,"runAsUser":0,"seccompProfile":{"type":"RuntimeDefault"}},
      "containers":[{"name":"c","securityContext":{"allowPrivilegeEscalation":false}}]}})";
  EXPECT_EQ(Detail({Level::kRestricted, Version::V1(21)}, root), "");
  EXPECT_EQ(Detail({Level::kRestricted, Version::V1(22)}, root),
            R"(unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]))");
  EXPECT_EQ(Detail({Level::kRestricted, Version::V1(23)}, root),
            R"(unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsUser=0 (pod must not set runAsUser=0))");
  // Windows pods skip the Linux-only restricted checks from v1.25.
  const char* windows = R"({"spec":{"os":{"name":"windows"},"securityContext":{"runAsNonRoot":true},"containers":[{"name":"c"}]}})";
  EXPECT_EQ(Detail({Level::kRestricted, Version::V1(25)}, windows), "");
  EXPECT_NE(Detail({Level::kRestricted, Version::V1(24)}, windows), "");
  // A version newer than any check reads as the newest; sysctls of v1.32 are allowed there.
  const char* sysctl = R"({"spec":{"securityContext":{"sysctls":[{"name":"net.ipv4.tcp_wmem"}]}}})";
  EXPECT_EQ(Detail({Level::kBaseline, Version::V1(31)}, sysctl), "forbidden sysctls (net.ipv4.tcp_wmem)");
  EXPECT_EQ(Detail({Level::kBaseline, Version::V1(99)}, sysctl), "");
  EXPECT_EQ(Detail({Level::kBaseline, Version::Latest()}, sysctl), "");
  // Before v1.19 seccomp is read from the annotations only.
  const char* seccomp = R"({"metadata":{"annotations":{"seccomp.security.alpha.kubernetes.io/pod":"unconfined"}},
      "spec":{"securityContext":{"seccompProfile":{"type":"Unconfined"}}}})";
  EXPECT_EQ(Detail({Level::kBaseline, Version::V1(18)}, seccomp),
            R"(seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined"))");
  EXPECT_EQ(Detail({Level::kBaseline, Version::V1(19)}, seccomp),
            R"(seccompProfile (pod must not set securityContext.seccompProfile.type to "Unconfined"))");
  EXPECT_EQ(NewestCheckMinor(), 32);
}

TEST(PodSecurityPolicy, Labels) {
  Policy defaults;
  ErrorList errs;
  Policy p = PolicyToEvaluate({{kEnforceLevelLabel, "restricted"}}, defaults, &errs);
  EXPECT_TRUE(errs.empty());
  EXPECT_EQ(p.enforce.String(), "restricted:latest");
  EXPECT_EQ(p.warn.String(), "restricted:latest");  // warn follows enforce when not given
  EXPECT_EQ(p.audit.String(), "privileged:latest");
  p = PolicyToEvaluate({{kEnforceLevelLabel, "baseline"}, {kEnforceVersionLabel, "v1.25"}, {kWarnVersionLabel, "v1.30"}}, defaults, &errs);
  EXPECT_EQ(p.enforce.String(), "baseline:v1.25");
  EXPECT_EQ(p.warn.String(), "baseline:v1.30");
  p = PolicyToEvaluate({{kEnforceLevelLabel, "baseline"}, {kWarnLevelLabel, "privileged"}}, defaults, &errs);
  EXPECT_EQ(p.warn.String(), "privileged:latest");
  EXPECT_TRUE(errs.empty());
  p = PolicyToEvaluate({{kEnforceLevelLabel, "bogus"}, {kWarnVersionLabel, "v1.025"}, {kAuditLevelLabel, "x"}}, defaults, &errs);
  EXPECT_EQ(p.enforce.level, Level::kRestricted);  // fail closed
  EXPECT_EQ(p.audit.level, Level::kPrivileged);    // fail open
  ASSERT_EQ(errs.size(), 3u);
  EXPECT_EQ(errs[0].ToString(),
            R"(metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted)");
  EXPECT_EQ(errs[2].ToString(),
            R"(metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "v1.025": must be "latest" or "v1.x")");
  Version v;
  EXPECT_TRUE(ParseVersion("v1.0", v));
  EXPECT_FALSE(ParseVersion("v2.1", v));
  EXPECT_FALSE(ParseVersion("v1.", v));
  EXPECT_FALSE(ParseVersion("1.25", v));
}

}  // namespace
}  // namespace capstan::admission::psa
