// Representative shapes of well-known projects' CRDs (our own test copies): a cert-manager-like
// Certificate (nested required fields, enums, a list-type map of conditions, printer columns with
// filters) and an Argo-like Workflow (spec and status preserving unknown fields). Both must be
// accepted, established and serve their custom resources.
#include <gtest/gtest.h>

#include "api/apiextensions/crd_controller.h"
#include "api/apiextensions/crd_resource.h"
#include "api/apiextensions/crd_types.h"
#include "apps/api_test_env.h"
#include "endpoints/installer.h"

namespace capstan::api::apiextensions {
namespace {

namespace json = boost::json;
using testing::ApiTestEnv;
using testing::Parse;

const char* kCertificate = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "certificates.cert.example.io"},
  "spec": {"group": "cert.example.io", "scope": "Namespaced",
    "names": {"plural": "certificates", "singular": "certificate", "kind": "Certificate", "listKind": "CertificateList",
              "shortNames": ["cert", "certs"], "categories": ["cert-example"]},
    "versions": [{"name": "v1", "served": true, "storage": true, "subresources": {"status": {}},
      "additionalPrinterColumns": [
        {"jsonPath": ".status.conditions[?(@.type==\"Ready\")].status", "name": "Ready", "type": "string"},
        {"jsonPath": ".spec.secretName", "name": "Secret", "type": "string"},
        {"jsonPath": ".spec.issuerRef.name", "name": "Issuer", "priority": 1, "type": "string"},
        {"jsonPath": ".status.conditions[?(@.type==\"Ready\")].message", "name": "Status", "priority": 1, "type": "string"},
        {"jsonPath": ".metadata.creationTimestamp", "name": "Age", "type": "date", "description": "CreationTimestamp"}],
      "schema": {"openAPIV3Schema": {"type": "object", "required": ["spec"], "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": {"type": "object", "required": ["issuerRef", "secretName"], "properties": {
          "commonName": {"type": "string", "maxLength": 64},
          "dnsNames": {"type": "array", "items": {"type": "string"}},
          "duration": {"type": "string"},
          "isCA": {"type": "boolean"},
          "issuerRef": {"type": "object", "required": ["name"], "properties": {
            "group": {"type": "string"}, "kind": {"type": "string"}, "name": {"type": "string"}}},
          "privateKey": {"type": "object", "properties": {
            "algorithm": {"type": "string", "enum": ["RSA", "ECDSA", "Ed25519"]},
            "size": {"type": "integer"},
            "rotationPolicy": {"type": "string", "enum": ["Never", "Always"]}}},
          "secretName": {"type": "string"},
          "secretTemplate": {"type": "object", "properties": {
            "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
            "labels": {"type": "object", "additionalProperties": {"type": "string"}}}},
          "usages": {"type": "array", "items": {"type": "string", "enum": ["digital signature", "key encipherment", "server auth", "client auth"]}}}},
        "status": {"type": "object", "properties": {
          "conditions": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["type"],
            "items": {"type": "object", "required": ["status", "type"], "properties": {
              "lastTransitionTime": {"type": "string", "format": "date-time"},
              "message": {"type": "string"}, "observedGeneration": {"type": "integer", "format": "int64"},
              "reason": {"type": "string"}, "status": {"type": "string", "enum": ["True", "False", "Unknown"]},
              "type": {"type": "string"}}}},
          "notAfter": {"type": "string", "format": "date-time"},
          "revision": {"type": "integer"}}}}}}}]}})";

const char* kWorkflow = R"({
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "workflows.flow.example.io"},
  "spec": {"group": "flow.example.io", "scope": "Namespaced",
    "names": {"plural": "workflows", "singular": "workflow", "kind": "Workflow", "listKind": "WorkflowList", "shortNames": ["wf"]},
    "versions": [{"name": "v1alpha1", "served": true, "storage": true, "subresources": {},
      "additionalPrinterColumns": [
        {"jsonPath": ".status.phase", "name": "Status", "type": "string", "description": "Status of the workflow"},
        {"jsonPath": ".status.startedAt", "name": "Age", "type": "date", "format": "date-time"}],
      "schema": {"openAPIV3Schema": {"type": "object", "required": ["metadata", "spec"], "properties": {
        "apiVersion": {"type": "string"}, "kind": {"type": "string"}, "metadata": {"type": "object"},
        "spec": {"type": "object", "x-kubernetes-map-type": "atomic", "x-kubernetes-preserve-unknown-fields": true},
        "status": {"type": "object", "x-kubernetes-map-type": "atomic", "x-kubernetes-preserve-unknown-fields": true}}}}}]}})";

class RealWorldCrdTest : public ::testing::Test {
 protected:
  RealWorldCrdTest()
      : env_([this](const registry::GroupDeps& d) {
          deps_ = d;
          return Install(d);
        }) {
    endpoints::InstallResources(apis_, env_.resources());
    CrdController::Options o;
    o.deps.deps = deps_;
    controller_ = std::make_unique<CrdController>(apis_, nullptr, o);
  }
  void Settle() {
    for (int i = 0; i < 10; ++i) {
      auto wrote = controller_->ReconcileOnce();
      ASSERT_TRUE(wrote.ok()) << wrote.status().message();
      if (!*wrote) return;
    }
    FAIL() << "controller did not settle";
  }
  registry::Context Ns() {
    registry::Context c;
    c.namespace_ = "default";
    return c;
  }

  registry::GroupDeps deps_;
  ApiTestEnv env_;
  endpoints::ApiRegistry apis_;
  std::unique_ptr<CrdController> controller_;
};

TEST_F(RealWorldCrdTest, CertificateLike) {
  auto crd = env_.Create("customresourcedefinitions", Parse(kCertificate));
  ASSERT_TRUE(crd.ok()) << crd.status().message();
  Settle();
  auto snap = apis_.Snapshot();
  const auto* cr = snap->FindResource("cert.example.io", "v1", "certificates", "");
  ASSERT_NE(cr, nullptr);
  EXPECT_EQ(cr->info.categories, std::vector<std::string>{"cert-example"});
  auto cert = SyncWait(cr->creater->Create(Ns(), Parse(R"({"apiVersion":"cert.example.io/v1","kind":"Certificate",
      "metadata":{"name":"web","namespace":"default"},
      "spec":{"secretName":"web-tls","dnsNames":["a.example.com"],"issuerRef":{"name":"ca","kind":"ClusterIssuer"},
              "privateKey":{"algorithm":"ECDSA","size":256},"usages":["server auth"]}})"), {}));
  ASSERT_TRUE(cert.ok()) << cert.status().message();
  const auto* status = snap->FindResource("cert.example.io", "v1", "certificates", "status");
  ASSERT_NE(status, nullptr);
  auto ready = SyncWait(status->updater->Update(
      Ns(), "web",
      [](const registry::Object* cur) -> Task<StatusOr<registry::Object>> {
        registry::Object o = *cur;
        o["status"] = Parse(R"({"conditions":[{"type":"Ready","status":"True","message":"Certificate is up to date",
            "lastTransitionTime":"2024-01-01T00:00:00Z"}]})");
        co_return o;
      },
      {}));
  ASSERT_TRUE(ready.ok()) << ready.status().message();
  auto cells = cr->table->TableCells(ready->object);
  ASSERT_EQ(cells.size(), 6u);
  EXPECT_EQ(cells[1].as_string(), "True");
  EXPECT_EQ(cells[2].as_string(), "web-tls");
  EXPECT_EQ(cells[3].as_string(), "ca");
  EXPECT_EQ(cells[4].as_string(), "Certificate is up to date");

  auto bad = SyncWait(cr->creater->Create(Ns(), Parse(R"({"apiVersion":"cert.example.io/v1","kind":"Certificate",
      "metadata":{"name":"bad","namespace":"default"},
      "spec":{"issuerRef":{},"privateKey":{"algorithm":"DSA"}}})"), {}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), 422);
  const std::string& m = bad.status().message();
  EXPECT_NE(m.find("spec.secretName: Required value"), std::string::npos) << m;
  EXPECT_NE(m.find("spec.issuerRef.name: Required value"), std::string::npos) << m;
  EXPECT_NE(m.find("spec.privateKey.algorithm: Unsupported value: \"DSA\": supported values: \"RSA\", \"ECDSA\", \"Ed25519\""),
            std::string::npos)
      << m;

  auto dup = SyncWait(status->updater->Update(
      Ns(), "web",
      [](const registry::Object* cur) -> Task<StatusOr<registry::Object>> {
        registry::Object o = *cur;
        o["status"] = Parse(R"({"conditions":[{"type":"Ready","status":"True"},{"type":"Ready","status":"False"}]})");
        co_return o;
      },
      {}));
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("status.conditions[1]: Duplicate value: map[string]interface {}{\"type\":\"Ready\"}"), std::string::npos)
      << dup.status().message();
}

TEST_F(RealWorldCrdTest, WorkflowLikePreservesUnknownFields) {
  auto crd = env_.Create("customresourcedefinitions", Parse(kWorkflow));
  ASSERT_TRUE(crd.ok()) << crd.status().message();
  Settle();
  auto snap = apis_.Snapshot();
  const auto* cr = snap->FindResource("flow.example.io", "v1alpha1", "workflows", "");
  ASSERT_NE(cr, nullptr);
  EXPECT_EQ(snap->FindResource("flow.example.io", "v1alpha1", "workflows", "status"), nullptr);
  auto wf = SyncWait(cr->creater->Create(Ns(), Parse(R"({"apiVersion":"flow.example.io/v1alpha1","kind":"Workflow",
      "metadata":{"name":"hello","namespace":"default"},
      "spec":{"entrypoint":"main","templates":[{"name":"main","container":{"image":"alpine","command":["echo"]}}]},
      "status":{"phase":"Running","startedAt":"2024-01-01T00:00:00Z"}})"), {}));
  ASSERT_TRUE(wf.ok()) << wf.status().message();
  EXPECT_EQ((*wf)["spec"].at("templates").at(0).at("container").at("image").as_string(), "alpine");
  // Without a status subresource, status is written with the object.
  EXPECT_EQ((*wf)["status"].at("phase").as_string(), "Running");
  auto cells = cr->table->TableCells(*wf);
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[1].as_string(), "Running");
}

}  // namespace
}  // namespace capstan::api::apiextensions
