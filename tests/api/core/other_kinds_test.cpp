// Endpoints, nodes, persistent volumes and claims, replication controllers (and their scale
// subresource), pod templates, limit ranges and resource quotas: defaults, validation messages,
// update rules, status and printers.
#include <gtest/gtest.h>

#include "core_test_util.h"
#include "util/strings.h"

namespace capstan::api::core::testing {
namespace {

class KindsTest : public ::testing::Test {
 protected:
  KindsTest() : store_(::testing::UnitTest::GetInstance()->current_test_info()->name()), api_(store_.objects()) {}
  std::vector<std::string> ColumnNames(const std::string& res) {
    std::vector<std::string> out;
    for (const auto& c : api_.As<registry::TableConvertor>(res)->TableColumns()) out.push_back(c.name);
    return out;
  }
  json::array Cells(const std::string& res, const Object& o) { return api_.As<registry::TableConvertor>(res)->TableCells(o); }
  TestStore store_;
  CoreApi api_;
};

TEST_F(KindsTest, EndpointsDefaultsValidationAndPrinter) {
  auto ep = api_.Create("endpoints", Parse(R"({"metadata":{"name":"web"},"subsets":[{"addresses":[{"ip":"10.1.0.1"},{"ip":"10.1.0.2"}],
      "ports":[{"port":8080}]}]})"));
  ASSERT_TRUE(ep.ok()) << ep.status().message();
  EXPECT_EQ(At(*ep, {"subsets"})->as_array()[0].as_object().at("ports").as_array()[0], Parse(R"({"port":8080,"protocol":"TCP"})"));
  EXPECT_EQ(ColumnNames("endpoints"), (std::vector<std::string>{"Name", "Endpoints", "Age"}));
  EXPECT_EQ(Cells("endpoints", *ep)[1], "10.1.0.1:8080,10.1.0.2:8080");
  auto many = Parse(R"({"metadata":{"name":"m"},"subsets":[{"addresses":[{"ip":"10.1.0.1"},{"ip":"10.1.0.2"},{"ip":"10.1.0.3"},
      {"ip":"10.1.0.4"}],"ports":[{"port":80}]}]})");
  EXPECT_EQ(Cells("endpoints", many)[1], "10.1.0.1:80,10.1.0.2:80,10.1.0.3:80 + 1 more...");
  EXPECT_EQ(Cells("endpoints", Parse(R"({"metadata":{"name":"e"}})"))[1], "<none>");
  auto bad = api_.Create("endpoints", Parse(R"({"metadata":{"name":"bad"},"subsets":[{"addresses":[{"ip":"127.0.0.1"}]},{}]})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Causes(bad.status()),
            (std::vector<std::string>{"subsets[0].addresses[0].ip: Invalid value: \"127.0.0.1\": may not be in the loopback range "
                                      "(127.0.0.0/8, ::1/128)",
                                      "subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`"}));
  // Create on update.
  auto put = api_.Put("endpoints", "fresh", Parse(R"({"metadata":{"name":"fresh"}})"));
  EXPECT_TRUE(put.ok()) << put.status().message();
}

TEST_F(KindsTest, NodesStatusPrinterAndSelector) {
  auto n = api_.Create("nodes", Parse(R"({"metadata":{"name":"n1","labels":{"node-role.kubernetes.io/control-plane":""}},
      "spec":{"unschedulable":true},
      "status":{"capacity":{"cpu":"4","memory":"8Gi"},"conditions":[{"type":"Ready","status":"True"}],
      "addresses":[{"type":"InternalIP","address":"192.0.2.10"}],"nodeInfo":{"kubeletVersion":"v1.32.0"}}})"),
                        "");
  ASSERT_TRUE(n.ok()) << n.status().message();
  EXPECT_EQ(*At(*n, {"status", "allocatable"}), Parse(R"({"cpu":"4","memory":"8Gi"})"));
  EXPECT_FALSE(At(*n, {"metadata", "namespace"}));
  EXPECT_EQ(ColumnNames("nodes"), (std::vector<std::string>{"Name", "Status", "Roles", "Age", "Version", "Internal-IP", "External-IP",
                                                             "OS-Image", "Kernel-Version", "Container-Runtime"}));
  auto cells = Cells("nodes", *n);
  EXPECT_EQ(cells[1], "Ready,SchedulingDisabled");
  EXPECT_EQ(cells[2], "control-plane");
  EXPECT_EQ(cells[4], "v1.32.0");
  EXPECT_EQ(cells[5], "192.0.2.10");
  EXPECT_EQ(cells[6], "<none>");
  EXPECT_EQ(cells[7], "<unknown>");
  // The main resource keeps status; nodes/status changes it.
  auto up = api_.Modify("nodes", "n1", [](Object& o) { o["status"].as_object()["phase"] = "Running"; }, "");
  ASSERT_TRUE(up.ok());
  EXPECT_FALSE(At(*up, {"status", "phase"}));
  auto l = api_.List("nodes", "spec.unschedulable=true", "");
  ASSERT_TRUE(l.ok()) << l.status().message();
  EXPECT_EQ(l->items.size(), 1u);
  auto taint = api_.Modify("nodes", "n1", [](Object& o) {
    o["spec"].as_object()["taints"] = ParseArray(R"([{"key":"a","effect":"Sometimes"}])");
  }, "");
  ASSERT_FALSE(taint.ok());
  EXPECT_EQ(Causes(taint.status())[0],
            "spec.taints[0].effect: Unsupported value: \"Sometimes\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\"");
  registry::ConnectRequest get;
  get.method = "GET";
  auto proxy = api_.Connect("nodes/proxy", "ghost", get, "");
  EXPECT_EQ(proxy.status().code(), 404);
}

TEST_F(KindsTest, PersistentVolumes) {
  auto pv = api_.Create("persistentvolumes", Parse(R"({"metadata":{"name":"pv1"},"spec":{"capacity":{"storage":"10Gi"},
      "accessModes":["ReadWriteOnce","ReadOnlyMany"],"hostPath":{"path":"/data"}}})"),
                        "");
  ASSERT_TRUE(pv.ok()) << pv.status().message();
  EXPECT_EQ(Str(*pv, {"spec", "persistentVolumeReclaimPolicy"}), "Retain");
  EXPECT_EQ(Str(*pv, {"spec", "volumeMode"}), "Filesystem");
  EXPECT_EQ(Str(*pv, {"spec", "hostPath", "type"}), "");
  EXPECT_EQ(Str(*pv, {"status", "phase"}), "Pending");
  EXPECT_FALSE(Str(*pv, {"status", "lastPhaseTransitionTime"}).empty());
  EXPECT_EQ(ColumnNames("persistentvolumes"),
            (std::vector<std::string>{"Name", "Capacity", "Access Modes", "Reclaim Policy", "Status", "Claim", "StorageClass",
                                      "VolumeAttributesClass", "Reason", "Age", "VolumeMode"}));
  auto cells = Cells("persistentvolumes", *pv);
  EXPECT_EQ(cells[1], "10Gi");
  EXPECT_EQ(cells[2], "RWO,ROX");
  EXPECT_EQ(cells[4], "Pending");
  EXPECT_EQ(cells[7], "<unset>");
  EXPECT_EQ(cells[10], "Filesystem");
  auto none = api_.Create("persistentvolumes", Parse(R"({"metadata":{"name":"pv2"},"spec":{"capacity":{"storage":"1Gi"}}})"), "");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(Causes(none.status()),
            (std::vector<std::string>{"spec.accessModes: Required value", "spec: Required value: must specify a volume type"}));
  auto src = api_.Modify("persistentvolumes", "pv1", [](Object& o) { o["spec"].as_object()["hostPath"] = Parse(R"({"path":"/other"})"); }, "");
  ASSERT_FALSE(src.ok());
  EXPECT_TRUE(StartsWith(Causes(src.status())[0], "spec.persistentvolumesource: Forbidden: spec.persistentvolumesource is immutable after creation"));
  auto st = api_.Modify("persistentvolumes/status", "pv1", [](Object& o) { o["status"].as_object()["phase"] = "Available"; }, "");
  ASSERT_TRUE(st.ok()) << st.status().message();
  EXPECT_EQ(Str(*st, {"status", "phase"}), "Available");
}

TEST_F(KindsTest, PersistentVolumeClaims) {
  auto pvc = api_.Create("persistentvolumeclaims", Parse(R"({"metadata":{"name":"data"},"spec":{"accessModes":["ReadWriteOnce"],
      "resources":{"requests":{"storage":"1Gi"}}}})"));
  ASSERT_TRUE(pvc.ok()) << pvc.status().message();
  EXPECT_EQ(Str(*pvc, {"spec", "volumeMode"}), "Filesystem");
  EXPECT_EQ(Str(*pvc, {"status", "phase"}), "Pending");
  EXPECT_EQ(ColumnNames("persistentvolumeclaims"),
            (std::vector<std::string>{"Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass",
                                      "VolumeAttributesClass", "Age", "VolumeMode"}));
  auto cells = Cells("persistentvolumeclaims", *pvc);
  EXPECT_EQ(cells[1], "Pending");
  EXPECT_EQ(cells[3], "");
  auto bad = api_.Create("persistentvolumeclaims", Parse(R"({"metadata":{"name":"bad"},"spec":{}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Causes(bad.status()), (std::vector<std::string>{"spec.accessModes: Required value: at least 1 access mode is required",
                                                            "spec.resources[storage]: Required value"}));
  auto change = api_.Modify("persistentvolumeclaims", "data",
                            [](Object& o) { o["spec"].as_object()["accessModes"] = json::array{"ReadWriteMany"}; });
  ASSERT_FALSE(change.ok());
  EXPECT_TRUE(StartsWith(Causes(change.status())[0],
                         "spec: Forbidden: spec is immutable after creation except resources.requests and "
                         "volumeAttributesClassName for bound claims"));
}

TEST_F(KindsTest, ReplicationControllersAndScale) {
  auto rc = api_.Create("replicationcontrollers", Parse(R"({"metadata":{"name":"web"},"spec":{"template":{
      "metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx:1.27"}]}}}})"));
  ASSERT_TRUE(rc.ok()) << rc.status().message();
  EXPECT_EQ(*At(*rc, {"spec", "selector"}), Parse(R"({"app":"web"})"));
  EXPECT_EQ(*At(*rc, {"metadata", "labels"}), Parse(R"({"app":"web"})"));
  EXPECT_EQ(At(*rc, {"spec", "replicas"})->as_int64(), 1);
  EXPECT_EQ(At(*rc, {"metadata", "generation"})->as_int64(), 1);
  EXPECT_EQ(*At(*rc, {"status"}), Parse(R"({"replicas":0})"));
  EXPECT_EQ(Str(*rc, {"spec", "template", "spec", "restartPolicy"}), "Always");
  EXPECT_EQ(At(*rc, {"spec", "template", "metadata", "creationTimestamp"})->is_null(), true);
  EXPECT_EQ(ColumnNames("replicationcontrollers"),
            (std::vector<std::string>{"Name", "Desired", "Current", "Ready", "Age", "Containers", "Images", "Selector"}));
  auto cells = Cells("replicationcontrollers", *rc);
  EXPECT_EQ(cells[1], 1);
  EXPECT_EQ(cells[5], "c");
  EXPECT_EQ(cells[6], "nginx:1.27");
  EXPECT_EQ(cells[7], "app=web");
  // Scale.
  auto scale = api_.GetObj("replicationcontrollers/scale", "web");
  ASSERT_TRUE(scale.ok()) << scale.status().message();
  EXPECT_EQ(Str(*scale, {"apiVersion"}), "autoscaling/v1");
  EXPECT_EQ(Str(*scale, {"kind"}), "Scale");
  EXPECT_EQ(At(*scale, {"spec", "replicas"})->as_int64(), 1);
  EXPECT_EQ(*At(*scale, {"status"}), Parse(R"({"replicas":0,"selector":"app=web"})"));
  auto up = api_.Modify("replicationcontrollers/scale", "web", [](Object& s) { s["spec"].as_object()["replicas"] = 3; });
  ASSERT_TRUE(up.ok()) << up.status().message();
  EXPECT_EQ(At(*up, {"spec", "replicas"})->as_int64(), 3);
  auto after = api_.GetObj("replicationcontrollers", "web");
  EXPECT_EQ(At(*after, {"spec", "replicas"})->as_int64(), 3);
  EXPECT_EQ(At(*after, {"metadata", "generation"})->as_int64(), 2);
  auto neg = api_.Modify("replicationcontrollers/scale", "web", [](Object& s) { s["spec"].as_object()["replicas"] = -1; });
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.status().message(), "Scale.autoscaling \"web\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0");
  auto stale = api_.Modify("replicationcontrollers/scale", "web", [](Object& s) {
    s["metadata"].as_object()["resourceVersion"] = "1";
    s["spec"].as_object()["replicas"] = 2;
  });
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), 409);
  auto missing = api_.GetObj("replicationcontrollers/scale", "ghost");
  EXPECT_EQ(missing.status().message(), "replicationcontrollers \"ghost\" not found");
  // Validation.
  auto bad = api_.Create("replicationcontrollers", Parse(R"({"metadata":{"name":"bad"},"spec":{"selector":{"app":"x"},"template":{
      "metadata":{"labels":{"app":"y"}},"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"i"}]}}}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Causes(bad.status()),
            (std::vector<std::string>{"spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"y\"}: `selector` does "
                                      "not match template `labels`",
                                      "spec.template.spec.restartPolicy: Unsupported value: \"Never\": supported values: \"Always\""}));
  // Status through the subresource only.
  auto st = api_.Modify("replicationcontrollers/status", "web", [](Object& o) {
    o["status"] = Parse(R"({"replicas":3,"readyReplicas":4})");
  });
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(Causes(st.status())[0], "status.readyReplicas: Invalid value: 4: cannot be greater than status.replicas");
}

TEST_F(KindsTest, PodTemplates) {
  auto pt = api_.Create("podtemplates", Parse(R"({"metadata":{"name":"t"},"template":{"metadata":{"labels":{"a":"b"}},
      "spec":{"containers":[{"name":"c","image":"busybox"}]}}})"));
  ASSERT_TRUE(pt.ok()) << pt.status().message();
  EXPECT_EQ(At(*pt, {"metadata", "generation"})->as_int64(), 1);
  EXPECT_EQ(Str(*pt, {"template", "spec", "dnsPolicy"}), "ClusterFirst");
  EXPECT_EQ(ColumnNames("podtemplates"), (std::vector<std::string>{"Name", "Containers", "Images", "Pod Labels"}));
  auto cells = Cells("podtemplates", *pt);
  EXPECT_EQ(cells[1], "c");
  EXPECT_EQ(cells[2], "busybox");
  EXPECT_EQ(cells[3], "a=b");
  auto bad = api_.Create("podtemplates", Parse(R"({"metadata":{"name":"b"},"template":{"spec":{"containers":[]}}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Causes(bad.status())[0], "template.spec.containers: Required value");
  auto up = api_.Modify("podtemplates", "t", [](Object& o) {
    o["template"].as_object()["spec"].as_object()["containers"].as_array()[0].as_object()["image"] = "busybox:1";
  });
  ASSERT_TRUE(up.ok());
  EXPECT_EQ(At(*up, {"metadata", "generation"})->as_int64(), 2);
}

TEST_F(KindsTest, LimitRanges) {
  auto lr = api_.Create("limitranges", Parse(R"({"metadata":{"name":"l"},"spec":{"limits":[{"type":"Container",
      "max":{"cpu":"2"},"min":{"memory":"64Mi"}}]}})"));
  ASSERT_TRUE(lr.ok()) << lr.status().message();
  const auto& item = At(*lr, {"spec", "limits"})->as_array()[0].as_object();
  EXPECT_EQ(item.at("default"), Parse(R"({"cpu":"2"})"));
  EXPECT_EQ(item.at("defaultRequest"), Parse(R"({"cpu":"2","memory":"64Mi"})"));
  auto bad = api_.Create("limitranges", Parse(R"({"metadata":{"name":"b"},"spec":{"limits":[{"type":"Container",
      "max":{"cpu":"1"},"min":{"cpu":"2"}}]}})"));
  ASSERT_FALSE(bad.ok());
  auto causes = Causes(bad.status());
  EXPECT_NE(std::find(causes.begin(), causes.end(), "spec.limits[0].min[cpu]: Invalid value: 2: min value 2 is greater than max value 1"),
            causes.end())
      << Join(causes, "\n");
}

TEST_F(KindsTest, ResourceQuotas) {
  auto rq = api_.Create("resourcequotas", Parse(R"({"metadata":{"name":"q"},"spec":{"hard":{"pods":"10","requests.cpu":"1",
      "limits.memory":"1Gi"}},"status":{"used":{"pods":"99"}}})"));
  ASSERT_TRUE(rq.ok()) << rq.status().message();
  EXPECT_EQ(*At(*rq, {"status"}), json::object());
  EXPECT_EQ(ColumnNames("resourcequotas"), (std::vector<std::string>{"Name", "Age", "Request", "Limit"}));
  auto st = api_.Modify("resourcequotas/status", "q", [](Object& o) {
    o["status"] = Parse(R"({"hard":{"pods":"10","requests.cpu":"1","limits.memory":"1Gi"},"used":{"pods":"2","requests.cpu":"500m"}})");
  });
  ASSERT_TRUE(st.ok()) << st.status().message();
  auto cells = Cells("resourcequotas", *st);
  EXPECT_EQ(cells[2], "pods: 2/10, requests.cpu: 500m/1");
  EXPECT_EQ(cells[3], "limits.memory: 0/1Gi");
  auto bad = api_.Create("resourcequotas", Parse(R"({"metadata":{"name":"b"},"spec":{"hard":{"pods":"-1","widgets":"1"}}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(Causes(bad.status()), (std::vector<std::string>{"spec.hard[pods]: Invalid value: \"-1\": must be greater than or equal to 0",
                                                            "spec.hard[widgets]: Invalid value: \"widgets\": must be a standard resource for quota"}));
}

TEST_F(KindsTest, DiscoveryNamesAndCategories) {
  auto info = [&](const std::string& r) { return api_.Resource(r).info; };
  EXPECT_EQ(info("pods").short_names, std::vector<std::string>{"po"});
  EXPECT_EQ(info("pods").categories, std::vector<std::string>{"all"});
  EXPECT_EQ(info("services").short_names, std::vector<std::string>{"svc"});
  EXPECT_EQ(info("services").categories, std::vector<std::string>{"all"});
  EXPECT_EQ(info("replicationcontrollers").categories, std::vector<std::string>{"all"});
  EXPECT_EQ(info("nodes").namespaced, false);
  EXPECT_EQ(info("pods/eviction").ApiVersion(), "policy/v1");
  EXPECT_EQ(info("pods/eviction").kind, "Eviction");
  EXPECT_EQ(info("replicationcontrollers/scale").ApiVersion(), "autoscaling/v1");
  EXPECT_EQ(info("pods/exec").kind, "PodExecOptions");
  auto methods = api_.As<registry::Connecter>("pods/proxy")->ConnectMethods();
  EXPECT_EQ(methods.size(), 7u);
}

}  // namespace
}  // namespace capstan::api::core::testing
