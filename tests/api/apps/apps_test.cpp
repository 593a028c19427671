// apps/v1 through the real Stores over the embedded backend: kube's defaults, validation messages,
// generation rules, status and scale subresources, printers, and the upstream fixtures.
#include <gtest/gtest.h>

#include "api/apps/apps.h"
#include "api/apps/pod_template.h"
#include "api/apps/workload_util.h"
#include "api/apps/api_test_env.h"
#include "api/apps/fixture_util.h"
#include "apimachinery/object_meta.h"

namespace capstan::api::apps {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using testing::ApiTestEnv;
using testing::Parse;

Object Deployment(const std::string& name, int replicas, const std::string& image = "nginx") {
  return Parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":")" + name +
               R"("},"spec":{"replicas":)" + std::to_string(replicas) +
               R"(,"selector":{"matchLabels":{"app":")" + name + R"("}},"template":{"metadata":{"labels":{"app":")" +
               name + R"("}},"spec":{"containers":[{"name":"c","image":")" + image + R"("}]}}}})");
}

const json::value& At(const Object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = nullptr;
  const json::object* cur = &o;
  for (auto k : path) {
    v = &cur->at(k);
    if (v->is_object()) cur = &v->get_object();
  }
  return *v;
}

class AppsTest : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
};

TEST_F(AppsTest, DeploymentCreateAppliesKubesDefaults) {
  auto d = env_.Create("deployments", Deployment("web", 2));
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(am::GetGeneration(*d), 1);
  EXPECT_EQ(At(*d, {"spec", "replicas"}).as_int64(), 2);
  EXPECT_EQ(At(*d, {"spec", "strategy", "type"}).as_string(), "RollingUpdate");
  EXPECT_EQ(At(*d, {"spec", "strategy", "rollingUpdate", "maxSurge"}).as_string(), "25%");
  EXPECT_EQ(At(*d, {"spec", "strategy", "rollingUpdate", "maxUnavailable"}).as_string(), "25%");
  EXPECT_EQ(At(*d, {"spec", "revisionHistoryLimit"}).as_int64(), 10);
  EXPECT_EQ(At(*d, {"spec", "progressDeadlineSeconds"}).as_int64(), 600);
  const Object& pod = At(*d, {"spec", "template", "spec"}).as_object();
  EXPECT_EQ(pod.at("restartPolicy").as_string(), "Always");
  EXPECT_EQ(pod.at("dnsPolicy").as_string(), "ClusterFirst");
  EXPECT_EQ(pod.at("schedulerName").as_string(), "default-scheduler");
  EXPECT_EQ(pod.at("terminationGracePeriodSeconds").as_int64(), 30);
  EXPECT_TRUE(pod.at("securityContext").as_object().empty());
  const Object& c = pod.at("containers").as_array()[0].as_object();
  EXPECT_EQ(c.at("imagePullPolicy").as_string(), "Always");
  EXPECT_EQ(c.at("terminationMessagePath").as_string(), "/dev/termination-log");
  EXPECT_EQ(c.at("terminationMessagePolicy").as_string(), "File");
  // Whatever status the client sent is dropped.
  Object with_status = Deployment("web2", 1, "nginx:1.25");
  with_status["status"] = Parse(R"({"replicas":7})");
  auto d2 = env_.Create("deployments", with_status);
  ASSERT_TRUE(d2.ok()) << d2.status().message();
  EXPECT_FALSE(d2->contains("status") && d2->at("status").as_object().contains("replicas"));
  EXPECT_EQ(At(*d2, {"spec", "template", "spec", "containers"}).as_array()[0].at("imagePullPolicy").as_string(),
            "IfNotPresent");
}

TEST(PullPolicyTest, LatestOrUntaggedIsAlways) {
  EXPECT_EQ(DefaultPullPolicy("nginx"), "Always");
  EXPECT_EQ(DefaultPullPolicy("nginx:latest"), "Always");
  EXPECT_EQ(DefaultPullPolicy("registry:5000/nginx"), "Always");
  EXPECT_EQ(DefaultPullPolicy("registry:5000/nginx:1.2"), "IfNotPresent");
  EXPECT_EQ(DefaultPullPolicy("nginx@sha256:abc"), "IfNotPresent");
  EXPECT_EQ(DefaultPullPolicy("nginx:1.25"), "IfNotPresent");
}

TEST_F(AppsTest, SelectorMustMatchTemplateLabels) {
  Object d = Deployment("web", 1);
  d["spec"].as_object()["template"].as_object()["metadata"].as_object()["labels"] = Parse(R"({"app":"other"})");
  auto r = env_.Create("deployments", d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 422);
  EXPECT_EQ(r.status().message(),
            "Deployment.apps \"web\" is invalid: spec.template.metadata.labels: Invalid value: "
            "map[string]string{\"app\":\"other\"}: `selector` does not match template `labels`");
}

TEST_F(AppsTest, SelectorIsRequired) {
  Object d = Deployment("web", 1);
  d["spec"].as_object().erase("selector");
  auto r = env_.Create("deployments", d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Deployment.apps \"web\" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid "
            "value: map[string]string{\"app\":\"web\"}: `selector` does not match template `labels`]");
}

TEST_F(AppsTest, NegativeReplicasAndBadStrategy) {
  Object d = Deployment("web", -1);
  d["spec"].as_object()["strategy"] = Parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":0,"maxSurge":0}})");
  auto r = env_.Create("deployments", d);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Deployment.apps \"web\" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, "
            "spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, "
            "StrVal:\"\"}: may not be 0 when `maxSurge` is 0]");

  Object recreate = Deployment("rec", 1);
  recreate["spec"].as_object()["strategy"] = Parse(R"({"type":"Recreate","rollingUpdate":{"maxSurge":1}})");
  auto r2 = env_.Create("deployments", recreate);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().message(),
            "Deployment.apps \"rec\" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when "
            "strategy `type` is 'Recreate'");

  Object pct = Deployment("pct", 1);
  pct["spec"].as_object()["strategy"] = Parse(R"({"rollingUpdate":{"maxSurge":"abc"}})");
  auto r3 = env_.Create("deployments", pct);
  ASSERT_FALSE(r3.ok());
  EXPECT_EQ(r3.status().message(),
            "Deployment.apps \"pct\" is invalid: spec.strategy.rollingUpdate.maxSurge: Invalid value: "
            "intstr.IntOrString{Type:1, IntVal:0, StrVal:\"abc\"}: a valid percent string must be a numeric string "
            "followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
}

TEST_F(AppsTest, PodTemplateMistakes) {
  Object d = Deployment("web", 1);
  auto& pod = d["spec"].as_object()["template"].as_object()["spec"].as_object();
  pod["containers"] = Parse(R"({"a":[{"name":"Bad_Name"},{"name":"x","image":"i","ports":[{"containerPort":70000}]}]})")["a"];
  pod["restartPolicy"] = "Never";
  auto r = env_.Create("deployments", d);
  ASSERT_FALSE(r.ok());
  std::string m = r.status().message();
  EXPECT_NE(m.find("spec.template.spec.containers[0].name: Invalid value: \"Bad_Name\": a lowercase RFC 1123 label"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("spec.template.spec.containers[0].image: Required value"), std::string::npos) << m;
  EXPECT_NE(m.find("spec.template.spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 "
                   "and 65535, inclusive"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""),
            std::string::npos)
      << m;

  Object empty = Deployment("empty", 1);
  empty["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"] = json::array();
  auto r2 = env_.Create("deployments", empty);
  ASSERT_FALSE(r2.ok());
  EXPECT_EQ(r2.status().message(), "Deployment.apps \"empty\" is invalid: spec.template.spec.containers: Required value");
}

TEST_F(AppsTest, SelectorIsImmutableAndGenerationTracksSpecAndAnnotations) {
  ASSERT_TRUE(env_.Create("deployments", Deployment("web", 1)).ok());
  auto scaled = env_.Mutate("deployments", "web", [](Object& o) { o["spec"].as_object()["replicas"] = 3; });
  ASSERT_TRUE(scaled.ok()) << scaled.status().message();
  EXPECT_EQ(am::GetGeneration(scaled->object), 2);
  auto labelled = env_.Mutate("deployments", "web", [](Object& o) { am::SetLabel(o, "team", "a"); });
  ASSERT_TRUE(labelled.ok());
  EXPECT_EQ(am::GetGeneration(labelled->object), 2);
  auto annotated = env_.Mutate("deployments", "web", [](Object& o) { am::SetAnnotation(o, "note", "x"); });
  ASSERT_TRUE(annotated.ok());
  EXPECT_EQ(am::GetGeneration(annotated->object), 3);
  auto r = env_.Mutate("deployments", "web", [](Object& o) {
    auto& spec = o["spec"].as_object();
    spec["selector"] = Parse(R"({"matchLabels":{"app":"web2"}})");
    spec["template"].as_object()["metadata"].as_object()["labels"] = Parse(R"({"app":"web2"})");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "Deployment.apps \"web\" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]"
            "string{\"app\":\"web2\"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable");
}

TEST_F(AppsTest, StatusSubresourceChangesOnlyStatus) {
  ASSERT_TRUE(env_.Create("deployments", Deployment("web", 2)).ok());
  auto r = env_.Mutate(
      "deployments", "web",
      [](Object& o) {
        o["status"] = Parse(R"({"replicas":2,"readyReplicas":1,"updatedReplicas":2,"availableReplicas":1})");
        o["spec"].as_object()["replicas"] = 9;
        am::SetLabel(o, "sneaky", "yes");
      },
      "status");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(At(r->object, {"status", "readyReplicas"}).as_int64(), 1);
  EXPECT_EQ(At(r->object, {"spec", "replicas"}).as_int64(), 2);
  EXPECT_FALSE(am::GetLabel(r->object, "sneaky").has_value());
  EXPECT_EQ(am::GetGeneration(r->object), 1);
  // The main resource keeps the status.
  auto upd = env_.Mutate("deployments", "web", [](Object& o) { o["status"] = Parse(R"({"replicas":0})"); });
  ASSERT_TRUE(upd.ok());
  EXPECT_EQ(At(upd->object, {"status", "readyReplicas"}).as_int64(), 1);

  auto bad = env_.Mutate(
      "deployments", "web", [](Object& o) { o["status"] = Parse(R"({"replicas":1,"readyReplicas":3})"); }, "status");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "Deployment.apps \"web\" is invalid: status.readyReplicas: Invalid value: 3: cannot be greater than "
            "status.replicas");
}

TEST_F(AppsTest, DeploymentPrinter) {
  auto d = env_.Create("deployments", Deployment("web", 2));
  ASSERT_TRUE(d.ok());
  auto cols = env_.Columns("deployments");
  std::vector<std::string> names;
  for (const auto& c : cols) names.push_back(c.name + (c.priority ? "*" : ""));
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Ready", "Up-to-date", "Available", "Age", "Containers*", "Images*",
                                             "Selector*"}));
  auto cells = env_.Cells("deployments", *d);
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cells[0].as_string(), "web");
  EXPECT_EQ(cells[1].as_string(), "0/2");
  EXPECT_EQ(cells[2].as_int64(), 0);
  EXPECT_EQ(cells[3].as_int64(), 0);
  EXPECT_EQ(cells[5].as_string(), "c");
  EXPECT_EQ(cells[6].as_string(), "nginx");
  EXPECT_EQ(cells[7].as_string(), "app=web");
}

TEST_F(AppsTest, ScaleSubresource) {
  ASSERT_TRUE(env_.Create("deployments", Deployment("web", 2)).ok());
  auto scale = env_.Get("deployments", "web", "scale");
  ASSERT_TRUE(scale.ok()) << scale.status().message();
  EXPECT_EQ(am::GetApiVersion(*scale), "autoscaling/v1");
  EXPECT_EQ(am::GetKind(*scale), "Scale");
  EXPECT_EQ(At(*scale, {"spec", "replicas"}).as_int64(), 2);
  EXPECT_EQ(At(*scale, {"status", "selector"}).as_string(), "app=web");
  auto r = env_.Mutate("deployments", "web", [](Object& s) { s["spec"].as_object()["replicas"] = 5; }, "scale");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(At(r->object, {"spec", "replicas"}).as_int64(), 5);
  auto d = env_.Get("deployments", "web");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(At(*d, {"spec", "replicas"}).as_int64(), 5);
  EXPECT_EQ(am::GetGeneration(*d), 2);
  auto bad = env_.Mutate("deployments", "web", [](Object& s) { s["spec"].as_object()["replicas"] = -1; }, "scale");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0");
  EXPECT_NE(env_.Find("replicasets", "scale"), nullptr);
  EXPECT_NE(env_.Find("statefulsets", "scale"), nullptr);
  EXPECT_EQ(env_.Find("daemonsets", "scale"), nullptr);  // kube has none
}

TEST_F(AppsTest, DiscoveryNamesAndCategories) {
  const auto* d = env_.Find("deployments");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->info.short_names, std::vector<std::string>{"deploy"});
  EXPECT_EQ(d->info.categories, std::vector<std::string>{"all"});
  EXPECT_EQ(env_.Find("replicasets")->info.short_names, std::vector<std::string>{"rs"});
  EXPECT_EQ(env_.Find("statefulsets")->info.short_names, std::vector<std::string>{"sts"});
  EXPECT_EQ(env_.Find("daemonsets")->info.short_names, std::vector<std::string>{"ds"});
  EXPECT_TRUE(env_.Find("controllerrevisions")->info.categories.empty());
  EXPECT_NE(env_.Find("deployments", "status"), nullptr);
  EXPECT_NE(env_.Find("daemonsets", "status"), nullptr);
  EXPECT_EQ(env_.Find("controllerrevisions", "status"), nullptr);
}

Object ReplicaSet(const std::string& name) {
  return Parse(R"({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":")" + name +
               R"("},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},)"
               R"("spec":{"containers":[{"name":"c","image":"busybox"}]}}}})");
}

TEST_F(AppsTest, ReplicaSetDefaultsValidationPrinterAndFieldSelector) {
  auto rs = env_.Create("replicasets", ReplicaSet("rs1"));
  ASSERT_TRUE(rs.ok()) << rs.status().message();
  EXPECT_EQ(At(*rs, {"spec", "replicas"}).as_int64(), 1);
  auto cells = env_.Cells("replicasets", *rs);
  ASSERT_EQ(cells.size(), 8u);
  EXPECT_EQ(cells[1].as_int64(), 1);
  EXPECT_EQ(cells[2].as_int64(), 0);
  EXPECT_EQ(cells[7].as_string(), "app=x");
  Object empty = ReplicaSet("rs2");
  empty["spec"].as_object()["selector"] = json::object();
  auto r = env_.Create("replicasets", empty);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "ReplicaSet.apps \"rs2\" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]"
            "string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment");
  // apps/v1 has no field label conversion of its own: kube's default one refuses status.replicas.
  registry::ListOptions lo;
  lo.field_selector = "status.replicas=0";
  auto refused = SyncWait(env_.As<registry::Lister>("replicasets")->List(env_.Ctx(), lo));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().message(),
            R"("status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace")");
  lo.field_selector = "metadata.name=rs1";
  auto list = SyncWait(env_.As<registry::Lister>("replicasets")->List(env_.Ctx(), lo));
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_EQ(list->items.size(), 1u);
}

Object StatefulSet(const std::string& name) {
  return Parse(R"({"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":")" + name +
               R"("},"spec":{"serviceName":"svc","selector":{"matchLabels":{"app":"db"}},"template":{"metadata":{"labels":)"
               R"({"app":"db"}},"spec":{"containers":[{"name":"c","image":"postgres"}]}},)"
               R"("volumeClaimTemplates":[{"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"]}}]}})");
}

TEST_F(AppsTest, StatefulSetDefaultsAndMutableFields) {
  auto ss = env_.Create("statefulsets", StatefulSet("db"));
  ASSERT_TRUE(ss.ok()) << ss.status().message();
  EXPECT_EQ(At(*ss, {"spec", "podManagementPolicy"}).as_string(), "OrderedReady");
  EXPECT_EQ(At(*ss, {"spec", "updateStrategy", "type"}).as_string(), "RollingUpdate");
  EXPECT_EQ(At(*ss, {"spec", "updateStrategy", "rollingUpdate", "partition"}).as_int64(), 0);
  EXPECT_EQ(At(*ss, {"spec", "persistentVolumeClaimRetentionPolicy", "whenDeleted"}).as_string(), "Retain");
  EXPECT_EQ(At(*ss, {"spec", "replicas"}).as_int64(), 1);
  EXPECT_EQ(At(*ss, {"spec", "revisionHistoryLimit"}).as_int64(), 10);
  const Object& claim = At(*ss, {"spec", "volumeClaimTemplates"}).as_array()[0].as_object();
  EXPECT_EQ(At(claim, {"spec", "volumeMode"}).as_string(), "Filesystem");
  EXPECT_EQ(At(claim, {"status", "phase"}).as_string(), "Pending");
  auto cells = env_.Cells("statefulsets", *ss);
  ASSERT_EQ(cells.size(), 5u);
  EXPECT_EQ(cells[1].as_string(), "0/1");

  auto ok = env_.Mutate("statefulsets", "db", [](Object& o) { o["spec"].as_object()["replicas"] = 3; });
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(am::GetGeneration(ok->object), 2);
  auto bad = env_.Mutate("statefulsets", "db", [](Object& o) { o["spec"].as_object()["serviceName"] = "other"; });
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "StatefulSet.apps \"db\" is invalid: spec: Forbidden: updates to statefulset spec for fields other than "
            "'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and "
            "'minReadySeconds' are forbidden");
  // StatefulSet names are DNS labels.
  auto dotted = env_.Create("statefulsets", StatefulSet("a.b"));
  ASSERT_FALSE(dotted.ok());
  EXPECT_NE(dotted.status().message().find("metadata.name: Invalid value: \"a.b\""), std::string::npos);
}

Object DaemonSet(const std::string& name) {
  return Parse(R"({"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":")" + name +
               R"("},"spec":{"selector":{"matchLabels":{"app":"agent"}},"template":{"metadata":{"labels":{"app":"agent"}},)"
               R"("spec":{"nodeSelector":{"disk":"ssd"},"containers":[{"name":"c","image":"agent:1"}]}}}})");
}

TEST_F(AppsTest, DaemonSetDefaultsTemplateGenerationAndPrinter) {
  auto ds = env_.Create("daemonsets", DaemonSet("agent"));
  ASSERT_TRUE(ds.ok()) << ds.status().message();
  EXPECT_EQ(At(*ds, {"spec", "updateStrategy", "rollingUpdate", "maxUnavailable"}).as_int64(), 1);
  EXPECT_EQ(At(*ds, {"spec", "updateStrategy", "rollingUpdate", "maxSurge"}).as_int64(), 0);
  EXPECT_EQ(At(*ds, {"spec", "revisionHistoryLimit"}).as_int64(), 10);
  EXPECT_EQ(am::GetAnnotations(*ds), (am::StringPairs{{"deprecated.daemonset.template.generation", "1"}}));
  auto upd = env_.Mutate("daemonsets", "agent", [](Object& o) {
    o["spec"].as_object()["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object()["image"] =
        "agent:2";
  });
  ASSERT_TRUE(upd.ok()) << upd.status().message();
  EXPECT_EQ(am::GetAnnotations(upd->object), (am::StringPairs{{"deprecated.daemonset.template.generation", "2"}}));
  EXPECT_EQ(am::GetGeneration(upd->object), 2);
  auto cells = env_.Cells("daemonsets", upd->object);
  ASSERT_EQ(cells.size(), 11u);
  EXPECT_EQ(cells[6].as_string(), "disk=ssd");
  EXPECT_EQ(cells[10].as_string(), "app=agent");

  Object both = DaemonSet("both");
  both["spec"].as_object()["updateStrategy"] = Parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":1,"maxSurge":1}})");
  auto r = env_.Create("daemonsets", both);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "DaemonSet.apps \"both\" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "
            "intstr.IntOrString{Type:0, IntVal:1, StrVal:\"\"}: may not be set when maxUnavailable is non-zero");
}

TEST_F(AppsTest, ControllerRevisionRules) {
  Object cr = Parse(R"({"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"web-1",)"
                    R"("ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"web","uid":"u1","controller":true}]},)"
                    R"("data":{"spec":{"x":1}},"revision":1})");
  auto created = env_.Create("controllerrevisions", cr);
  ASSERT_TRUE(created.ok()) << created.status().message();
  auto cells = env_.Cells("controllerrevisions", *created);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[1].as_string(), "statefulset.apps/web");
  EXPECT_EQ(cells[2].as_int64(), 1);
  auto changed = env_.Mutate("controllerrevisions", "web-1", [](Object& o) { o["data"] = Parse(R"({"spec":{"x":2}})"); });
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("data: Invalid value: "), std::string::npos);
  EXPECT_NE(changed.status().message().find(": field is immutable"), std::string::npos);
  Object nodata = cr;
  nodata.erase("data");
  am::SetName(nodata, "web-2");
  auto r = env_.Create("controllerrevisions", nodata);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "ControllerRevision.apps \"web-2\" is invalid: data: Required value: data is mandatory");
}

// --- the upstream fixtures: accepted and returned without losing fields ---

const std::vector<std::string> kServerOwned = {"metadata.uid", "metadata.resourceVersion", "metadata.creationTimestamp",
                                               "metadata.generation", "status"};

void CheckFixture(ApiTestEnv& env, const std::string& fixture, const std::string& resource,
                  const std::function<void(Object&)>& sanitize, const std::function<void(Object&)>& sanitize_status) {
  auto f = testing::LoadFixture(fixture);
  if (!f) GTEST_SKIP() << "fixture " << fixture << " not found";
  Object obj = *f;
  testing::SanitizeMetadata(obj);
  sanitize(obj);
  Object status = obj.contains("status") && obj["status"].is_object() ? obj["status"].as_object() : Object();
  auto created = env.Create(resource, obj);
  ASSERT_TRUE(created.ok()) << fixture << ": " << created.status().message();
  testing::ExpectNothingLost(obj, *created, kServerOwned);
  auto got = env.Get(resource, "fixture");
  ASSERT_TRUE(got.ok());
  testing::ExpectNothingLost(obj, *got, kServerOwned);
  if (status.empty() || !env.Find(resource, "status")) return;
  sanitize_status(status);
  auto st = env.Mutate(resource, "fixture", [&](Object& o) { o["status"] = status; }, "status");
  ASSERT_TRUE(st.ok()) << fixture << " status: " << st.status().message();
  testing::ExpectNothingLost(status, st->object.at("status"), {});
}

void SanitizeWorkload(Object& obj, const std::string& restart, bool keep_active_deadline) {
  auto& spec = obj["spec"].as_object();
  testing::SanitizeSelector(spec["selector"].as_object());
  testing::SanitizePodTemplate(spec["template"].as_object(), restart, keep_active_deadline, &spec["selector"].as_object());
}

TEST_F(AppsTest, DeploymentFixture) {
  CheckFixture(
      env_, "apps.v1.Deployment", "deployments",
      [](Object& o) {
        SanitizeWorkload(o, "Always", false);
        auto& spec = o["spec"].as_object();
        spec["strategy"] = Parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%","maxSurge":1}})");
        spec["progressDeadlineSeconds"] = 600;
      },
      [](Object& s) {
        s["replicas"] = 20;
        s["availableReplicas"] = 4;
        s["readyReplicas"] = 7;
      });
}

TEST_F(AppsTest, ReplicaSetFixture) {
  CheckFixture(
      env_, "apps.v1.ReplicaSet", "replicasets", [](Object& o) { SanitizeWorkload(o, "Always", false); },
      [](Object& s) {
        s["replicas"] = 20;
        s["readyReplicas"] = 10;
      });
}

TEST_F(AppsTest, StatefulSetFixture) {
  CheckFixture(
      env_, "apps.v1.StatefulSet", "statefulsets",
      [](Object& o) {
        SanitizeWorkload(o, "Always", false);
        auto& spec = o["spec"].as_object();
        spec["podManagementPolicy"] = "Parallel";
        spec["updateStrategy"] = Parse(R"({"type":"RollingUpdate","rollingUpdate":{"partition":1,"maxUnavailable":"50%"}})");
        spec["persistentVolumeClaimRetentionPolicy"] = Parse(R"({"whenDeleted":"Delete","whenScaled":"Retain"})");
      },
      [](Object& s) {
        s["replicas"] = 20;
        s["readyReplicas"] = 15;
      });
}

TEST_F(AppsTest, DaemonSetFixture) {
  CheckFixture(
      env_, "apps.v1.DaemonSet", "daemonsets",
      [](Object& o) {
        SanitizeWorkload(o, "Always", false);
        o["spec"].as_object()["updateStrategy"] = Parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"10%","maxSurge":0}})");
      },
      [](Object&) {});
}

TEST_F(AppsTest, ControllerRevisionFixture) {
  CheckFixture(env_, "apps.v1.ControllerRevision", "controllerrevisions", [](Object&) {}, [](Object&) {});
}

}  // namespace
}  // namespace capstan::api::apps
