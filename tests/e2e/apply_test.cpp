// End-to-end: server-side apply through the real kubectl (1.31 and 1.33) and raw requests: create by
// apply, an unchanged re-apply that writes nothing, changes, conflicts with kube's message and
// --force-conflicts, removal of fields a manager stops applying, list-map merges of a Deployment's
// containers between managers, managedFields as `kubectl get --show-managed-fields` shows them, apply
// on the status subresource, and a client-side apply followed by a server-side apply.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;

class ApplyTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  static CommandResult K(const std::vector<std::string>& args, const std::string& input = "",
                         const std::string& minor = "33") {
    return server_->Kubectl(args, input, minor);
  }
  static json::object GetJson(const std::string& what) {
    auto r = K({"get", what, "-o", "json", "--show-managed-fields"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json::error_code ec;
    auto v = json::parse(r.out, ec);
    return !ec && v.is_object() ? v.get_object() : json::object();
  }
  static std::string Rv(const json::object& o) {
    return json::value_to<std::string>(o.at("metadata").at("resourceVersion"));
  }
  // The managedFields entry of a manager (and operation), or null.
  static json::object Entry(const json::object& o, const std::string& manager, const std::string& op) {
    const auto* md = o.at("metadata").as_object().if_contains("managedFields");
    if (!md) return {};
    for (const auto& e : md->as_array()) {
      if (e.at("manager") == manager.c_str() && e.at("operation") == op.c_str()) return e.as_object();
    }
    return {};
  }
  static std::string Raw(const std::string& method, const std::string& path, const std::string& body,
                         const std::string& content_type) {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\nUser-Agent: e2e-raw/1.0\r\n";
    req += "Content-Type: " + content_type + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    return RawHttps(server_->port(), {req}, server_->data_dir() + "/pki/admin.crt",
                    server_->data_dir() + "/pki/admin.key")
        .response;
  }
  static std::string BodyOf(const std::string& response) {
    auto p = response.find("\r\n\r\n");
    return p == std::string::npos ? "" : response.substr(p + 4);
  }
  static ServerProcess* server_;
};
ServerProcess* ApplyTest::server_ = nullptr;

std::string Deployment(const std::string& name, int replicas, const std::string& image) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
         "\nspec:\n  replicas: " + std::to_string(replicas) +
         "\n  selector:\n    matchLabels:\n      app: " + name + "\n  template:\n    metadata:\n      labels:\n        app: " +
         name + "\n    spec:\n      containers:\n      - name: main\n        image: " + image + "\n";
}

TEST_F(ApplyTest, CreateReapplyChangeConflictAndForce) {
  for (const std::string minor : {"31", "33"}) {
    SCOPED_TRACE("kubectl 1." + minor);
    std::string name = "web" + minor;
    auto a = K({"apply", "--server-side", "-f", "-"}, Deployment(name, 2, "nginx:1.25"), minor);
    ASSERT_EQ(a.exit_code, 0) << a.err;
    EXPECT_EQ(a.out, "deployment.apps/" + name + " serverside-applied\n");
    auto obj = GetJson("deploy/" + name);
    auto mine = Entry(obj, "kubectl", "Apply");
    ASSERT_FALSE(mine.empty()) << json::serialize(obj);
    EXPECT_EQ(mine.at("apiVersion"), "apps/v1");
    EXPECT_EQ(mine.at("fieldsType"), "FieldsV1");
    EXPECT_EQ(json::serialize(mine.at("fieldsV1")),
              R"({"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},)"
              R"("f:spec":{"f:containers":{"k:{\"name\":\"main\"}":{".":{},"f:image":{},"f:name":{}}}}}}})");
    // Defaults set by the server are nobody's.
    EXPECT_EQ(obj.at("spec").at("template").at("spec").at("containers").at(0).at("imagePullPolicy"), "IfNotPresent");

    // Unchanged: nothing is written.
    std::string rv = Rv(obj);
    auto again = K({"apply", "--server-side", "-f", "-"}, Deployment(name, 2, "nginx:1.25"), minor);
    ASSERT_EQ(again.exit_code, 0) << again.err;
    EXPECT_EQ(Rv(GetJson("deploy/" + name)), rv);

    // A change by the same manager.
    auto change = K({"apply", "--server-side", "-f", "-"}, Deployment(name, 3, "nginx:1.26"), minor);
    ASSERT_EQ(change.exit_code, 0) << change.err;
    auto changed = GetJson("deploy/" + name);
    EXPECT_EQ(changed.at("spec").at("replicas"), 3);
    EXPECT_NE(Rv(changed), rv);

    // Another manager setting a field kubectl owns to another value: a conflict.
    auto conflict = K({"apply", "--server-side", "--field-manager=other", "-f", "-"}, Deployment(name, 5, "nginx:1.26"),
                      minor);
    EXPECT_NE(conflict.exit_code, 0);
    EXPECT_NE(conflict.err.find("Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas"),
              std::string::npos)
        << conflict.err;
    auto forced = K({"apply", "--server-side", "--field-manager=other", "--force-conflicts", "-f", "-"},
                    Deployment(name, 5, "nginx:1.26"), minor);
    ASSERT_EQ(forced.exit_code, 0) << forced.err;
    auto after = GetJson("deploy/" + name);
    EXPECT_EQ(after.at("spec").at("replicas"), 5);
    auto kubectl_fields = json::serialize(Entry(after, "kubectl", "Apply").at("fieldsV1"));
    EXPECT_EQ(kubectl_fields.find("f:replicas"), std::string::npos) << kubectl_fields;
    EXPECT_NE(json::serialize(Entry(after, "other", "Apply").at("fieldsV1")).find("f:replicas"), std::string::npos);
  }
}

TEST_F(ApplyTest, DryRunWritesNothing) {
  auto dry = K({"apply", "--server-side", "--dry-run=server", "-f", "-"}, Deployment("dry", 1, "nginx"));
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_EQ(dry.out, "deployment.apps/dry serverside-applied (server dry run)\n");
  auto get = K({"get", "deploy", "dry"});
  EXPECT_NE(get.exit_code, 0);
  EXPECT_NE(get.err.find("NotFound"), std::string::npos) << get.err;
}

TEST_F(ApplyTest, FieldsAManagerStopsApplyingAreRemoved) {
  std::string v1 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  labels:\n    a: x1\n    b: y1\ndata:\n  one: '1'\n  two: '2'\n";
  ASSERT_EQ(K({"apply", "--server-side", "-f", "-"}, v1).exit_code, 0);
  // A second manager shares `two`.
  std::string other = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  two: '2'\n";
  ASSERT_EQ(K({"apply", "--server-side", "--field-manager=sharer", "-f", "-"}, other).exit_code, 0);
  std::string v2 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\n  labels:\n    a: x1\ndata:\n  one: '1'\n";
  auto r = K({"apply", "--server-side", "-f", "-"}, v2);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto obj = GetJson("configmap/cfg");
  EXPECT_EQ(json::serialize(obj.at("data")), R"({"one":"1","two":"2"})");
  EXPECT_EQ(json::serialize(obj.at("metadata").at("labels")), R"({"a":"x1"})");
}

TEST_F(ApplyTest, ContainersMergeByNameAcrossManagers) {
  ASSERT_EQ(K({"apply", "--server-side", "-f", "-"}, Deployment("multi", 1, "nginx")).exit_code, 0);
  std::string sidecar =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: multi\nspec:\n  template:\n    spec:\n      containers:\n"
      "      - name: sidecar\n        image: busybox\n        ports:\n        - containerPort: 8080\n";
  auto r = K({"apply", "--server-side", "--field-manager=mesh", "-f", "-"}, sidecar);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto obj = GetJson("deploy/multi");
  const auto& cs = obj.at("spec").at("template").at("spec").at("containers").as_array();
  ASSERT_EQ(cs.size(), 2u) << json::serialize(cs);
  EXPECT_EQ(cs[0].at("name"), "main");
  EXPECT_EQ(cs[1].at("name"), "sidecar");
  EXPECT_EQ(cs[1].at("ports").at(0).at("protocol"), "TCP");
  EXPECT_EQ(json::serialize(Entry(obj, "mesh", "Apply").at("fieldsV1")),
            R"({"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"sidecar\"}":{".":{},"f:image":{},"f:name":{},)"
            R"("f:ports":{"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}})");
}

TEST_F(ApplyTest, UpdatesAreRecordedAndConflictWithAppliers) {
  auto c = K({"create", "deployment", "made", "--image=nginx"}, "", "31");
  ASSERT_EQ(c.exit_code, 0) << c.err;
  auto obj = GetJson("deploy/made");
  auto created = Entry(obj, "kubectl-create", "Update");
  ASSERT_FALSE(created.empty()) << json::serialize(obj);
  EXPECT_EQ(created.at("apiVersion"), "apps/v1");
  EXPECT_TRUE(created.contains("time"));
  auto f = json::serialize(created.at("fieldsV1"));
  EXPECT_NE(f.find(R"("f:progressDeadlineSeconds":{})"), std::string::npos) << f;
  EXPECT_NE(f.find(R"("f:labels":{".":{},"f:app":{}})"), std::string::npos) << f;

  auto r = K({"apply", "--server-side", "-f", "-"}, Deployment("made", 4, "nginx"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("conflict with \"kubectl-create\" using apps/v1"), std::string::npos) << r.err;

  // The scale subresource writes through the Deployment and is recorded as such.
  ASSERT_EQ(K({"scale", "deploy", "made", "--replicas=2"}).exit_code, 0);
  bool scale_entry = false;
  json::object scaled = GetJson("deploy/made");
  ASSERT_TRUE(scaled.contains("metadata"));
  for (const auto& e : scaled.at("metadata").at("managedFields").as_array()) {
    if (e.as_object().contains("subresource") && e.at("subresource") == "scale") {
      scale_entry = true;
      EXPECT_EQ(e.at("operation"), "Update");
      EXPECT_EQ(json::serialize(e.at("fieldsV1")), R"({"f:spec":{"f:replicas":{}}})");
    }
  }
  EXPECT_TRUE(scale_entry);

  // kubectl shows managedFields only when asked.
  auto plain = K({"get", "deploy", "made", "-o", "yaml"});
  EXPECT_EQ(plain.out.find("managedFields"), std::string::npos);
  auto shown = K({"get", "deploy", "made", "-o", "yaml", "--show-managed-fields"});
  EXPECT_NE(shown.out.find("manager: kubectl-create"), std::string::npos) << shown.out;
}

TEST_F(ApplyTest, ClientSideApplyThenServerSideApply) {
  std::string cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate\ndata:\n  k: v1\n";
  auto csa = K({"apply", "-f", "-"}, cm);
  ASSERT_EQ(csa.exit_code, 0) << csa.err;
  EXPECT_FALSE(Entry(GetJson("configmap/migrate"), "kubectl-client-side-apply", "Update").empty());
  std::string cm2 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: migrate\ndata:\n  k: v2\n";
  auto ssa = K({"apply", "--server-side", "-f", "-"}, cm2);
  ASSERT_EQ(ssa.exit_code, 0) << ssa.err;
  auto obj = GetJson("configmap/migrate");
  EXPECT_EQ(obj.at("data").at("k"), "v2");
  EXPECT_FALSE(Entry(obj, "kubectl", "Apply").empty()) << json::serialize(obj.at("metadata"));
}

TEST_F(ApplyTest, RawApplyErrorsAndStatusSubresource) {
  // fieldManager is required.
  std::string cm = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"raw"},"data":{"a":"1"}})";
  auto missing = Raw("PATCH", "/api/v1/namespaces/default/configmaps/raw", cm, "application/apply-patch+yaml");
  EXPECT_EQ(HttpStatusOf(missing), 422) << missing;
  EXPECT_NE(BodyOf(missing).find("fieldManager: Required value: is required for apply patch"), std::string::npos);
  auto wrong_version = Raw("PATCH", "/api/v1/namespaces/default/configmaps/raw?fieldManager=m",
                           R"({"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"raw"}})",
                           "application/apply-patch+yaml");
  EXPECT_EQ(HttpStatusOf(wrong_version), 400) << wrong_version;
  auto created = Raw("PATCH", "/api/v1/namespaces/default/configmaps/raw?fieldManager=m", cm,
                     "application/apply-patch+yaml");
  EXPECT_EQ(HttpStatusOf(created), 201) << created;
  auto force_merge = Raw("PATCH", "/api/v1/namespaces/default/configmaps/raw?force=true", R"({"data":{"b":"2"}})",
                         "application/merge-patch+json");
  EXPECT_EQ(HttpStatusOf(force_merge), 422) << force_merge;
  // A merge patch without fieldManager is recorded under the user agent's product.
  auto merged = Raw("PATCH", "/api/v1/namespaces/default/configmaps/raw", R"({"data":{"b":"2"}})",
                    "application/merge-patch+json");
  EXPECT_EQ(HttpStatusOf(merged), 200) << merged;
  EXPECT_FALSE(Entry(GetJson("configmap/raw"), "e2e-raw", "Update").empty());

  // Apply on status: owned through the subresource only.
  ASSERT_EQ(K({"apply", "--server-side", "-f", "-"}, Deployment("st", 1, "nginx")).exit_code, 0);
  auto status = Raw("PATCH", "/apis/apps/v1/namespaces/default/deployments/st/status?fieldManager=ctl",
                    R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"st"},"status":{"observedGeneration":1,"replicas":7}})",
                    "application/apply-patch+yaml");
  ASSERT_EQ(HttpStatusOf(status), 200) << status;
  auto obj = GetJson("deploy/st");
  EXPECT_EQ(obj.at("status").at("replicas"), 7);
  auto e = Entry(obj, "ctl", "Apply");
  ASSERT_FALSE(e.empty()) << json::serialize(obj.at("metadata"));
  EXPECT_EQ(e.at("subresource"), "status");
  EXPECT_EQ(json::serialize(e.at("fieldsV1")), R"({"f:status":{"f:observedGeneration":{},"f:replicas":{}}})");
}


const char* kWidgetCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.ssa.example.com
spec:
  group: ssa.example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name:
                      type: string
                    port:
                      type: integer
          status:
            type: object
            properties:
              phase:
                type: string
)";

TEST_F(ApplyTest, CustomResourceListMapAndStatus) {
  auto crd = K({"apply", "--server-side", "-f", "-"}, kWidgetCrd);
  ASSERT_EQ(crd.exit_code, 0) << crd.err;
  auto wait = K({"wait", "--for=condition=Established", "--timeout=20s", "crd/widgets.ssa.example.com"});
  ASSERT_EQ(wait.exit_code, 0) << wait.err;
  std::string a = "apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 1\n  ports:\n  - name: http\n    port: 80\n";
  auto r = K({"apply", "--server-side", "-f", "-"}, a);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "widget.ssa.example.com/w serverside-applied\n");
  std::string b = "apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  ports:\n  - name: metrics\n    port: 9090\n";
  r = K({"apply", "--server-side", "--field-manager=other", "-f", "-"}, b);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto obj = GetJson("widget/w");
  EXPECT_EQ(json::serialize(obj.at("spec").at("ports")), R"([{"name":"http","port":80},{"name":"metrics","port":9090}])");
  EXPECT_EQ(json::serialize(Entry(obj, "other", "Apply").at("fieldsV1")),
            R"({"f:spec":{"f:ports":{"k:{\"name\":\"metrics\"}":{".":{},"f:name":{},"f:port":{}}}}})");
  // A conflicting change of a field of the first manager.
  std::string c = "apiVersion: ssa.example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  size: 3\n";
  r = K({"apply", "--server-side", "--field-manager=other", "-f", "-"}, c);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("conflict with \"kubectl\": .spec.size"), std::string::npos) << r.err;

  auto status = Raw("PATCH", "/apis/ssa.example.com/v1/namespaces/default/widgets/w/status?fieldManager=ctl",
                    R"({"apiVersion":"ssa.example.com/v1","kind":"Widget","metadata":{"name":"w"},"status":{"phase":"Ready"}})",
                    "application/apply-patch+yaml");
  ASSERT_EQ(HttpStatusOf(status), 200) << status;
  obj = GetJson("widget/w");
  EXPECT_EQ(obj.at("status").at("phase"), "Ready");
  auto e = Entry(obj, "ctl", "Apply");
  ASSERT_FALSE(e.empty()) << json::serialize(obj.at("metadata"));
  EXPECT_EQ(e.at("subresource"), "status");
  EXPECT_EQ(json::serialize(e.at("fieldsV1")), R"({"f:status":{"f:phase":{}}})");
}

}  // namespace
}  // namespace capstan::e2e
