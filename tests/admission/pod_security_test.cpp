// The PodSecurity plugin: enforce, warn and audit by namespace labels, pod controllers' templates,
// exemptions, namespace label validation and the warnings on a tightened enforce level.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "admission/pod_security.h"
#include "util/task.h"

namespace capstan::admission {
namespace {

namespace json = boost::json;

registry::ResourceInfo Info(std::string group, std::string resource, std::string kind) {
  registry::ResourceInfo i;
  i.group = std::move(group);
  i.version = "v1";
  i.resource = std::move(resource);
  i.kind = std::move(kind);
  return i;
}

const char* kPrivilegedPod = R"({"metadata":{"name":"x","namespace":"ns"},"spec":{"containers":[{"name":"c","image":"nginx",
    "securityContext":{"privileged":true}}]}})";
const char* kPlainPod = R"({"metadata":{"name":"x","namespace":"ns"},"spec":{"containers":[{"name":"c","image":"nginx"}]}})";
const char* kRestrictedPod = R"({"metadata":{"name":"x","namespace":"ns"},"spec":{"securityContext":{"runAsNonRoot":true,
    "seccompProfile":{"type":"RuntimeDefault"}},"containers":[{"name":"c","image":"nginx","securityContext":{
    "allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}})";

struct Env {
  explicit Env(json::object ns_labels, const char* config = nullptr) {
    namespace_ = json::object{{"metadata", json::object{{"name", "ns"}, {"labels", std::move(ns_labels)}}}};
    PodSecurityPlugin::Deps d;
    d.namespace_lookup = [this](const std::string& name) -> Task<StatusOr<registry::Object>> {
      lookups++;
      if (name != "ns") co_return Status(404, "NotFound", "namespaces \"" + name + "\" not found");
      co_return namespace_;
    };
    d.list_pods = [this](const std::string&) -> Task<StatusOr<std::vector<registry::Object>>> { co_return pods; };
    d.metrics = &metrics;
    std::optional<json::value> cfg;
    if (config) cfg = json::parse(config);
    auto p = PodSecurityPlugin::Create(cfg, std::move(d));
    EXPECT_TRUE(p.ok()) << p.status().message();
    if (p.ok()) plugin = std::move(*p);
    user.name = "alice";
  }
  PodSecurityPlugin::Decision Decide(const registry::ResourceInfo& info, const char* object, std::string op = "CREATE",
                                     const char* old = nullptr, std::string ns = "ns") {
    obj = json::parse(object).as_object();
    if (old) old_obj = json::parse(old).as_object();
    Attributes a;
    a.operation = std::move(op);
    a.resource = &info;
    a.namespace_ = std::move(ns);
    a.name = "x";
    a.object = &obj;
    a.old_object = old ? &old_obj : nullptr;
    a.user = &user;
    return SyncWait(plugin->Decide(a));
  }
  registry::Object namespace_;
  std::vector<registry::Object> pods;
  MetricsRegistry metrics;
  std::unique_ptr<PodSecurityPlugin> plugin;
  UserInfo user;
  registry::Object obj, old_obj;
  int lookups = 0;
};

const registry::ResourceInfo kPods = Info("", "pods", "Pod");
const registry::ResourceInfo kDeployments = Info("apps", "deployments", "Deployment");
const registry::ResourceInfo kCronJobs = Info("batch", "cronjobs", "CronJob");
const registry::ResourceInfo kNamespaces = Info("", "namespaces", "Namespace");
const registry::ResourceInfo kConfigMaps = Info("", "configmaps", "ConfigMap");

TEST(PodSecurityPlugin, EnforceRefusesWithKubesMessage) {
  Env env({{"pod-security.kubernetes.io/enforce", "restricted"}});
  auto d = env.Decide(kPods, kPlainPod);
  ASSERT_FALSE(d.status.ok());
  EXPECT_EQ(d.status.code(), 403);
  EXPECT_EQ(d.status.message(),
            R"(pods "x" is forbidden: violates PodSecurity "restricted:latest": allowPrivilegeEscalation != false )"
            R"((container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities )"
            R"((container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" )"
            R"(must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set )"
            R"(securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"))");
  EXPECT_TRUE(d.warnings.empty());  // no warning once enforce refuses
  EXPECT_EQ(d.annotations["pod-security.kubernetes.io/enforce-policy"], "restricted:latest");
  auto ok = env.Decide(kPods, kRestrictedPod);
  EXPECT_TRUE(ok.status.ok()) << ok.status.message();
  EXPECT_TRUE(ok.warnings.empty());
}

TEST(PodSecurityPlugin, WarnAndAudit) {
  Env env({{"pod-security.kubernetes.io/enforce", "baseline"}, {"pod-security.kubernetes.io/warn", "restricted"},
           {"pod-security.kubernetes.io/warn-version", "v1.30"}, {"pod-security.kubernetes.io/audit", "restricted"}});
  auto d = env.Decide(kPods, kPlainPod);
  EXPECT_TRUE(d.status.ok());
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_EQ(d.warnings[0].rfind(R"(would violate PodSecurity "restricted:v1.30": allowPrivilegeEscalation != false)", 0), 0u)
      << d.warnings[0];
  EXPECT_EQ(d.annotations["pod-security.kubernetes.io/enforce-policy"], "baseline:latest");
  EXPECT_EQ(d.annotations["pod-security.kubernetes.io/audit-violations"].rfind(
                R"(would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false)", 0),
            0u);
  auto refused = env.Decide(kPods, kPrivilegedPod);
  EXPECT_EQ(refused.status.code(), 403);
  EXPECT_EQ(refused.status.message(), R"(pods "x" is forbidden: violates PodSecurity "baseline:latest": privileged )"
                                      R"((container "c" must not set securityContext.privileged=true))");
  EXPECT_FALSE(refused.annotations["pod-security.kubernetes.io/audit-violations"].empty());
}

TEST(PodSecurityPlugin, ValidateWritesWarningsAndAnnotationsToTheRequestScope) {
  Env env({{"pod-security.kubernetes.io/warn", "baseline"}});
  RequestScope scope;
  registry::Object obj = json::parse(kPrivilegedPod).as_object();
  Attributes a;
  a.operation = "CREATE";
  a.resource = &kPods;
  a.namespace_ = "ns";
  a.name = "x";
  a.object = &obj;
  a.user = &env.user;
  a.scope = &scope;
  EXPECT_TRUE(SyncWait(env.plugin->Validate(a)).ok());
  ASSERT_EQ(scope.warnings().size(), 1u);
  EXPECT_EQ(scope.warnings()[0], R"(would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true))");
  EXPECT_EQ(scope.annotations().at("pod-security.kubernetes.io/enforce-policy").value, "privileged:latest");
}

TEST(PodSecurityPlugin, PrivilegedNamespaceAndOtherResources) {
  Env env(json::object{});
  auto d = env.Decide(kPods, kPrivilegedPod);
  EXPECT_TRUE(d.status.ok());
  EXPECT_TRUE(d.warnings.empty());
  EXPECT_EQ(d.annotations["pod-security.kubernetes.io/enforce-policy"], "privileged:latest");
  Env strict({{"pod-security.kubernetes.io/enforce", "restricted"}});
  auto cm = strict.Decide(kConfigMaps, R"({"metadata":{"name":"x"},"data":{}})");
  EXPECT_TRUE(cm.status.ok());
  EXPECT_EQ(strict.lookups, 0);
  EXPECT_TRUE(cm.annotations.empty());
}

TEST(PodSecurityPlugin, ControllersGetWarningsOnly) {
  Env env({{"pod-security.kubernetes.io/enforce", "restricted"}});
  const char* deploy = R"({"metadata":{"name":"x"},"spec":{"template":{"metadata":{"labels":{"a":"b"}},
      "spec":{"containers":[{"name":"c","image":"nginx","securityContext":{"privileged":true}}]}}}})";
  auto d = env.Decide(kDeployments, deploy);
  EXPECT_TRUE(d.status.ok());
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_EQ(d.warnings[0].rfind(R"(would violate PodSecurity "restricted:latest": privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false)", 0), 0u) << d.warnings[0];
  EXPECT_EQ(d.annotations.count("pod-security.kubernetes.io/enforce-policy"), 0u);
  const char* cron = R"({"metadata":{"name":"x"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{
      "spec":{"hostPID":true,"containers":[{"name":"c","image":"nginx"}]}}}}}})";
  auto c = env.Decide(kCronJobs, cron);
  EXPECT_TRUE(c.status.ok());
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find("host namespaces (hostPID=true)"), std::string::npos);
  // The scale subresource is not checked.
  Env only_enforce({{"pod-security.kubernetes.io/enforce", "restricted"}, {"pod-security.kubernetes.io/warn", "privileged"}});
  auto quiet = only_enforce.Decide(kDeployments, deploy);
  EXPECT_TRUE(quiet.warnings.empty());
}

TEST(PodSecurityPlugin, PodUpdatesAreCheckedOnlyForImageChanges) {
  Env env({{"pod-security.kubernetes.io/enforce", "baseline"}});
  const char* labelled = R"({"metadata":{"name":"x","labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx",
      "securityContext":{"privileged":true}}]}})";
  EXPECT_TRUE(env.Decide(kPods, labelled, "UPDATE", kPrivilegedPod).status.ok());
  const char* new_image = R"({"metadata":{"name":"x"},"spec":{"containers":[{"name":"c","image":"nginx:2",
      "securityContext":{"privileged":true}}]}})";
  EXPECT_EQ(env.Decide(kPods, new_image, "UPDATE", kPrivilegedPod).status.code(), 403);
}

TEST(PodSecurityPlugin, SubresourcesAndPinnedVersions) {
  Env env({{"pod-security.kubernetes.io/enforce", "restricted"}, {"pod-security.kubernetes.io/enforce-version", "v1.22"}});
  const char* root = R"({"metadata":{"name":"x"},"spec":{"securityContext":{"runAsNonRoot":true,"runAsUser":0,
      "seccompProfile":{"type":"RuntimeDefault"}},"containers":[{"name":"c","image":"nginx","securityContext":{
      "allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}]}})";
  // runAsUser=0 is refused from v1.23 on only.
  auto d = env.Decide(kPods, root);
  EXPECT_TRUE(d.status.ok()) << d.status.message();
  EXPECT_EQ(d.annotations["pod-security.kubernetes.io/enforce-policy"], "restricted:v1.22");
  // pods/status is not checked; pods/ephemeralcontainers is.
  auto with_debug = [](const char* image) {
    return std::string(R"({"metadata":{"name":"x"},"spec":{"securityContext":{"runAsNonRoot":true,"seccompProfile":{"type":"RuntimeDefault"}},
        "containers":[{"name":"c","image":"nginx","securityContext":{"allowPrivilegeEscalation":false,"capabilities":{"drop":["ALL"]}}}],
        "ephemeralContainers":[{"name":"debug","image":")") + image + R"("}]}})";
  };
  std::string debug = with_debug("busybox");
  registry::Object old = json::parse(kRestrictedPod).as_object();
  registry::Object obj = json::parse(debug).as_object();
  for (const char* sub : {"status", "ephemeralcontainers"}) {
    Attributes a;
    a.operation = "UPDATE";
    a.resource = &kPods;
    a.subresource = sub;
    a.namespace_ = "ns";
    a.name = "x";
    a.object = &obj;
    a.old_object = &old;
    a.user = &env.user;
    auto r = SyncWait(env.plugin->Decide(a));
    if (std::string(sub) == "status") {
      EXPECT_TRUE(r.status.ok());
    } else {
      EXPECT_EQ(r.status.message(),
                R"(pods "x" is forbidden: violates PodSecurity "restricted:v1.22": allowPrivilegeEscalation != false )"
                R"((container "debug" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities )"
                R"((container "debug" must set securityContext.capabilities.drop=["ALL"]))");
    }
  }
}

TEST(PodSecurityPlugin, Exemptions) {
  const char* config = R"({"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration",
      "defaults":{"enforce":"restricted"},
      "exemptions":{"usernames":["bob"],"runtimeClasses":["kata"],"namespaces":["free"]}})";
  Env env(json::object{}, config);
  // The default enforce level applies to an unlabelled namespace.
  EXPECT_EQ(env.Decide(kPods, kPlainPod).status.code(), 403);
  auto by_ns = env.Decide(kPods, kPlainPod, "CREATE", nullptr, "free");
  EXPECT_TRUE(by_ns.status.ok());
  EXPECT_EQ(by_ns.annotations["pod-security.kubernetes.io/exempt"], "namespace");
  env.user.name = "bob";
  auto by_user = env.Decide(kPods, kPlainPod);
  EXPECT_TRUE(by_user.status.ok());
  EXPECT_EQ(by_user.annotations["pod-security.kubernetes.io/exempt"], "user");
  env.user.name = "alice";
  auto by_rc = env.Decide(kPods, R"({"metadata":{"name":"x"},"spec":{"runtimeClassName":"kata","containers":[{"name":"c"}]}})");
  EXPECT_TRUE(by_rc.status.ok());
  EXPECT_EQ(by_rc.annotations["pod-security.kubernetes.io/exempt"], "runtimeClass");
}

TEST(PodSecurityPlugin, NamespaceLabelsAreValidated) {
  Env env(json::object{});
  auto bad = env.Decide(kNamespaces, R"({"metadata":{"name":"x","labels":{"pod-security.kubernetes.io/enforce":"strict"}}})");
  EXPECT_EQ(bad.status.code(), 422);
  EXPECT_EQ(bad.status.message(),
            R"(Namespace "x" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted)");
  EXPECT_TRUE(env.Decide(kNamespaces, R"({"metadata":{"name":"x","labels":{"pod-security.kubernetes.io/enforce":"baseline"}}})").status.ok());
  // An update that keeps the same bad label is allowed; one that adds a bad label is not.
  const char* still_bad = R"({"metadata":{"name":"x","labels":{"pod-security.kubernetes.io/enforce":"strict","a":"b"}}})";
  const char* was_bad = R"({"metadata":{"name":"x","labels":{"pod-security.kubernetes.io/enforce":"strict"}}})";
  EXPECT_TRUE(env.Decide(kNamespaces, still_bad, "UPDATE", was_bad, "").status.ok());
  EXPECT_EQ(env.Decide(kNamespaces, still_bad, "UPDATE", R"({"metadata":{"name":"x"}})", "").status.code(), 422);
}

TEST(PodSecurityPlugin, TighteningEnforceWarnsAboutExistingPods) {
  Env env(json::object{});
  auto pod = [](const char* name, const char* owner, bool privileged) {
    json::object p = json::parse(privileged ? kPrivilegedPod : kPlainPod).as_object();
    p["metadata"].as_object()["name"] = name;
    if (owner) {
      p["metadata"].as_object()["ownerReferences"] = json::array{json::object{{"uid", owner}, {"controller", true}}};
    }
    return p;
  };
  env.pods = {pod("p3", nullptr, true), pod("p1", "rs1", true), pod("p2", "rs1", true), pod("q", nullptr, false)};
  const char* old_ns = R"({"metadata":{"name":"ns"}})";
  auto d = env.Decide(kNamespaces, R"({"metadata":{"name":"ns","labels":{"pod-security.kubernetes.io/enforce":"baseline"}}})",
                      "UPDATE", old_ns, "");
  EXPECT_TRUE(d.status.ok());
  ASSERT_EQ(d.warnings.size(), 2u);
  EXPECT_EQ(d.warnings[0], R"(existing pods in namespace "ns" violate the new PodSecurity enforce level "baseline:latest")");
  EXPECT_EQ(d.warnings[1], "p1 (and 2 other pods): privileged");
  // Loosening (or keeping) the level says nothing.
  auto loose = env.Decide(kNamespaces, old_ns, "UPDATE",
                          R"({"metadata":{"name":"ns","labels":{"pod-security.kubernetes.io/enforce":"baseline"}}})", "");
  EXPECT_TRUE(loose.warnings.empty());
  auto r = env.Decide(kNamespaces, R"({"metadata":{"name":"ns","labels":{"pod-security.kubernetes.io/enforce":"restricted"}}})",
                      "UPDATE", old_ns, "");
  ASSERT_EQ(r.warnings.size(), 3u);
  EXPECT_EQ(r.warnings[1],
            "p1 (and 2 other pods): privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile");
  EXPECT_EQ(r.warnings[2], "q: allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile");
}

TEST(PodSecurityPlugin, Metrics) {
  Env env({{"pod-security.kubernetes.io/enforce", "restricted"}, {"pod-security.kubernetes.io/audit", "baseline"},
           {"pod-security.kubernetes.io/audit-version", "v1.40"}});
  env.Decide(kPods, kPrivilegedPod);
  env.Decide(kPods, kRestrictedPod);
  env.Decide(kPods, kRestrictedPod, "CREATE", nullptr, "elsewhere");  // namespace lookup fails
  std::string text = env.metrics.Expose();
  EXPECT_NE(text.find(R"(pod_security_evaluations_total{decision="deny",mode="enforce",policy_level="restricted",policy_version="latest",request_operation="create",resource="pod",subresource=""} 1)"),
            std::string::npos) << text;
  EXPECT_NE(text.find(R"(pod_security_evaluations_total{decision="allow",mode="enforce",policy_level="restricted",policy_version="latest",request_operation="create",resource="pod",subresource=""} 1)"),
            std::string::npos) << text;
  EXPECT_NE(text.find(R"(pod_security_evaluations_total{decision="deny",mode="audit",policy_level="baseline",policy_version="future",request_operation="create",resource="pod",subresource=""} 1)"),
            std::string::npos) << text;
  EXPECT_NE(text.find(R"(pod_security_errors_total{fatal="true",request_operation="create",resource="pod",subresource=""} 1)"),
            std::string::npos) << text;
  EXPECT_EQ(PodSecurityMetrics::VersionLabel({psa::Level::kBaseline, psa::Version::V1(25)}), "v1.25");
  EXPECT_EQ(PodSecurityMetrics::VersionLabel({psa::Level::kPrivileged, psa::Version::V1(99)}), "latest");
}

TEST(PodSecurityPlugin, BadConfigurationsAreStartErrors) {
  PodSecurityPlugin::Deps d;
  auto create = [&](const char* text) { return PodSecurityPlugin::Create(json::parse(text), d).status(); };
  EXPECT_EQ(create(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration",
      "defaults":{"enforce":"strict"}})").message(),
            R"(failed to initialize admission plugin "PodSecurity": enforce: must be one of privileged, baseline, restricted)");
  EXPECT_EQ(create(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration",
      "exemptions":{"namespaces":["Bad_NS","ok","ok"],"usernames":[""]}})").message(),
            R"(failed to initialize admission plugin "PodSecurity": [exemptions.namespaces[0]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), exemptions.namespaces[2]: Duplicate value: "ok", exemptions.usernames[0]: Invalid value: "": username must not be empty])");
  EXPECT_EQ(create(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1","kind":"PodSecurityConfiguration",
      "defaults":{"enforce":"baseline","bogus":1}})").message(),
            R"(couldn't init admission plugin "PodSecurity": strict decoding error: unknown field "defaults.bogus")");
  EXPECT_EQ(create(R"({"apiVersion":"pod-security.admission.config.k8s.io/v2","kind":"PodSecurityConfiguration"})").message().rfind(
                R"(couldn't init admission plugin "PodSecurity": no kind "PodSecurityConfiguration" is registered for version "pod-security.admission.config.k8s.io/v2")", 0),
            0u);
  EXPECT_TRUE(create(R"({"apiVersion":"pod-security.admission.config.k8s.io/v1beta1","kind":"PodSecurityConfiguration"})").ok());
}

}  // namespace
}  // namespace capstan::admission
