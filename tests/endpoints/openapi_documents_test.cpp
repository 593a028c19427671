// The OpenAPI documents: v2 structure, definitions (closure, kube's shapes), v3 documents and index,
// and the per-snapshot cache.
#include "endpoints/openapi_documents.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "endpoints/openapi_schema.h"
#include "endpoints/openapi_test_util.h"
#include "endpoints/openapi_v3.h"

namespace capstan::endpoints {
namespace {

namespace json = boost::json;
using testing::BuiltinSchemas;
using testing::ParseObject;

// Calls f on every object in the tree, with its JSON path.
void Walk(const json::value& v, const std::string& at, const std::function<void(const json::object&, const std::string&)>& f) {
  if (v.is_object()) {
    f(v.get_object(), at);
    for (const auto& kv : v.get_object()) Walk(kv.value(), at + "/" + std::string(kv.key()), f);
  } else if (v.is_array()) {
    size_t i = 0;
    for (const auto& e : v.get_array()) Walk(e, at + "/" + std::to_string(i++), f);
  }
}

const json::value& At(const json::object& o, std::initializer_list<std::string_view> path) {
  const json::value* v = nullptr;
  const json::object* cur = &o;
  for (auto k : path) {
    v = cur->if_contains(k);
    if (v == nullptr) throw std::runtime_error("missing " + std::string(k));
    if (v->is_object()) cur = &v->get_object();
  }
  return *v;
}

class OpenApiDocumentsTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::InstallCoreSubset(apis_, BuiltinSchemas().get()); }
  OpenApiDocuments Docs() { return OpenApiDocuments(apis_, BuiltinSchemas().get(), {"Kubernetes", "v1.32.0+test"}); }
  ApiRegistry apis_;
};

TEST_F(OpenApiDocumentsTest, SwaggerDocumentStructure) {
  OpenApiDocuments docs(apis_, BuiltinSchemas().get(), {"Kubernetes", "v1.32.0+test"});
  auto doc = docs.V2();
  ASSERT_TRUE(doc);
  json::object o = ParseObject(doc->json);
  EXPECT_EQ(o.at("swagger"), "2.0");
  EXPECT_EQ(At(o, {"info", "title"}), "Kubernetes");
  EXPECT_EQ(At(o, {"info", "version"}), "v1.32.0+test");
  EXPECT_EQ(At(o, {"securityDefinitions", "BearerToken", "type"}), "apiKey");
  EXPECT_EQ(At(o, {"securityDefinitions", "BearerToken", "in"}), "header");
  EXPECT_EQ(o.at("security").at(0).at("BearerToken"), json::array());

  const json::object& paths = o.at("paths").as_object();
  for (const char* p : {"/api/", "/api/v1/", "/apis/", "/version/", "/apis/coordination.k8s.io/",
                        "/apis/coordination.k8s.io/v1/", "/api/v1/namespaces/{namespace}/configmaps/{name}",
                        "/api/v1/watch/configmaps", "/api/v1/namespaces/{name}/status",
                        "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"}) {
    EXPECT_TRUE(paths.contains(p)) << p;
  }
  const json::object& patch = At(o, {"paths", "/api/v1/namespaces/{namespace}/configmaps/{name}", "patch"}).as_object();
  EXPECT_EQ(patch.at("operationId"), "patchCoreV1NamespacedConfigMap");
  EXPECT_EQ(patch.at("x-kubernetes-action"), "patch");
  EXPECT_EQ(patch.at("x-kubernetes-group-version-kind"), (json::object{{"group", ""}, {"kind", "ConfigMap"}, {"version", "v1"}}));
  EXPECT_EQ(patch.at("schemes"), json::array{"https"});
  EXPECT_EQ(patch.at("tags"), json::array{"core_v1"});
  EXPECT_EQ(At(patch, {"responses", "401", "description"}), "Unauthorized");
  EXPECT_EQ(At(patch, {"responses", "200", "schema", "$ref"}), "#/definitions/io.k8s.api.core.v1.ConfigMap");
  EXPECT_EQ(At(patch, {"responses", "201", "description"}), "Created");
  // fieldValidation and dryRun stay on the operation (kubectl looks for them there); the body of a
  // patch is meta/v1 Patch, which is shared.
  std::set<std::string> inline_names;
  bool body_ref = false;
  for (const auto& p : patch.at("parameters").as_array()) {
    if (p.as_object().contains("$ref")) {
      body_ref |= p.at("$ref").as_string().subview().starts_with("#/parameters/body-");
    } else {
      inline_names.insert(std::string(p.at("name").as_string()));
    }
  }
  EXPECT_TRUE(inline_names.count("fieldValidation"));
  EXPECT_TRUE(inline_names.count("dryRun"));
  EXPECT_TRUE(body_ref);
  // A create's body carries the kind's own schema: never shared.
  const json::array& post_params =
      At(o, {"paths", "/api/v1/namespaces/{namespace}/configmaps", "post", "parameters"}).as_array();
  bool kind_body = false;
  for (const auto& p : post_params) {
    if (p.as_object().contains("in") && p.at("in") == "body") {
      kind_body = true;
      EXPECT_EQ(p.at("required"), true);
      EXPECT_EQ(At(p.as_object(), {"schema", "$ref"}), "#/definitions/io.k8s.api.core.v1.ConfigMap");
    }
  }
  EXPECT_TRUE(kind_body);

  // Every shared parameter reference resolves; the names are "<name>-<8 chars>".
  const json::object& params = o.at("parameters").as_object();
  EXPECT_FALSE(params.empty());
  Walk(o.at("paths"), "/paths", [&](const json::object& obj, const std::string& at) {
    if (auto* r = obj.if_contains("$ref"); r && r->as_string().starts_with("#/parameters/")) {
      std::string name(r->as_string().subview().substr(std::string_view("#/parameters/").size()));
      EXPECT_TRUE(params.contains(name)) << at;
      EXPECT_EQ(name.size() - name.rfind('-'), 9u) << name;
    }
  });
  bool pretty_found = false;
  for (const auto& kv : params) pretty_found |= kv.key().starts_with("pretty-");
  EXPECT_TRUE(pretty_found);
}

TEST_F(OpenApiDocumentsTest, SwaggerDefinitionsAreTheClosureInKubesShape) {
  OpenApiDocuments docs = Docs();
  json::object o = ParseObject(docs.V2()->json);
  const json::object& defs = o.at("definitions").as_object();
  // Referenced definitions, transitively.
  for (const char* d : {"io.k8s.api.core.v1.ConfigMap", "io.k8s.api.core.v1.ConfigMapList",
                        "io.k8s.api.core.v1.Namespace", "io.k8s.api.core.v1.NamespaceSpec",
                        "io.k8s.api.coordination.v1.Lease", "io.k8s.api.coordination.v1.LeaseSpec",
                        "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                        "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
                        "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference", "io.k8s.apimachinery.pkg.apis.meta.v1.Time",
                        "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
                        "io.k8s.apimachinery.pkg.apis.meta.v1.Status", "io.k8s.apimachinery.pkg.apis.meta.v1.StatusDetails",
                        "io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions", "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
                        "io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
                        "io.k8s.apimachinery.pkg.runtime.RawExtension", "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup",
                        "io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList", "io.k8s.apimachinery.pkg.version.Info"}) {
    EXPECT_TRUE(defs.contains(d)) << d;
  }
  // Nothing unreferenced: no apps, no pods.
  EXPECT_FALSE(defs.contains("io.k8s.api.apps.v1.Deployment"));
  EXPECT_FALSE(defs.contains("io.k8s.api.core.v1.Pod"));
  // Slices protobuf wraps are inlined, not published.
  EXPECT_FALSE(defs.contains("io.k8s.apimachinery.pkg.apis.meta.v1.Verbs"));
  EXPECT_EQ(At(defs, {"io.k8s.apimachinery.pkg.apis.meta.v1.APIResource", "properties", "verbs"}),
            (json::object{{"type", "array"}, {"items", json::object{{"type", "string"}}}}));
  // Every $ref resolves; no defaults in v2; no Capstan protobuf annotations.
  Walk(o, "", [&](const json::object& obj, const std::string& at) {
    if (auto* r = obj.if_contains("$ref"); r && r->as_string().starts_with("#/definitions/")) {
      EXPECT_TRUE(defs.contains(r->as_string().subview().substr(14))) << at;
    }
    if (at.starts_with("/definitions")) EXPECT_FALSE(obj.contains("default")) << at;
    for (const auto& kv : obj) EXPECT_FALSE(kv.key().starts_with("x-proto")) << at;
  });
  // Types with their own JSON, as kube publishes them.
  EXPECT_EQ(defs.at("io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"), (json::object{{"type", "object"}}));
  EXPECT_EQ(defs.at("io.k8s.apimachinery.pkg.runtime.RawExtension"), (json::object{{"type", "object"}}));
  EXPECT_EQ(defs.at("io.k8s.apimachinery.pkg.apis.meta.v1.Time"),
            (json::object{{"type", "string"}, {"format", "date-time"}}));
  // Kinds carry their GVK; merge metadata stays on the property.
  EXPECT_EQ(At(defs, {"io.k8s.api.core.v1.ConfigMap", "x-kubernetes-group-version-kind"}).at(0).at("kind"), "ConfigMap");
  const json::object& owners = At(defs, {"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "properties", "ownerReferences"}).as_object();
  EXPECT_EQ(owners.at("x-kubernetes-patch-merge-key"), "uid");
  EXPECT_EQ(owners.at("x-kubernetes-patch-strategy"), "merge");
  EXPECT_EQ(At(owners, {"items", "$ref"}), "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference");
  // Properties in sorted order.
  std::vector<std::string> keys;
  for (const auto& kv : At(defs, {"io.k8s.api.core.v1.ConfigMap", "properties"}).as_object()) keys.emplace_back(kv.key());
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
}

TEST_F(OpenApiDocumentsTest, V3GroupVersionDocument) {
  OpenApiDocuments docs = Docs();
  auto doc = docs.V3("api/v1");
  ASSERT_TRUE(doc);
  json::object o = ParseObject(doc->json);
  EXPECT_EQ(o.at("openapi"), "3.0.0");
  EXPECT_EQ(At(o, {"info", "title"}), "Kubernetes");
  EXPECT_EQ(At(o, {"components", "securitySchemes", "BearerToken", "name"}), "authorization");
  EXPECT_FALSE(o.at("paths").as_object().contains("/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"));
  const json::object& schemas = At(o, {"components", "schemas"}).as_object();
  EXPECT_TRUE(schemas.contains("io.k8s.api.core.v1.ConfigMap"));
  EXPECT_FALSE(schemas.contains("io.k8s.api.coordination.v1.Lease"));
  // A $ref with siblings is wrapped in allOf; built-in defaults are kept.
  EXPECT_EQ(At(schemas, {"io.k8s.api.core.v1.ConfigMap", "properties", "metadata"}),
            (json::object{{"allOf", json::array{json::object{{"$ref", "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}}},
                          {"default", json::object()}}));
  // Map values and array items of built-in kinds carry Go's zero value.
  EXPECT_EQ(At(schemas, {"io.k8s.api.core.v1.ConfigMap", "properties", "data", "additionalProperties"}),
            (json::object{{"type", "string"}, {"default", ""}}));
  EXPECT_EQ(At(schemas, {"io.k8s.api.core.v1.ConfigMap", "properties", "binaryData", "additionalProperties"}),
            (json::object{{"type", "string"}, {"format", "byte"}}));
  EXPECT_EQ(At(schemas, {"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "properties", "ownerReferences", "items"}),
            (json::object{{"allOf", json::array{json::object{{"$ref", "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"}}}},
                          {"default", json::object()}}));
  EXPECT_EQ(At(schemas, {"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "properties", "finalizers", "items"}),
            (json::object{{"type", "string"}, {"default", ""}}));

  // kubectl finds the PATCH operation by GVK, reads its fieldValidation query parameter and its
  // strategic-merge-patch request body.
  const json::object& patch = At(o, {"paths", "/api/v1/namespaces/{namespace}/configmaps/{name}", "patch"}).as_object();
  EXPECT_EQ(patch.at("x-kubernetes-group-version-kind"), (json::object{{"group", ""}, {"kind", "ConfigMap"}, {"version", "v1"}}));
  bool fv = false;
  for (const auto& p : patch.at("parameters").as_array()) {
    if (p.at("name") == "fieldValidation") {
      fv = true;
      EXPECT_EQ(p.at("in"), "query");
      EXPECT_EQ(p.at("schema"), (json::object{{"type", "string"}, {"uniqueItems", true}}));
    }
  }
  EXPECT_TRUE(fv);
  const json::object& content = At(patch, {"requestBody", "content"}).as_object();
  EXPECT_TRUE(content.contains("application/strategic-merge-patch+json"));
  EXPECT_EQ(At(content, {"application/apply-patch+yaml", "schema", "$ref"}),
            "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch");
  EXPECT_EQ(At(patch, {"requestBody", "required"}), true);
  EXPECT_EQ(At(patch, {"responses", "200", "content", "application/json", "schema", "$ref"}),
            "#/components/schemas/io.k8s.api.core.v1.ConfigMap");
  // A create takes */*, a delete's body is optional.
  EXPECT_TRUE(At(o, {"paths", "/api/v1/namespaces/{namespace}/configmaps", "post", "requestBody", "content"})
                  .as_object()
                  .contains("*/*"));
  EXPECT_FALSE(At(o, {"paths", "/api/v1/namespaces/{namespace}/configmaps/{name}", "delete", "requestBody"})
                   .as_object()
                   .contains("required"));
  // Path-level parameters.
  const json::array& common = At(o, {"paths", "/api/v1/namespaces/{namespace}/configmaps/{name}", "parameters"}).as_array();
  ASSERT_EQ(common.size(), 3u);
  EXPECT_EQ(common[0].at("name"), "name");
  EXPECT_EQ(common[0].at("required"), true);
  EXPECT_EQ(common[1].at("name"), "namespace");
  EXPECT_EQ(common[2].at("name"), "pretty");
  // Every $ref resolves within the document.
  Walk(o, "", [&](const json::object& obj, const std::string& at) {
    if (auto* r = obj.if_contains("$ref")) {
      ASSERT_TRUE(r->as_string().starts_with("#/components/schemas/")) << at;
      EXPECT_TRUE(schemas.contains(r->as_string().subview().substr(21))) << at;
    }
  });
}

TEST_F(OpenApiDocumentsTest, V3IndexNamesEveryServiceWithItsHash) {
  OpenApiDocuments docs = Docs();
  json::object index = ParseObject(docs.V3Index()->json);
  const json::object& paths = index.at("paths").as_object();
  EXPECT_EQ(paths.size(), 6u);
  for (const char* root : {"api", "api/v1", "apis", "apis/coordination.k8s.io", "apis/coordination.k8s.io/v1", "version"}) {
    ASSERT_TRUE(paths.contains(root)) << root;
    auto doc = docs.V3(root);
    ASSERT_TRUE(doc) << root;
    EXPECT_EQ(doc->etag.size(), 128u);
    EXPECT_EQ(At(paths, {root, "serverRelativeURL"}).as_string(), "/openapi/v3/" + std::string(root) + "?hash=" + doc->etag);
  }
  EXPECT_FALSE(docs.V3("apis/apps/v1"));
  EXPECT_FALSE(docs.V3(""));
}

TEST_F(OpenApiDocumentsTest, CachedPerSnapshotAndRebuiltOnlyWhereTheApiChanged) {
  OpenApiDocuments docs = Docs();
  auto v2 = docs.V2();
  auto core = docs.V3("api/v1");
  auto lease = docs.V3("apis/coordination.k8s.io/v1");
  auto index = docs.V3Index();
  EXPECT_EQ(docs.V2(), v2);
  EXPECT_EQ(docs.V3("api/v1"), core);
  EXPECT_EQ(docs.V3Index(), index);
  auto before = docs.stats();
  EXPECT_EQ(before.v2_builds, 1u);
  EXPECT_EQ(before.v3_builds, 6u);
  EXPECT_EQ(before.v3_index_builds, 1u);

  // A new resource in core/v1: the core document, the index and v2 change; coordination is reused.
  testing::InstallStub<testing::FullStub>(
      apis_, testing::Info("", "v1", "secrets", "Secret", true, "io.k8s.api.core.v1.Secret"), BuiltinSchemas().get());
  auto core2 = docs.V3("api/v1");
  EXPECT_NE(core2->etag, core->etag);
  EXPECT_NE(core2->json.find("/api/v1/namespaces/{namespace}/secrets"), std::string::npos);
  EXPECT_EQ(docs.V3("apis/coordination.k8s.io/v1"), lease);
  auto index2 = docs.V3Index();
  EXPECT_NE(index2->etag, index->etag);
  EXPECT_NE(index2->json.find("api/v1?hash=" + core2->etag), std::string::npos);
  EXPECT_NE(docs.V2()->etag, v2->etag);
  auto after = docs.stats();
  EXPECT_EQ(after.v3_builds, before.v3_builds + 1);
  EXPECT_EQ(after.v3_index_builds, before.v3_index_builds + 1);
  EXPECT_EQ(after.v2_builds, 2u);

  // A new group adds two documents; removing it takes them away again.
  testing::InstallStub<testing::FullStub>(
      apis_, testing::Info("apps", "v1", "deployments", "Deployment", true, "io.k8s.api.apps.v1.Deployment"),
      BuiltinSchemas().get());
  ASSERT_TRUE(docs.V3("apis/apps/v1"));
  ASSERT_TRUE(docs.V3("apis/apps"));
  EXPECT_NE(docs.V3Index()->json.find("apis/apps/v1?hash="), std::string::npos);
  apis_.Remove("apps", "v1", "deployments");
  EXPECT_FALSE(docs.V3("apis/apps/v1"));
  EXPECT_EQ(docs.V3Index()->json.find("apis/apps"), std::string::npos);
  EXPECT_EQ(docs.V3Index()->etag, index2->etag) << "the same API gives the same index bytes";
}

TEST_F(OpenApiDocumentsTest, SameApiSameBytes) {
  OpenApiDocuments a = Docs();
  OpenApiDocuments b = Docs();
  EXPECT_EQ(a.V2()->json, b.V2()->json);
  EXPECT_EQ(a.V3Index()->json, b.V3Index()->json);
  EXPECT_EQ(OpenApiEtag(""), std::string("CF83E1357EEFB8BDF1542850D66D8007D620E4050B5715DC83F4A921D36CE9CE47D0D13C5D85F2B0FF8318D2877EEC2F63B931BD47417A81A538327AF927DA3E"));
}

TEST_F(OpenApiDocumentsTest, CustomResourceBringsItsSchema) {
  auto schema = apimachinery::ParseSchemaJson(
      R"({"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},
          "metadata":{"type":"object"},"spec":{"type":"object","properties":{"cronSpec":{"type":"string"},
          "replicas":{"type":"integer","minimum":1}}}},
          "x-kubernetes-group-version-kind":[{"group":"stable.example.com","kind":"CronTab","version":"v1"}]})");
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  testing::InstallStub<testing::FullStub>(
      apis_, testing::Info("stable.example.com", "v1", "crontabs", "CronTab", true, "com.example.stable.v1.CronTab"),
      BuiltinSchemas().get(), /*custom=*/true, schema->get());
  OpenApiDocuments docs = Docs();
  json::object o = ParseObject(docs.V3("apis/stable.example.com/v1")->json);
  const json::object& schemas = At(o, {"components", "schemas"}).as_object();
  EXPECT_EQ(At(schemas, {"com.example.stable.v1.CronTab", "properties", "spec", "properties", "replicas", "minimum"}), 1);
  // No zero-value defaults for a custom resource's own schema.
  EXPECT_FALSE(At(schemas, {"com.example.stable.v1.CronTab", "properties", "spec", "properties", "cronSpec"})
                   .as_object()
                   .contains("default"));
  const json::object& patch =
      At(o, {"paths", "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}", "patch"}).as_object();
  EXPECT_FALSE(At(patch, {"requestBody", "content"}).as_object().contains("application/strategic-merge-patch+json"));
  EXPECT_EQ(At(patch, {"responses", "200", "content"}).as_object().size(), 2u) << "JSON and YAML, no protobuf";
  const json::object& del =
      At(o, {"paths", "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}", "delete"}).as_object();
  EXPECT_EQ(At(del, {"responses", "200", "content", "application/json", "schema", "$ref"}),
            "#/components/schemas/com.example.stable.v1.CronTab");
  EXPECT_EQ(At(o, {"paths", "/apis/stable.example.com/v1/namespaces/{namespace}/crontabs", "get", "operationId"}),
            "listStableExampleComV1NamespacedCronTab");
}

}  // namespace
}  // namespace capstan::endpoints
