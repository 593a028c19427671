#include <gtest/gtest.h>

#include <set>

#include <boost/json.hpp>

#include "admission/builtin_plugins.h"
#include "admission/default_storage_class.h"
#include "admission/always_plugins.h"
#include "admission/certificate_subject_restriction.h"
#include "admission/default_ingress_class.h"
#include "admission/default_toleration_seconds.h"
#include "admission/runtime_class.h"
#include "admission/limit_ranger.h"
#include "admission/namespace_lifecycle.h"
#include "admission/owner_references.h"
#include "admission/priority.h"
#include "admission/pvc_resize.h"
#include "admission/service_account.h"
#include "admission/spec_policy_plugins.h"

namespace capstan::admission {
namespace {

namespace json = boost::json;

registry::ResourceInfo Info(std::string resource) {
  registry::ResourceInfo i;
  i.version = "v1";
  i.resource = std::move(resource);
  return i;
}

struct Fixture {
  explicit Fixture(std::string resource, const char* object) : info(Info(std::move(resource))) {
    obj = json::parse(object).as_object();
    a.operation = "CREATE";
    a.resource = &info;
    a.namespace_ = "default";
    a.object = &obj;
  }
  registry::ResourceInfo info;
  registry::Object obj;
  Attributes a;
};

TEST(DefaultTolerationSecondsTest, AddsBothTolerationsUnlessPresent) {
  Fixture f("pods", R"({"spec":{"containers":[{"name":"c"}]}})");
  DefaultTolerationSeconds p;
  ASSERT_TRUE(SyncWait(p.Admit(f.a)).ok());
  EXPECT_EQ(json::serialize(f.obj["spec"].as_object()["tolerations"]),
            R"([{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},)"
            R"({"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}])");

  Fixture g("pods", R"({"spec":{"tolerations":[{"key":"node.kubernetes.io/unreachable","operator":"Exists","tolerationSeconds":5}]}})");
  ASSERT_TRUE(SyncWait(p.Admit(g.a)).ok());
  auto& t = g.obj["spec"].as_object()["tolerations"].as_array();
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[1].as_object()["key"].as_string(), "node.kubernetes.io/not-ready");

  Fixture all("pods", R"({"spec":{"tolerations":[{"operator":"Exists"}]}})");
  ASSERT_TRUE(SyncWait(p.Admit(all.a)).ok());
  EXPECT_EQ(all.obj["spec"].as_object()["tolerations"].as_array().size(), 1u);

  Fixture other("configmaps", R"({"data":{}})");
  ASSERT_TRUE(SyncWait(p.Admit(other.a)).ok());
  EXPECT_FALSE(other.obj.contains("spec"));
}

ObjectGetter Accounts(std::map<std::string, std::string> by_name, int* calls = nullptr) {
  return [by_name, calls](const std::string&, const std::string&, const std::string& resource, const std::string& ns,
                          const std::string& name) -> Task<StatusOr<registry::Object>> {
    if (calls) ++*calls;
    EXPECT_EQ(resource, "serviceaccounts");
    auto it = by_name.find(ns + "/" + name);
    if (it == by_name.end()) co_return Status(404, "NotFound", "serviceaccounts \"" + name + "\" not found");
    co_return json::parse(it->second).as_object();
  };
}

TEST(ServiceAccountPluginTest, DefaultAccountAndProjectedTokenVolume) {
  Fixture f("pods", R"({"spec":{"containers":[{"name":"a"},{"name":"b","volumeMounts":[{"name":"x","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],"initContainers":[{"name":"i"}]}})");
  ServiceAccountPlugin p(Accounts({{"default/default", R"({"metadata":{"name":"default"},"imagePullSecrets":[{"name":"reg"}]})"}}));
  ASSERT_TRUE(SyncWait(p.Admit(f.a)).ok());
  auto& spec = f.obj["spec"].as_object();
  EXPECT_EQ(spec["serviceAccountName"].as_string(), "default");
  auto& vols = spec["volumes"].as_array();
  ASSERT_EQ(vols.size(), 1u);
  std::string name(vols[0].as_object()["name"].as_string());
  EXPECT_EQ(name.rfind("kube-api-access-", 0), 0u);
  EXPECT_EQ(name.size(), std::string("kube-api-access-").size() + 5);
  EXPECT_EQ(json::serialize(vols[0].as_object()["projected"]),
            R"({"sources":[{"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},)"
            R"({"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},)"
            R"({"downwardAPI":{"items":[{"path":"namespace","fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],"defaultMode":420})");
  auto& c = spec["containers"].as_array();
  EXPECT_EQ(json::serialize(c[0].as_object()["volumeMounts"]),
            R"([{"name":")" + name + R"(","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}])");
  EXPECT_EQ(c[1].as_object()["volumeMounts"].as_array().size(), 1u);  // it mounts something there already
  EXPECT_EQ(spec["initContainers"].as_array()[0].as_object()["volumeMounts"].as_array().size(), 1u);
  EXPECT_EQ(json::serialize(spec["imagePullSecrets"]), R"([{"name":"reg"}])");
}

TEST(ServiceAccountPluginTest, MissingAccountIsForbiddenAndAutomountFalseMountsNothing) {
  Fixture f("pods", R"({"metadata":{"name":"p"},"spec":{"serviceAccountName":"robot","containers":[{"name":"a"}]}})");
  int calls = 0;
  ServiceAccountPlugin missing(Accounts({}, &calls));
  Status st = SyncWait(missing.Admit(f.a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "pods \"p\" is forbidden: error looking up service account default/robot: serviceaccount \"robot\" not found");
  EXPECT_EQ(calls, 1);  // only the default account is waited for

  Fixture g("pods", R"({"spec":{"containers":[{"name":"a"}]}})");
  ServiceAccountPlugin no_mount(Accounts({{"default/default", R"({"automountServiceAccountToken":false})"}}));
  ASSERT_TRUE(SyncWait(no_mount.Admit(g.a)).ok());
  EXPECT_FALSE(g.obj["spec"].as_object().contains("volumes"));
}

ObjectLister Classes(std::vector<std::string> objs) {
  return [objs](const std::string& group, const std::string&, const std::string& resource,
                const std::string&) -> Task<StatusOr<std::vector<registry::Object>>> {
    EXPECT_EQ(group, "storage.k8s.io");
    EXPECT_EQ(resource, "storageclasses");
    std::vector<registry::Object> out;
    for (const auto& o : objs) out.push_back(json::parse(o).as_object());
    co_return out;
  };
}

TEST(DefaultStorageClassTest, NewestDefaultClassIsSet) {
  DefaultStorageClass p(Classes({
      R"({"metadata":{"name":"old","creationTimestamp":"2024-01-01T00:00:00Z","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}})",
      R"({"metadata":{"name":"new","creationTimestamp":"2024-06-01T00:00:00Z","annotations":{"storageclass.beta.kubernetes.io/is-default-class":"true"}}})",
      R"({"metadata":{"name":"newest-not-default","creationTimestamp":"2025-01-01T00:00:00Z"}})"}));
  Fixture f("persistentvolumeclaims", R"({"spec":{"accessModes":["ReadWriteOnce"]}})");
  ASSERT_TRUE(SyncWait(p.Admit(f.a)).ok());
  EXPECT_EQ(f.obj["spec"].as_object()["storageClassName"].as_string(), "new");

  Fixture empty("persistentvolumeclaims", R"({"spec":{"storageClassName":""}})");
  ASSERT_TRUE(SyncWait(p.Admit(empty.a)).ok());
  EXPECT_EQ(empty.obj["spec"].as_object()["storageClassName"].as_string(), "");

  DefaultStorageClass none(Classes({R"({"metadata":{"name":"plain"}})"}));
  Fixture g("persistentvolumeclaims", R"({"spec":{}})");
  ASSERT_TRUE(SyncWait(none.Admit(g.a)).ok());
  EXPECT_FALSE(g.obj["spec"].as_object().contains("storageClassName"));
}

ObjectGetter Getter(std::map<std::string, std::string> by_name) {
  return [by_name](const std::string&, const std::string&, const std::string& resource, const std::string&,
                   const std::string& name) -> Task<StatusOr<registry::Object>> {
    auto it = by_name.find(resource + "/" + name);
    if (it == by_name.end()) co_return Status(404, "NotFound", resource + " \"" + name + "\" not found");
    co_return json::parse(it->second).as_object();
  };
}

ObjectLister Lister(std::map<std::string, std::vector<std::string>> by_resource) {
  return [by_resource](const std::string&, const std::string&, const std::string& resource,
                       const std::string&) -> Task<StatusOr<std::vector<registry::Object>>> {
    std::vector<registry::Object> out;
    if (auto it = by_resource.find(resource); it != by_resource.end()) {
      for (const auto& o : it->second) out.push_back(json::parse(o).as_object());
    }
    co_return out;
  };
}

TEST(PriorityPluginTest, ClassValueDefaultAndRefusals) {
  auto get = Getter({{"priorityclasses/high", R"({"metadata":{"name":"high"},"value":1000,"preemptionPolicy":"Never"})"}});
  PriorityPlugin none(get, Lister({}));
  Fixture f("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[]}})");
  ASSERT_TRUE(SyncWait(none.Admit(f.a)).ok());
  EXPECT_EQ(f.obj["spec"].as_object()["priority"].as_int64(), 0);
  EXPECT_EQ(f.obj["spec"].as_object()["preemptionPolicy"].as_string(), "PreemptLowerPriority");
  EXPECT_FALSE(f.obj["spec"].as_object().contains("priorityClassName"));

  PriorityPlugin with_default(get, Lister({{"priorityclasses", {R"({"metadata":{"name":"a"},"value":5,"globalDefault":true})",
                                                                 R"({"metadata":{"name":"b"},"value":3,"globalDefault":true})"}}}));
  Fixture d("pods", R"({"spec":{}})");
  ASSERT_TRUE(SyncWait(with_default.Admit(d.a)).ok());
  EXPECT_EQ(d.obj["spec"].as_object()["priorityClassName"].as_string(), "b");
  EXPECT_EQ(d.obj["spec"].as_object()["priority"].as_int64(), 3);

  Fixture named("pods", R"({"spec":{"priorityClassName":"high"}})");
  ASSERT_TRUE(SyncWait(none.Admit(named.a)).ok());
  EXPECT_EQ(named.obj["spec"].as_object()["priority"].as_int64(), 1000);
  EXPECT_EQ(named.obj["spec"].as_object()["preemptionPolicy"].as_string(), "Never");

  Fixture missing("pods", R"({"metadata":{"name":"p"},"spec":{"priorityClassName":"nope"}})");
  Status st = SyncWait(none.Admit(missing.a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "pods \"p\" is forbidden: no PriorityClass with name nope was found");

  Fixture wrong("pods", R"({"metadata":{"name":"p"},"spec":{"priorityClassName":"high","priority":7}})");
  st = SyncWait(none.Admit(wrong.a));
  EXPECT_EQ(st.message(), "pods \"p\" is forbidden: the integer value of priority (7) must not be provided in pod spec; "
                          "priority admission controller computed 1000 from the given PriorityClass name");
}

TEST(PriorityPluginTest, UpdateKeepsTheStoredPriorityWhenTheManifestLeavesItOut) {
  PriorityPlugin p(Getter({}), Lister({}));
  registry::Object old = json::parse(R"({"metadata":{"name":"p"},"spec":{"priority":0,"preemptionPolicy":"PreemptLowerPriority"}})").as_object();
  Fixture f("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"new"}]}})");
  f.a.operation = "UPDATE";
  f.a.old_object = &old;
  EXPECT_TRUE(p.Handles("UPDATE"));
  ASSERT_TRUE(SyncWait(p.Admit(f.a)).ok());
  EXPECT_EQ(f.obj["spec"].as_object()["priority"].as_int64(), 0);
  EXPECT_EQ(f.obj["spec"].as_object()["preemptionPolicy"].as_string(), "PreemptLowerPriority");
  // What the update states stays (validation refuses a change; admission does not hide it).
  Fixture changed("pods", R"({"metadata":{"name":"p"},"spec":{"priority":9,"preemptionPolicy":"Never"}})");
  changed.a.operation = "UPDATE";
  changed.a.old_object = &old;
  ASSERT_TRUE(SyncWait(p.Admit(changed.a)).ok());
  EXPECT_EQ(changed.obj["spec"].as_object()["priority"].as_int64(), 9);
  EXPECT_EQ(changed.obj["spec"].as_object()["preemptionPolicy"].as_string(), "Never");
}

TEST(LimitRangerTest, DefaultsAnnotationAndMaxMin) {
  LimitRanger p(Lister({{"limitranges", {R"({"spec":{"limits":[{"type":"Container","default":{"cpu":"500m","memory":"128Mi"},
      "defaultRequest":{"cpu":"100m"},"max":{"cpu":"1"},"min":{"cpu":"50m"}}]}})"}}}));
  Fixture f("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"app","resources":{"limits":{"memory":"64Mi"}}}],
      "initContainers":[{"name":"init"}]}})");
  ASSERT_TRUE(SyncWait(p.Admit(f.a)).ok());
  auto& c = f.obj["spec"].as_object()["containers"].as_array()[0].as_object();
  EXPECT_EQ(json::serialize(c["resources"]), R"({"limits":{"memory":"64Mi","cpu":"500m"},"requests":{"cpu":"100m"}})");
  EXPECT_EQ(f.obj["metadata"].as_object()["annotations"].as_object()["kubernetes.io/limit-ranger"].as_string(),
            "LimitRanger plugin set: cpu request for container app; cpu limit for container app; cpu request for init "
            "container init; cpu, memory limit for init container init");
  EXPECT_TRUE(SyncWait(p.Validate(f.a)).ok());

  Fixture big("pods", R"({"metadata":{"name":"big"},"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"2"},"requests":{"cpu":"10m"}}}]}})");
  Status st = SyncWait(p.Validate(big.a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "pods \"big\" is forbidden: [minimum cpu usage per Container is 50m, but request is 10m, "
                          "maximum cpu usage per Container is 1, but limit is 2]");
}

TEST(LimitRangerTest, DefaultsFromSeveralItemsAreMergedOncePerContainer) {
  LimitRanger p(Lister({{"limitranges", {R"({"spec":{"limits":[{"type":"Container","default":{"cpu":"500m"}},
      {"type":"Container","default":{"memory":"1Gi"},"defaultRequest":{"memory":"256Mi"}}]}})"}}}));
  Fixture f("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"app"}]}})");
  ASSERT_TRUE(SyncWait(p.Admit(f.a)).ok());
  EXPECT_EQ(f.obj["metadata"].as_object()["annotations"].as_object()["kubernetes.io/limit-ranger"].as_string(),
            "LimitRanger plugin set: memory request for container app; cpu, memory limit for container app");
}

TEST(LimitRangerTest, PodTotalsCountSidecarsAndTheLargestInitContainer) {
  LimitRanger p(Lister({{"limitranges", {R"({"spec":{"limits":[{"type":"Pod","max":{"cpu":"2","memory":"1Gi"}}]}})"}}}));
  // Containers 1 + 0.5 cpu; a sidecar adds 0.25; a plain init container asks 1.5 (plus the sidecar
  // before it: 1.75) which is below the 1.75 sum. Limits: 1.2 + 0.6 + 0.3 = 2.1 > 2.
  Fixture f("pods", R"({"metadata":{"name":"p"},"spec":{
      "initContainers":[{"name":"side","restartPolicy":"Always","resources":{"requests":{"cpu":"250m"},"limits":{"cpu":"300m","memory":"100Mi"}}},
                        {"name":"init","resources":{"requests":{"cpu":"1500m"},"limits":{"cpu":"1500m","memory":"900Mi"}}}],
      "containers":[{"name":"a","resources":{"requests":{"cpu":"1"},"limits":{"cpu":"1200m","memory":"100Mi"}}},
                    {"name":"b","resources":{"requests":{"cpu":"500m"},"limits":{"cpu":"600m","memory":"100Mi"}}}]}})");
  Status st = SyncWait(p.Validate(f.a));
  EXPECT_EQ(st.code(), 403);
  // memory: containers 200Mi + sidecar 100Mi = 300Mi; the init container's 900Mi + 100Mi sidecar wins: 1000Mi < 1Gi.
  EXPECT_EQ(st.message(), "pods \"p\" is forbidden: maximum cpu usage per Pod is 2, but limit is 2100m");
}

TEST(LimitRangerTest, MaxLimitRequestRatioPerContainerAndPod) {
  LimitRanger p(Lister({{"limitranges", {R"({"spec":{"limits":[{"type":"Container","maxLimitRequestRatio":{"cpu":"2"}},
      {"type":"Pod","maxLimitRequestRatio":{"memory":"1500m"}}]}})"}}}));
  Fixture ok("pods", R"({"metadata":{"name":"ok"},"spec":{"containers":[{"name":"c","resources":{
      "requests":{"cpu":"500m","memory":"100Mi"},"limits":{"cpu":"1","memory":"150Mi"}}}]}})");
  EXPECT_TRUE(SyncWait(p.Validate(ok.a)).ok());
  Fixture bad("pods", R"({"metadata":{"name":"bad"},"spec":{"containers":[{"name":"c","resources":{
      "requests":{"cpu":"250m","memory":"100Mi"},"limits":{"cpu":"1"}}}]}})");
  EXPECT_EQ(SyncWait(p.Validate(bad.a)).message(),
            "pods \"bad\" is forbidden: [cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000, "
            "memory max limit to request ratio per Pod is 1500m, but no limit is specified or limit is 0]");
}

TEST(LimitRangerTest, ClaimsAreBoundedOnCreateAndUpdate) {
  LimitRanger p(Lister({{"limitranges", {R"({"spec":{"limits":[{"type":"PersistentVolumeClaim","min":{"storage":"1Gi"},"max":{"storage":"10Gi"}}]}})"}}}));
  EXPECT_TRUE(p.Handles("UPDATE"));
  Fixture small("persistentvolumeclaims", R"({"metadata":{"name":"small"},"spec":{"resources":{"requests":{"storage":"500Mi"}}}})");
  EXPECT_EQ(SyncWait(p.Validate(small.a)).message(),
            "persistentvolumeclaims \"small\" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi");
  Fixture big("persistentvolumeclaims", R"({"metadata":{"name":"big"},"spec":{"resources":{"requests":{"storage":"20Gi"}}}})");
  big.a.operation = "UPDATE";
  EXPECT_EQ(SyncWait(p.Validate(big.a)).message(),
            "persistentvolumeclaims \"big\" is forbidden: maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi");
  Fixture fine("persistentvolumeclaims", R"({"metadata":{"name":"fine"},"spec":{"resources":{"requests":{"storage":"5Gi"}}}})");
  EXPECT_TRUE(SyncWait(p.Validate(fine.a)).ok());
  // A pod update is not checked (its containers cannot change).
  Fixture pod("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c"}]}})");
  pod.a.operation = "UPDATE";
  LimitRanger strict(Lister({{"limitranges", {R"({"spec":{"limits":[{"type":"Container","min":{"cpu":"1"}}]}})"}}}));
  EXPECT_TRUE(SyncWait(strict.Validate(pod.a)).ok());
  pod.a.operation = "CREATE";
  EXPECT_EQ(SyncWait(strict.Validate(pod.a)).message(),
            "pods \"p\" is forbidden: minimum cpu usage per Container is 1.  No request is specified");
}

TEST(RuntimeClassPluginTest, OverheadSchedulingAndMissingClass) {
  RuntimeClassPlugin p(Getter({{"runtimeclasses/gvisor",
                                R"({"handler":"runsc","overhead":{"podFixed":{"cpu":"250m"}},"scheduling":{"nodeSelector":{"sandbox":"yes"},)"
                                R"("tolerations":[{"key":"sandbox","operator":"Exists"}]}})"}}));
  Fixture f("pods", R"({"metadata":{"name":"p"},"spec":{"runtimeClassName":"gvisor","nodeSelector":{"zone":"a"}}})");
  ASSERT_TRUE(SyncWait(p.Admit(f.a)).ok());
  EXPECT_EQ(json::serialize(f.obj["spec"]),
            R"({"runtimeClassName":"gvisor","nodeSelector":{"zone":"a","sandbox":"yes"},"overhead":{"cpu":"250m"},)"
            R"("tolerations":[{"key":"sandbox","operator":"Exists"}]})");
  Fixture conflict("pods", R"({"metadata":{"name":"p"},"spec":{"runtimeClassName":"gvisor","nodeSelector":{"sandbox":"no"}}})");
  EXPECT_EQ(SyncWait(p.Admit(conflict.a)).message(),
            "pods \"p\" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[sandbox] = yes; "
            "pod.spec.nodeSelector[sandbox] = no");
  Fixture missing("pods", R"({"metadata":{"name":"p"},"spec":{"runtimeClassName":"kata"}})");
  EXPECT_EQ(SyncWait(p.Admit(missing.a)).message(), "pods \"p\" is forbidden: pod rejected: RuntimeClass \"kata\" not found");
}

TEST(DefaultIngressClassTest, DefaultClassIsSetUnlessOneIsNamed) {
  DefaultIngressClass p(Lister({{"ingressclasses",
                                 {R"({"metadata":{"name":"nginx","annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}}})"}}}));
  registry::ResourceInfo info = Info("ingresses");
  info.group = "networking.k8s.io";
  Fixture f("ingresses", R"({"spec":{}})");
  f.a.resource = &info;
  ASSERT_TRUE(SyncWait(p.Admit(f.a)).ok());
  EXPECT_EQ(f.obj["spec"].as_object()["ingressClassName"].as_string(), "nginx");
  Fixture annotated("ingresses", R"({"metadata":{"annotations":{"kubernetes.io/ingress.class":"x"}},"spec":{}})");
  annotated.a.resource = &info;
  ASSERT_TRUE(SyncWait(p.Admit(annotated.a)).ok());
  EXPECT_FALSE(annotated.obj["spec"].as_object().contains("ingressClassName"));
}

TEST(AlwaysPluginsTest, PullImagesAndDeny) {
  Fixture f("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"a","imagePullPolicy":"IfNotPresent"}],"initContainers":[{"name":"i"}]}})");
  AlwaysPullImages pull;
  ASSERT_TRUE(SyncWait(pull.Admit(f.a)).ok());
  EXPECT_EQ(f.obj["spec"].as_object()["containers"].as_array()[0].as_object()["imagePullPolicy"].as_string(), "Always");
  EXPECT_EQ(f.obj["spec"].as_object()["initContainers"].as_array()[0].as_object()["imagePullPolicy"].as_string(), "Always");
  AlwaysDeny deny;
  Status st = SyncWait(deny.Admit(f.a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "pods \"p\" is forbidden: admission control is denying all modifications");
}

// Base64 PEM certificate requests (openssl req -subj "/O=system:masters/CN=evil" and "/O=devs/CN=alice").
constexpr char kMastersCsr[] = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIak1JR0tBZ0VBTUNneEZ6QVZCZ05WQkFvTURuTjVjM1JsYlRwdFlYTjBaWEp6TVEwd0N3WURWUVFEREFSbApkbWxzTUZrd0V3WUhLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFWmxLVlBERkRuWGhFNWVTVkQvMUFCK245CldzV3RFUjlXdHg5WjIvVjYvUzBrNWVsZHRlL1VSZVp0WHB4OW1uTWVOTHgwN3BkRVBHYkRpUUlYdExyVFFLQUEKTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFEYVNjK3NxN2tYbWlCc3lvRVFHSjVZVmEyMS9nMlpKam1iakpzVwpWcktLdEFJZ1htK3JKR3BKSVBqbk5IWmE3QnZobDZoSTZWTnNxeDlFbDQ0d3pma1dkTlk9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=";
constexpr char kDevsCsr[] = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIYU1JR0JBZ0VBTUI4eERUQUxCZ05WQkFvTUJHUmxkbk14RGpBTUJnTlZCQU1NQldGc2FXTmxNRmt3RXdZSApLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFcnN0MWpwQ3F2dS9FNDRoeUJxWXV0NnAwa085R1R5MFFKM2lvCkd4NVJiRXpQeXM4MnIreUZvN095OXovbG5NcnRtMy84cHVrR3ExL3M5SUJpRWltb1hxQUFNQW9HQ0NxR1NNNDkKQkFNQ0EwZ0FNRVVDSVFEbjNvR3V1Q3VYaHNmTnM4dW5sRWM2UG9hTWQxdGNEd3VUR1pUYm0yUXFEUUlnZTR3ZAptUDBUM09rV2F6V0NkK2ppM0s4am5sNHlSRzdvNjN2K1YyWUlVRTQ9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=";

TEST(CertificateSubjectRestrictionTest, SystemMastersIsRefusedForTheClientSigner) {
  registry::ResourceInfo info = Info("certificatesigningrequests");
  info.group = "certificates.k8s.io";
  auto csr = [&](const std::string& request, const std::string& signer) {
    auto f = std::make_unique<Fixture>("certificatesigningrequests",
                                       R"({"metadata":{"name":"c"},"spec":{}})");
    f->a.resource = &info;
    f->obj["spec"].as_object()["request"] = request;
    f->obj["spec"].as_object()["signerName"] = signer;
    return f;
  };
  CertificateSubjectRestriction p;
  auto masters = csr(kMastersCsr, "kubernetes.io/kube-apiserver-client");
  Status st = SyncWait(p.Validate(masters->a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "certificatesigningrequests.certificates.k8s.io \"c\" is forbidden: use of "
                          "kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed");
  EXPECT_TRUE(SyncWait(p.Validate(csr(kDevsCsr, "kubernetes.io/kube-apiserver-client")->a)).ok());
  EXPECT_TRUE(SyncWait(p.Validate(csr(kMastersCsr, "example.com/other")->a)).ok());
  auto garbage = csr("bm90IGEgY3Ny", "kubernetes.io/kube-apiserver-client");
  EXPECT_NE(SyncWait(p.Validate(garbage->a)).message().find("failed to parse CSR"), std::string::npos);
}

TEST(DenyServiceExternalIPsTest, NewExternalIPsAreRefusedKeptOnesAllowed) {
  DenyServiceExternalIPs p;
  Fixture created("services", R"({"metadata":{"name":"s"},"spec":{"externalIPs":["1.2.3.4"]}})");
  Status st = SyncWait(p.Validate(created.a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "services \"s\" is forbidden: Use of external IPs is denied by admission control");
  Fixture none("services", R"({"metadata":{"name":"s"},"spec":{"ports":[{"port":80}]}})");
  EXPECT_TRUE(SyncWait(p.Validate(none.a)).ok());
  registry::Object old = json::parse(R"({"spec":{"externalIPs":["1.2.3.4","5.6.7.8"]}})").as_object();
  Fixture kept("services", R"({"metadata":{"name":"s"},"spec":{"externalIPs":["5.6.7.8"]}})");
  kept.a.operation = "UPDATE";
  kept.a.old_object = &old;
  EXPECT_TRUE(SyncWait(p.Validate(kept.a)).ok());
  Fixture added("services", R"({"metadata":{"name":"s"},"spec":{"externalIPs":["5.6.7.8","9.9.9.9"]}})");
  added.a.operation = "UPDATE";
  added.a.old_object = &old;
  EXPECT_EQ(SyncWait(p.Validate(added.a)).code(), 403);
  Fixture status("services", R"({"metadata":{"name":"s"},"spec":{"externalIPs":["9.9.9.9"]}})");
  status.a.subresource = "status";
  EXPECT_TRUE(SyncWait(p.Validate(status.a)).ok());
}

TEST(LimitPodHardAntiAffinityTopologyTest, OnlyTheHostnameKeyIsAllowed) {
  LimitPodHardAntiAffinityTopology p;
  Fixture zone("pods", R"({"metadata":{"name":"p"},"spec":{"affinity":{"podAntiAffinity":{)"
                       R"("requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"kubernetes.io/hostname"},)"
                       R"({"topologyKey":"topology.kubernetes.io/zone"}]}}}})");
  Status st = SyncWait(p.Validate(zone.a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "pods \"p\" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey "
                          "topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed");
  Fixture host("pods", R"({"metadata":{"name":"p"},"spec":{"affinity":{"podAntiAffinity":{)"
                       R"("requiredDuringSchedulingIgnoredDuringExecution":[{"topologyKey":"kubernetes.io/hostname"}],)"
                       R"("preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"topologyKey":"z"}}]}}}})");
  EXPECT_TRUE(SyncWait(p.Validate(host.a)).ok());
}

TEST(ExtendedResourceTolerationTest, ExtendedResourcesGetSortedNoScheduleTolerations) {
  EXPECT_TRUE(IsExtendedResourceName("example.com/gpu"));
  EXPECT_FALSE(IsExtendedResourceName("cpu"));
  EXPECT_FALSE(IsExtendedResourceName("kubernetes.io/something"));
  EXPECT_FALSE(IsExtendedResourceName("requests.example.com/gpu"));
  EXPECT_FALSE(IsExtendedResourceName("example.com/bad name"));
  ExtendedResourceToleration p;
  Fixture f("pods", R"({"metadata":{"name":"p"},"spec":{)"
                    R"("containers":[{"name":"a","resources":{"requests":{"cpu":"1","vendor.io/fpga":"1"}}}],)"
                    R"("initContainers":[{"name":"i","resources":{"requests":{"example.com/gpu":"2"}}}],)"
                    R"("tolerations":[{"key":"vendor.io/fpga","operator":"Exists","effect":"NoSchedule","tolerationSeconds":5},)"
                    R"({"key":"other","operator":"Equal","value":"x"}]}})");
  ASSERT_TRUE(SyncWait(p.Admit(f.a)).ok());
  EXPECT_EQ(json::serialize(f.obj["spec"].as_object()["tolerations"]),
            R"([{"key":"vendor.io/fpga","operator":"Exists","effect":"NoSchedule"},{"key":"other","operator":"Equal","value":"x"},)"
            R"({"key":"example.com/gpu","operator":"Exists","effect":"NoSchedule"}])");
  Fixture plain("pods", R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"a"}]}})");
  ASSERT_TRUE(SyncWait(p.Admit(plain.a)).ok());
  EXPECT_FALSE(plain.obj["spec"].as_object().contains("tolerations"));
}

TEST(PersistentVolumeClaimResizeTest, GrowingNeedsABoundClaimAndAnExpandableClass) {
  ObjectGetter classes = [](const std::string& group, const std::string&, const std::string& resource,
                            const std::string&, const std::string& name) -> Task<StatusOr<registry::Object>> {
    EXPECT_EQ(group + "/" + resource, "storage.k8s.io/storageclasses");
    if (name == "fast") co_return json::parse(R"({"metadata":{"name":"fast"},"allowVolumeExpansion":true})").as_object();
    if (name == "fixed") co_return json::parse(R"({"metadata":{"name":"fixed"}})").as_object();
    co_return Status(404, "NotFound", "storageclasses.storage.k8s.io \"" + name + "\" not found");
  };
  PersistentVolumeClaimResize p(classes);
  auto claim = [](const std::string& cls, const std::string& size, const std::string& phase) {
    return json::parse(R"({"metadata":{"name":"data"},"spec":{"storageClassName":")" + cls +
                       R"(","resources":{"requests":{"storage":")" + size + R"("}}},"status":{"phase":")" + phase + R"("}})")
        .as_object();
  };
  auto check = [&](const std::string& old_cls, const std::string& old_size, const std::string& phase,
                   const std::string& new_cls, const std::string& new_size) {
    registry::Object old = claim(old_cls, old_size, phase);
    Fixture f("persistentvolumeclaims", "{}");
    f.obj = claim(new_cls, new_size, phase);
    f.a.operation = "UPDATE";
    f.a.old_object = &old;
    return SyncWait(p.Validate(f.a));
  };
  EXPECT_TRUE(check("fast", "1Gi", "Bound", "fast", "2Gi").ok());
  EXPECT_TRUE(check("fixed", "2Gi", "Bound", "fixed", "1500Mi").ok());  // shrinking is validation's business
  EXPECT_TRUE(check("fixed", "1Gi", "Pending", "fixed", "1024Mi").ok());  // the same size
  Status pending = check("fast", "1Gi", "Pending", "fast", "2Gi");
  EXPECT_EQ(pending.code(), 403);
  EXPECT_EQ(pending.message(),
            "persistentvolumeclaims \"data\" is forbidden: Only bound persistent volume claims can be expanded");
  const std::string no_resize = "persistentvolumeclaims \"data\" is forbidden: only dynamically provisioned pvc can be "
                                "resized and the storageclass that provisions the pvc must support resize";
  EXPECT_EQ(check("fixed", "1Gi", "Bound", "fixed", "2Gi").message(), no_resize);
  EXPECT_EQ(check("gone", "1Gi", "Bound", "gone", "2Gi").message(), no_resize);
  EXPECT_EQ(check("", "1Gi", "Bound", "", "2Gi").message(), no_resize);
}

TEST(NamespaceExistsTest, EveryWriteInAMissingNamespaceIsNotFound) {
  NamespaceExists p([](const std::string& name) -> Task<StatusOr<registry::Object>> {
    if (name == "default") co_return json::parse(R"({"metadata":{"name":"default"}})").as_object();
    if (name == "broken") co_return Status(500, "InternalError", "etcd is down");
    co_return Status(404, "NotFound", "namespaces \"" + name + "\" not found");
  });
  for (const char* op : {"CREATE", "UPDATE", "DELETE"}) {
    Fixture f("configmaps", R"({"metadata":{"name":"c"}})");
    f.a.operation = op;
    EXPECT_TRUE(SyncWait(p.Validate(f.a)).ok()) << op;
    f.a.namespace_ = "gone";
    Status st = SyncWait(p.Validate(f.a));
    EXPECT_EQ(st.code(), 404) << op;
    EXPECT_EQ(st.message(), "namespaces \"gone\" not found");
  }
  Fixture broken("configmaps", R"({"metadata":{"name":"c"}})");
  broken.a.namespace_ = "broken";
  EXPECT_EQ(SyncWait(p.Validate(broken.a)).code(), 500);
  Fixture ns("namespaces", R"({"metadata":{"name":"gone"}})");
  ns.a.namespace_ = "";
  EXPECT_TRUE(SyncWait(p.Validate(ns.a)).ok());
}

TEST(OwnerReferencesPermissionEnforcementTest, DeleteForChangesFinalizersForBlockingOwners) {
  std::set<std::string> allowed;  // "verb group/resource/subresource ns/name"
  std::vector<std::string> asked;
  AuthorizeFunc authorize = [&](const UserInfo&, const AuthorizeRequest& r) -> Task<bool> {
    std::string q = r.verb + " " + r.api_group + "/" + r.resource + "/" + r.subresource + " " + r.namespace_ + "/" + r.name;
    asked.push_back(q);
    co_return allowed.count(q) > 0;
  };
  KindMapper mapper = [](std::string_view api_version, std::string_view kind) -> std::optional<KindMapping> {
    if (api_version == "apps/v1" && kind == "Deployment") return KindMapping{"apps", "v1", "deployments", true};
    if (api_version == "v1" && kind == "Node") return KindMapping{"", "v1", "nodes", false};
    return std::nullopt;
  };
  OwnerReferencesPermissionEnforcement p(authorize, mapper);
  auto pod = [](const std::string& refs) {
    return std::make_unique<Fixture>("pods", (R"({"metadata":{"name":"p","ownerReferences":)" + refs + "}}").c_str());
  };
  const std::string deploy = R"({"apiVersion":"apps/v1","kind":"Deployment","name":"d","uid":"u1")";
  // Create with a non-blocking reference: nothing to ask.
  auto plain = pod("[" + deploy + "}]");
  EXPECT_TRUE(SyncWait(p.Validate(plain->a)).ok());
  EXPECT_TRUE(asked.empty());
  // Create with a blocking reference: finalizers of the owner, in the pod's namespace.
  auto blocking = pod("[" + deploy + R"(,"blockOwnerDeletion":true}])");
  Status st = SyncWait(p.Validate(blocking->a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "pods \"p\" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a "
                          "resource you can't set finalizers on: , <nil>");
  EXPECT_EQ(asked, std::vector<std::string>({"update */*/finalizers /*", "update apps/deployments/finalizers default/d"}));
  allowed.insert("update apps/deployments/finalizers default/d");
  EXPECT_TRUE(SyncWait(p.Validate(blocking->a)).ok());
  // A cluster-scoped owner is asked about without a namespace; an unserved kind is refused.
  auto node = pod(R"([{"apiVersion":"v1","kind":"Node","name":"n","uid":"u2","blockOwnerDeletion":true}])");
  asked.clear();
  EXPECT_EQ(SyncWait(p.Validate(node->a)).code(), 403);
  EXPECT_EQ(asked.back(), "update /nodes/finalizers /n");
  auto unknown = pod(R"([{"apiVersion":"x.io/v1","kind":"Thing","name":"t","uid":"u3","blockOwnerDeletion":true}])");
  EXPECT_EQ(SyncWait(p.Validate(unknown->a)).message(),
            "pods \"p\" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for "
            "APIVersion x.io/v1 Kind Thing: no matches for kind \"Thing\" in version \"x.io/v1\"");
  // An update changing the references needs delete on the object; an unchanged list needs nothing.
  registry::Object old = json::parse(R"({"metadata":{"name":"p","ownerReferences":[)" + deploy + "}]}}").as_object();
  auto same = pod("[" + deploy + "}]");
  same->a.operation = "UPDATE";
  same->a.old_object = &old;
  same->a.name = "p";
  asked.clear();
  EXPECT_TRUE(SyncWait(p.Validate(same->a)).ok());
  EXPECT_TRUE(asked.empty());
  auto dropped = pod("[]");
  dropped->a.operation = "UPDATE";
  dropped->a.old_object = &old;
  dropped->a.name = "p";
  EXPECT_EQ(SyncWait(p.Validate(dropped->a)).message(),
            "pods \"p\" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>");
  EXPECT_EQ(asked.back(), "delete /pods/ default/p");
  allowed.insert("delete /pods/ default/p");
  EXPECT_TRUE(SyncWait(p.Validate(dropped->a)).ok());
  // Making the existing reference blocking counts as a new blocking one.
  allowed.erase("update apps/deployments/finalizers default/d");
  auto now_blocking = pod("[" + deploy + R"(,"blockOwnerDeletion":true}])");
  now_blocking->a.operation = "UPDATE";
  now_blocking->a.old_object = &old;
  now_blocking->a.name = "p";
  EXPECT_EQ(SyncWait(p.Validate(now_blocking->a)).code(), 403);
  // pods/status is exempt.
  dropped->a.subresource = "status";
  allowed.clear();
  EXPECT_TRUE(SyncWait(p.Validate(dropped->a)).ok());
}

TEST(NamespaceAutoProvisionTest, MissingNamespaceIsCreatedExceptForDryRuns) {
  std::set<std::string> namespaces = {"default"};
  int creates = 0;
  NamespaceAutoProvision p(
      [&](const std::string& name) -> Task<StatusOr<registry::Object>> {
        if (namespaces.count(name)) co_return json::parse(R"({"metadata":{}})").as_object();
        co_return Status(404, "NotFound", "namespaces \"" + name + "\" not found");
      },
      [&](const std::string& name) -> Task<Status> {
        ++creates;
        if (name == "racing") co_return Status(409, "AlreadyExists", "namespaces \"racing\" already exists");
        if (name == "refused") co_return Status(422, "Invalid", "bad name");
        namespaces.insert(name);
        co_return Status();
      });
  Fixture f("configmaps", R"({"metadata":{"name":"c"}})");
  EXPECT_TRUE(SyncWait(p.Admit(f.a)).ok());
  EXPECT_EQ(creates, 0);
  f.a.namespace_ = "team";
  f.a.dry_run = true;
  EXPECT_TRUE(SyncWait(p.Admit(f.a)).ok());
  EXPECT_EQ(creates, 0);
  f.a.dry_run = false;
  EXPECT_TRUE(SyncWait(p.Admit(f.a)).ok());
  EXPECT_EQ(creates, 1);
  EXPECT_TRUE(namespaces.count("team"));
  f.a.namespace_ = "racing";
  EXPECT_TRUE(SyncWait(p.Admit(f.a)).ok());
  f.a.namespace_ = "refused";
  Status st = SyncWait(p.Admit(f.a));
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "configmaps \"c\" is forbidden: bad name");
}

TEST(BuildChainTest, DefaultPluginsInKubesOrderAndUnknownNamesRefused) {
  PluginDeps deps;
  deps.get = Accounts({});
  deps.list = Classes({});
  auto built = BuildChain({}, {"DefaultStorageClass"}, deps);
  ASSERT_TRUE(built.ok());
  std::vector<std::string> names;
  for (const auto& p : built->chain->plugins()) names.push_back(p->Name());
  EXPECT_EQ(names, std::vector<std::string>({"NamespaceLifecycle", "LimitRanger", "ServiceAccount", "TaintNodesByCondition",
                                             "PodSecurity", "Priority", "DefaultTolerationSeconds", "StorageObjectInUseProtection",
                                             "PersistentVolumeClaimResize", "RuntimeClass", "CertificateSubjectRestriction", "DefaultIngressClass",
                                             "ValidatingAdmissionPolicy"}));
  auto with_off = BuildChain({"AlwaysPullImages", "AlwaysDeny"}, {}, deps);
  ASSERT_TRUE(with_off.ok());
  EXPECT_EQ(with_off->chain->plugins().back()->Name(), "AlwaysDeny");
  auto bad = BuildChain({"NoSuchPlugin"}, {}, deps);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "enable-admission-plugins plugin \"NoSuchPlugin\" is unknown");
  // kube 1.32 has neither (PersistentVolumeLabel went with the in-tree cloud providers; PodTopologyLabels
  // comes in 1.33).
  for (const std::string name : {"PersistentVolumeLabel", "PodTopologyLabels"}) {
    EXPECT_EQ(BuildChain({name}, {}, deps).status().message(),
              "enable-admission-plugins plugin \"" + name + "\" is unknown");
  }
  // kube 1.32's AllOrderedPlugins (pkg/kubeapiserver/options/plugins.go).
  EXPECT_EQ(AllPluginsInOrder(),
            std::vector<std::string>(
                {"AlwaysAdmit", "NamespaceAutoProvision", "NamespaceLifecycle", "NamespaceExists",
                 "LimitPodHardAntiAffinityTopology", "LimitRanger", "ServiceAccount", "NodeRestriction",
                 "TaintNodesByCondition", "AlwaysPullImages", "ImagePolicyWebhook", "PodSecurity", "PodNodeSelector",
                 "Priority", "DefaultTolerationSeconds", "PodTolerationRestriction", "EventRateLimit",
                 "ExtendedResourceToleration", "DefaultStorageClass", "StorageObjectInUseProtection",
                 "OwnerReferencesPermissionEnforcement", "PersistentVolumeClaimResize", "RuntimeClass",
                 "CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest", "CertificateSubjectRestriction",
                 "DefaultIngressClass", "DenyServiceExternalIPs", "MutatingAdmissionPolicy", "MutatingAdmissionWebhook",
                 "ValidatingAdmissionPolicy", "ValidatingAdmissionWebhook", "ResourceQuota", "AlwaysDeny"}));
}

}  // namespace
}  // namespace capstan::admission
