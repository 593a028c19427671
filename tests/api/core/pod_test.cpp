// Pods: kube's defaults, validation messages, the update rule, status, QoS, printer, field selectors,
// binding, eviction, ephemeral containers and the streaming subresources without nodes.
#include <gtest/gtest.h>

#include "api/core/pod_defaults.h"
#include "apimachinery/errors.h"
#include "util/strings.h"
#include "core_test_util.h"

namespace capstan::api::core::testing {
namespace {

Object RunPod(const std::string& name = "nginx", const std::string& image = "nginx") {
  return Parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
               R"(","labels":{"run":")" + name + R"("}},"spec":{"containers":[{"name":")" + name + R"(","image":")" + image +
               R"("}]}})");
}

class PodTest : public ::testing::Test {
 protected:
  PodTest() : store_(::testing::UnitTest::GetInstance()->current_test_info()->name()), api_(store_.objects()) {}
  TestStore store_;
  CoreApi api_;
};

TEST_F(PodTest, KubectlRunGetsKubeDefaults) {
  auto p = api_.Create("pods", RunPod());
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Str(*p, {"spec", "restartPolicy"}), "Always");
  EXPECT_EQ(Str(*p, {"spec", "dnsPolicy"}), "ClusterFirst");
  EXPECT_EQ(Str(*p, {"spec", "schedulerName"}), "default-scheduler");
  EXPECT_EQ(At(*p, {"spec", "terminationGracePeriodSeconds"})->as_int64(), 30);
  EXPECT_EQ(*At(*p, {"spec", "securityContext"}), json::object());
  EXPECT_EQ(*At(*p, {"spec", "enableServiceLinks"}), true);
  const auto& c = At(*p, {"spec", "containers"})->as_array()[0].as_object();
  EXPECT_EQ(c.at("imagePullPolicy"), "Always");
  EXPECT_EQ(c.at("terminationMessagePath"), "/dev/termination-log");
  EXPECT_EQ(c.at("terminationMessagePolicy"), "File");
  EXPECT_EQ(c.at("resources"), json::object());
  EXPECT_EQ(*At(*p, {"status"}), Parse(R"({"phase":"Pending","qosClass":"BestEffort"})"));
  EXPECT_FALSE(At(*p, {"metadata", "generation"}));  // pods have no generation in 1.32
}

TEST_F(PodTest, PullPolicyFollowsTheImageTag) {
  EXPECT_EQ(DefaultPullPolicy("nginx"), "Always");
  EXPECT_EQ(DefaultPullPolicy("nginx:latest"), "Always");
  EXPECT_EQ(DefaultPullPolicy("nginx:1.27"), "IfNotPresent");
  EXPECT_EQ(DefaultPullPolicy("localhost:5000/app"), "Always");
  EXPECT_EQ(DefaultPullPolicy("localhost:5000/app:v1"), "IfNotPresent");
  EXPECT_EQ(DefaultPullPolicy("nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"),
            "IfNotPresent");
  EXPECT_EQ(DefaultPullPolicy("Nginx"), "IfNotPresent");  // not a valid reference: no tag
}

TEST_F(PodTest, ProbeAndPortDefaults) {
  auto pod = RunPod();
  auto& c = pod["spec"].as_object()["containers"].as_array()[0].as_object();
  c["ports"] = json::array{json::object{{"containerPort", 80}}};
  c["livenessProbe"] = Parse(R"({"httpGet":{"port":80}})");
  pod["spec"].as_object()["volumes"] = json::array{json::object{{"name", "v"}}, Parse(R"({"name":"s","secret":{"secretName":"x"}})")};
  auto p = api_.Create("pods", pod);
  ASSERT_TRUE(p.ok()) << p.status().message();
  const auto& got = At(*p, {"spec", "containers"})->as_array()[0].as_object();
  EXPECT_EQ(got.at("ports").as_array()[0].as_object().at("protocol"), "TCP");
  EXPECT_EQ(got.at("livenessProbe"),
            Parse(R"({"httpGet":{"port":80,"path":"/","scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3})"));
  const auto& vols = At(*p, {"spec", "volumes"})->as_array();
  EXPECT_EQ(vols[0].as_object().at("emptyDir"), json::object());
  EXPECT_EQ(vols[1].as_object().at("secret").as_object().at("defaultMode"), 420);
}

TEST_F(PodTest, RequestsDefaultToLimitsAndQos) {
  auto pod = RunPod();
  auto& c = pod["spec"].as_object()["containers"].as_array()[0].as_object();
  c["resources"] = Parse(R"({"limits":{"cpu":"500m","memory":"128Mi"}})");
  auto p = api_.Create("pods", pod);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(*At(*p, {"spec", "containers"})->as_array()[0].as_object().at("resources").as_object().if_contains("requests"),
            Parse(R"({"cpu":"500m","memory":"128Mi"})"));
  EXPECT_EQ(Str(*p, {"status", "qosClass"}), "Guaranteed");
  auto burst = RunPod("b");
  burst["spec"].as_object()["containers"].as_array()[0].as_object()["resources"] = Parse(R"({"requests":{"cpu":"100m"}})");
  auto b = api_.Create("pods", burst);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(Str(*b, {"status", "qosClass"}), "Burstable");
}

TEST_F(PodTest, QuantitiesAreCanonicalAndBadOnesAreDecodeErrors) {
  auto pod = RunPod();
  pod["spec"].as_object()["containers"].as_array()[0].as_object()["resources"] =
      Parse(R"({"requests":{"memory":"1024Mi","cpu":"0.5"}})");
  auto p = api_.Create("pods", pod);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(*At(*p, {"spec", "containers"})->as_array()[0].as_object().at("resources").as_object().if_contains("requests"),
            Parse(R"({"memory":"1Gi","cpu":"500m"})"));
  auto bad = RunPod("bad");
  bad["spec"].as_object()["containers"].as_array()[0].as_object()["resources"] = Parse(R"({"requests":{"cpu":"lots"}})");
  auto r = api_.Create("pods", bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 400);
  EXPECT_EQ(r.status().message(),
            "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular expression "
            "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

TEST_F(PodTest, ValidationMessagesAreKubes) {
  auto empty = Parse(R"({"metadata":{"name":"x"},"spec":{}})");
  auto r = api_.Create("pods", empty);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 422);
  EXPECT_EQ(r.status().message(), "Pod \"x\" is invalid: spec.containers: Required value");

  auto pod = Parse(R"({"metadata":{"name":"x"},"spec":{"restartPolicy":"Sometimes","containers":[
      {"name":"Web","image":""},{"name":"a","image":"i","ports":[{"containerPort":70000,"protocol":"ICMP"}]},
      {"name":"a","image":"i","resources":{"requests":{"cpu":"2"},"limits":{"cpu":"1"}},
       "volumeMounts":[{"name":"missing","mountPath":"/m"}]}]}})");
  r = api_.Create("pods", pod);
  ASSERT_FALSE(r.ok());
  auto causes = Causes(r.status());
  auto has = [&](const std::string& s) { return std::find(causes.begin(), causes.end(), s) != causes.end(); };
  EXPECT_TRUE(has("spec.containers[0].name: Invalid value: \"Web\": a lowercase RFC 1123 label must consist of lower case "
                  "alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  "
                  "or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"))
      << Join(causes, "\n");
  EXPECT_TRUE(has("spec.containers[0].image: Required value")) << Join(causes, "\n");
  EXPECT_TRUE(has("spec.containers[1].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive"));
  EXPECT_TRUE(has("spec.containers[1].ports[0].protocol: Unsupported value: \"ICMP\": supported values: \"SCTP\", \"TCP\", \"UDP\""));
  EXPECT_TRUE(has("spec.containers[2].name: Duplicate value: \"a\""));
  EXPECT_TRUE(has("spec.containers[2].resources.requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1"));
  EXPECT_TRUE(has("spec.containers[2].volumeMounts[0].name: Not found: \"missing\""));
  EXPECT_TRUE(has("spec.restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"OnFailure\", \"Never\""));
}

TEST_F(PodTest, VolumesNeedOneSource) {
  auto pod = RunPod();
  pod["spec"].as_object()["volumes"] =
      ParseArray(R"([{"name":"a","emptyDir":{},"hostPath":{"path":"/x"}},{"name":"b","secret":{}}])");
  auto r = api_.Create("pods", pod);
  ASSERT_FALSE(r.ok());
  auto causes = Causes(r.status());
  EXPECT_EQ(causes, (std::vector<std::string>{"spec.volumes[0].hostPath: Forbidden: may not specify more than 1 volume type",
                                              "spec.volumes[1].secret.secretName: Required value"}));
}

TEST_F(PodTest, UpdatesMayChangeOnlyImagesAndFriends) {
  ASSERT_TRUE(api_.Create("pods", RunPod()).ok());
  auto img = api_.Modify("pods", "nginx", [](Object& p) {
    p["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "nginx:1.27";
  });
  ASSERT_TRUE(img.ok()) << img.status().message();
  EXPECT_EQ(At(*img, {"spec", "containers"})->as_array()[0].as_object().at("image"), "nginx:1.27");
  auto port = api_.Modify("pods", "nginx", [](Object& p) {
    p["spec"].as_object()["containers"].as_array()[0].as_object()["ports"] = json::array{json::object{{"containerPort", 80}}};
  });
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.status().code(), 422);
  ASSERT_EQ(port.status().details().causes.size(), 1u);
  EXPECT_EQ(port.status().details().causes[0].field, "spec");
  EXPECT_TRUE(StartsWith(port.status().details().causes[0].message,
                         "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
                         "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
                         "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
                         "previously negative)\n"))
      << port.status().details().causes[0].message;
  // Status written through the main resource is ignored; through pods/status it is kept.
  auto main = api_.Modify("pods", "nginx", [](Object& p) { p["status"].as_object()["phase"] = "Running"; });
  ASSERT_TRUE(main.ok());
  EXPECT_EQ(Str(*main, {"status", "phase"}), "Pending");
  auto st = api_.Modify("pods/status", "nginx", [](Object& p) {
    p["status"].as_object()["phase"] = "Running";
    p["spec"].as_object()["nodeName"] = "sneaky";
  });
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(Str(*st, {"status", "phase"}), "Running");
  EXPECT_EQ(Str(*st, {"spec", "nodeName"}), "");
}

TEST_F(PodTest, PrinterMatchesKube) {
  ASSERT_TRUE(api_.Create("pods", RunPod()).ok());
  auto* t = api_.As<registry::TableConvertor>("pods");
  std::vector<std::string> names;
  std::vector<int> priorities;
  for (const auto& c : t->TableColumns()) {
    names.push_back(c.name);
    priorities.push_back(c.priority);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Ready", "Status", "Restarts", "Age", "IP", "Node", "Nominated Node",
                                             "Readiness Gates"}));
  EXPECT_EQ(priorities, (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 1}));
  auto pod = api_.GetObj("pods", "nginx");
  auto cells = t->TableCells(*pod);
  ASSERT_EQ(cells.size(), 9u);
  EXPECT_EQ(cells[0], "nginx");
  EXPECT_EQ(cells[1], "0/1");
  EXPECT_EQ(cells[2], "Pending");
  EXPECT_EQ(cells[3], "0");
  EXPECT_EQ(cells[5], "<none>");
  EXPECT_EQ(cells[6], "<none>");
  auto running = *pod;
  running["spec"].as_object()["nodeName"] = "n1";
  running["status"] = Parse(R"({"phase":"Running","podIPs":[{"ip":"10.1.0.5"}],"containerStatuses":[
      {"name":"nginx","ready":true,"restartCount":2,"state":{"running":{}}}]})");
  cells = t->TableCells(running);
  EXPECT_EQ(cells[1], "1/1");
  EXPECT_EQ(cells[2], "Running");
  EXPECT_EQ(cells[3], "2");
  EXPECT_EQ(cells[5], "10.1.0.5");
  EXPECT_EQ(cells[6], "n1");
  running["status"].as_object()["containerStatuses"].as_array()[0].as_object()["state"] =
      Parse(R"({"waiting":{"reason":"CrashLoopBackOff"}})");
  running["status"].as_object()["containerStatuses"].as_array()[0].as_object()["ready"] = false;
  EXPECT_EQ(t->TableCells(running)[2], "CrashLoopBackOff");
}

TEST_F(PodTest, FieldSelectors) {
  ASSERT_TRUE(api_.Create("pods", RunPod("a")).ok());
  ASSERT_TRUE(api_.CreateOn("pods/binding", "a", Parse(R"({"metadata":{"name":"a"},"target":{"kind":"Node","name":"n1"}})")).ok());
  ASSERT_TRUE(api_.Create("pods", RunPod("b")).ok());
  auto l = api_.List("pods", "spec.nodeName=n1");
  ASSERT_TRUE(l.ok()) << l.status().message();
  ASSERT_EQ(l->items.size(), 1u);
  EXPECT_EQ(Str(l->items[0], {"metadata", "name"}), "a");
  l = api_.List("pods", "spec.nodeName=,status.phase=Pending,spec.restartPolicy=Always,spec.hostNetwork=false");
  ASSERT_TRUE(l.ok()) << l.status().message();
  ASSERT_EQ(l->items.size(), 1u);
  EXPECT_EQ(Str(l->items[0], {"metadata", "name"}), "b");
  auto bad = api_.List("pods", "spec.image=x");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), 400);
}

TEST_F(PodTest, BindingAssignsTheNodeOnce) {
  ASSERT_TRUE(api_.Create("pods", RunPod()).ok());
  auto r = api_.CreateOn("pods/binding", "nginx",
                         Parse(R"({"metadata":{"name":"nginx","annotations":{"a":"b"}},"target":{"kind":"Node","name":"n1"}})"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Str(*r, {"status"}), "Success");
  EXPECT_EQ(r->at("code"), 201);
  auto pod = api_.GetObj("pods", "nginx");
  EXPECT_EQ(Str(*pod, {"spec", "nodeName"}), "n1");
  EXPECT_EQ(Str(*pod, {"metadata", "annotations", "a"}), "b");
  const auto& cond = At(*pod, {"status", "conditions"})->as_array()[0].as_object();
  EXPECT_EQ(cond.at("type"), "PodScheduled");
  EXPECT_EQ(cond.at("status"), "True");
  auto again = api_.CreateOn("pods/binding", "nginx", Parse(R"({"metadata":{"name":"nginx"},"target":{"name":"n2"}})"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), 409);
  EXPECT_EQ(again.status().message(), "Operation cannot be fulfilled on pods/binding \"nginx\": pod nginx is already assigned to node \"n1\"");
  auto mismatch = api_.CreateOn("pods/binding", "nginx", Parse(R"({"metadata":{"name":"other"},"target":{"name":"n2"}})"));
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().message(), "name in URL does not match name in Binding object");
  auto no_target = api_.CreateOn("pods/binding", "nginx", Parse(R"({"metadata":{"name":"nginx"},"target":{}})"));
  ASSERT_FALSE(no_target.ok());
  EXPECT_EQ(no_target.status().code(), 500);
  EXPECT_EQ(no_target.status().message(), "target.name: Required value");
}

TEST_F(PodTest, StreamingSubresourcesWithoutANode) {
  ASSERT_TRUE(api_.Create("pods", RunPod()).ok());
  registry::ConnectRequest get;
  get.method = "GET";
  auto log = api_.Connect("pods/log", "nginx", get);
  ASSERT_TRUE(log.ok()) << log.status().message();
  EXPECT_EQ(log->code, 204);
  for (const char* sub : {"pods/exec", "pods/attach", "pods/portforward"}) {
    auto r = api_.Connect(sub, "nginx", get);
    ASSERT_FALSE(r.ok()) << sub;
    EXPECT_EQ(r.status().code(), 400);
    EXPECT_EQ(r.status().reason(), "BadRequest");
    EXPECT_EQ(r.status().message(), "pod nginx does not have a host assigned");
  }
  registry::ConnectRequest bad_container = get;
  bad_container.query = {{"container", "nope"}};
  auto r = api_.Connect("pods/exec", "nginx", bad_container);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "container nope is not valid for pod nginx");
  auto proxy = api_.Connect("pods/proxy", "nginx:80", get);
  ASSERT_FALSE(proxy.ok());
  EXPECT_EQ(proxy.status().message(), "address not allowed");
  auto missing = api_.Connect("pods/log", "ghost", get);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), 404);
  registry::ConnectRequest tail = get;
  tail.query = {{"tailLines", "-1"}};
  auto inv = api_.Connect("pods/log", "nginx", tail);
  ASSERT_FALSE(inv.ok());
  EXPECT_EQ(inv.status().message(), "PodLogOptions \"nginx\" is invalid: tailLines: Invalid value: -1: must be greater than or equal to 0");
  // Scheduled to a node that does not exist: kube's lookup of the node fails.
  ASSERT_TRUE(api_.CreateOn("pods/binding", "nginx", Parse(R"({"metadata":{"name":"nginx"},"target":{"name":"n9"}})")).ok());
  auto nonode = api_.Connect("pods/exec", "nginx", get);
  ASSERT_FALSE(nonode.ok());
  EXPECT_EQ(nonode.status().code(), 404);
  EXPECT_EQ(nonode.status().message(), "nodes \"n9\" not found");
}

TEST_F(PodTest, MultiContainerLogsNeedAContainer) {
  auto pod = Parse(R"({"metadata":{"name":"two"},"spec":{"containers":[{"name":"a","image":"i"},{"name":"b","image":"i"}]}})");
  ASSERT_TRUE(api_.Create("pods", pod).ok());
  registry::ConnectRequest get;
  get.method = "GET";
  auto r = api_.Connect("pods/log", "two", get);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "a container name must be specified for pod two, choose one of: [a b]");
}

TEST_F(PodTest, DeletionIsImmediateUnlessScheduled) {
  ASSERT_TRUE(api_.Create("pods", RunPod("a")).ok());
  auto d = api_.Delete("pods", "a");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_TRUE(d->deleted);
  EXPECT_EQ(Str(d->object, {"kind"}), "Pod");  // pods return the deleted object
  ASSERT_TRUE(api_.Create("pods", RunPod("b")).ok());
  ASSERT_TRUE(api_.CreateOn("pods/binding", "b", Parse(R"({"metadata":{"name":"b"},"target":{"name":"n1"}})")).ok());
  d = api_.Delete("pods", "b");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_FALSE(d->deleted);
  EXPECT_TRUE(At(d->object, {"metadata", "deletionTimestamp"}));
  EXPECT_EQ(At(d->object, {"metadata", "deletionGracePeriodSeconds"})->as_int64(), 30);
  auto cells = api_.As<registry::TableConvertor>("pods")->TableCells(d->object);
  EXPECT_EQ(cells[2], "Terminating");
}

TEST_F(PodTest, EvictionDeletesAPendingPod) {
  ASSERT_TRUE(api_.Create("pods", RunPod()).ok());
  auto r = api_.CreateOn("pods/eviction", "nginx",
                         Parse(R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"nginx"}})"));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Str(*r, {"status"}), "Success");
  EXPECT_EQ(api_.GetObj("pods", "nginx").status().code(), 404);
  auto missing = api_.CreateOn("pods/eviction", "nginx", Parse(R"({"metadata":{"name":"nginx"}})"));
  EXPECT_EQ(missing.status().code(), 404);
}

TEST_F(PodTest, EphemeralContainersMayOnlyBeAdded) {
  ASSERT_TRUE(api_.Create("pods", RunPod()).ok());
  auto add = api_.Modify("pods/ephemeralcontainers", "nginx", [](Object& p) {
    p["spec"].as_object()["ephemeralContainers"] =
        json::array{json::object{{"name", "debugger"}, {"image", "busybox"}, {"targetContainerName", "nginx"}}};
    p["spec"].as_object()["nodeName"] = "ignored";
  });
  ASSERT_TRUE(add.ok()) << add.status().message();
  const auto& ec = At(*add, {"spec", "ephemeralContainers"})->as_array()[0].as_object();
  EXPECT_EQ(ec.at("imagePullPolicy"), "Always");
  EXPECT_EQ(Str(*add, {"spec", "nodeName"}), "");
  auto remove = api_.Modify("pods/ephemeralcontainers", "nginx",
                            [](Object& p) { p["spec"].as_object()["ephemeralContainers"] = json::array(); });
  ASSERT_FALSE(remove.ok());
  EXPECT_EQ(Causes(remove.status())[0], "spec.ephemeralContainers: Forbidden: existing ephemeral containers \"debugger\" may not be removed\n");
  auto create = RunPod("x");
  create["spec"].as_object()["ephemeralContainers"] = json::array{json::object{{"name", "d"}, {"image", "busybox"}}};
  auto r = api_.Create("pods", create);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(Causes(r.status()).back(), "spec.ephemeralContainers: Forbidden: cannot be set on create");
}

}  // namespace
}  // namespace capstan::api::core::testing
