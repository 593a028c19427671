// Published definitions: kube's shapes for the types with their own JSON, v2/v3 differences,
// reference collection, closure.
#include "endpoints/openapi_schema.h"

#include <gtest/gtest.h>

#include "endpoints/openapi_test_util.h"
#include "util/feature_gate.h"

namespace capstan::endpoints {
namespace {

namespace json = boost::json;
using testing::BuiltinSchemas;

json::value Published(std::string_view name, OpenApiVersion v, std::vector<std::string>* refs = nullptr) {
  OpenApiDefinitions defs(BuiltinSchemas().get());
  const apimachinery::Schema* s = defs.Find(name);
  EXPECT_NE(s, nullptr) << name;
  if (s == nullptr) return nullptr;
  return PublishedDefinition(defs, name, *s, v, refs);
}

TEST(OpenApiSchemaTest, IntOrStringAndQuantityAsKubePublishesThem) {
  EXPECT_EQ(Published("io.k8s.apimachinery.pkg.util.intstr.IntOrString", OpenApiVersion::kV2),
            (json::object{{"type", "string"}, {"format", "int-or-string"}}));
  EXPECT_EQ(Published("io.k8s.apimachinery.pkg.util.intstr.IntOrString", OpenApiVersion::kV3),
            (json::object{{"format", "int-or-string"},
                          {"oneOf", json::array{json::object{{"type", "integer"}}, json::object{{"type", "string"}}}}}));
  EXPECT_EQ(Published("io.k8s.apimachinery.pkg.api.resource.Quantity", OpenApiVersion::kV2),
            (json::object{{"type", "string"}}));
  EXPECT_EQ(Published("io.k8s.apimachinery.pkg.api.resource.Quantity", OpenApiVersion::kV3),
            (json::object{{"oneOf", json::array{json::object{{"type", "string"}}, json::object{{"type", "number"}}}}}));
}

TEST(OpenApiSchemaTest, OpaqueJsonTypesLoseThePruningMarker) {
  for (auto v : {OpenApiVersion::kV2, OpenApiVersion::kV3}) {
    EXPECT_EQ(Published("io.k8s.apimachinery.pkg.runtime.RawExtension", v), (json::object{{"type", "object"}}));
    EXPECT_EQ(Published("io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1", v), (json::object{{"type", "object"}}));
    EXPECT_EQ(Published("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON", v), json::object());
    EXPECT_EQ(Published("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool", v),
              json::object());
  }
}

TEST(OpenApiSchemaTest, ReferencesAreCollectedAndWrappedInV3) {
  std::vector<std::string> refs;
  json::value v2 = Published("io.k8s.api.core.v1.ConfigMapList", OpenApiVersion::kV2, &refs);
  EXPECT_EQ(refs, (std::vector<std::string>{"io.k8s.api.core.v1.ConfigMap", "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}));
  // v2: bare references, no defaults.
  EXPECT_EQ(v2.at("properties").at("metadata"),
            (json::object{{"$ref", "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}}));
  EXPECT_EQ(v2.at("properties").at("items").at("items"),
            (json::object{{"$ref", "#/definitions/io.k8s.api.core.v1.ConfigMap"}}));
  EXPECT_EQ(v2.at("required"), json::array{"items"});
  // v3: a reference with a sibling (its default) is wrapped in allOf.
  json::value v3 = Published("io.k8s.api.core.v1.ConfigMapList", OpenApiVersion::kV3);
  EXPECT_EQ(v3.at("properties").at("items").at("items"),
            (json::object{{"allOf", json::array{json::object{{"$ref", "#/components/schemas/io.k8s.api.core.v1.ConfigMap"}}}},
                          {"default", json::object()}}));
  EXPECT_EQ(v3.at("x-kubernetes-group-version-kind").at(0).at("kind"), "ConfigMapList");
}

TEST(OpenApiSchemaTest, ItemsOfTypesWithTheirOwnJsonGetNoDefault) {
  // ResourceList values are Quantities: kube gives them no zero value.
  json::value spec = Published("io.k8s.api.core.v1.ResourceRequirements", OpenApiVersion::kV3);
  EXPECT_EQ(spec.at("properties").at("limits").at("additionalProperties"),
            (json::object{{"$ref", "#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity"}}));
}

TEST(OpenApiSchemaTest, ListWrappersAreInlined) {
  std::vector<std::string> refs;
  json::value res = Published("io.k8s.apimachinery.pkg.apis.meta.v1.APIResource", OpenApiVersion::kV3, &refs);
  EXPECT_EQ(res.at("properties").at("verbs"),
            (json::object{{"type", "array"}, {"items", json::object{{"type", "string"}, {"default", ""}}}}));
  for (const auto& r : refs) EXPECT_NE(r, "io.k8s.apimachinery.pkg.apis.meta.v1.Verbs");
}

TEST(OpenApiSchemaTest, ClosureAndMissingNames) {
  OpenApiDefinitions defs(BuiltinSchemas().get());
  DefinitionSet set = BuildDefinitions(defs, {"io.k8s.api.coordination.v1.Lease", "io.example.Nope"}, OpenApiVersion::kV3);
  EXPECT_EQ(set.missing, std::vector<std::string>{"io.example.Nope"});
  std::vector<std::string> names;
  for (const auto& [n, s] : set.definitions) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "io.k8s.api.coordination.v1.Lease", "io.k8s.api.coordination.v1.LeaseSpec",
                       "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
                       "io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry",
                       "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime", "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
                       "io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference", "io.k8s.apimachinery.pkg.apis.meta.v1.Time"}));
}

TEST(OpenApiSchemaTest, ExtraDefinitionsKeepTheirSchemaAsWritten) {
  auto crd = apimachinery::ParseSchemaJson(
      R"({"type":"object","properties":{"metadata":{"$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
          "description":"standard metadata"},"n":{"type":"number","maximum":2.5,"nullable":true},
          "any":{"x-kubernetes-preserve-unknown-fields":true},
          "list":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set"}}})",
      BuiltinSchemas());
  ASSERT_TRUE(crd.ok()) << crd.status().message();
  OpenApiDefinitions defs(BuiltinSchemas().get());
  defs.Add("com.example.v1.Thing", crd->get());
  EXPECT_FALSE(defs.IsBuiltin("com.example.v1.Thing"));
  EXPECT_TRUE(defs.IsBuiltin("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"));
  std::vector<std::string> refs;
  json::value v3 = PublishedDefinition(defs, "com.example.v1.Thing", **crd, OpenApiVersion::kV3, &refs);
  EXPECT_EQ(refs, std::vector<std::string>{"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"});
  EXPECT_EQ(v3.at("properties").at("metadata"),
            (json::object{{"allOf", json::array{json::object{{"$ref", "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}}},
                          {"description", "standard metadata"}}));
  EXPECT_EQ(v3.at("properties").at("n"), (json::object{{"type", "number"}, {"maximum", 2.5}, {"nullable", true}}));
  EXPECT_EQ(v3.at("properties").at("any"), (json::object{{"x-kubernetes-preserve-unknown-fields", true}}));
  EXPECT_EQ(v3.at("properties").at("list"),
            (json::object{{"type", "array"}, {"items", json::object{{"type", "string"}}}, {"x-kubernetes-list-type", "set"}}));
  json::value v2 = PublishedDefinition(defs, "com.example.v1.Thing", **crd, OpenApiVersion::kV2, nullptr);
  EXPECT_EQ(v2.at("properties").at("metadata"),
            (json::object{{"$ref", "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
                          {"description", "standard metadata"}}));
}

json::value Documented(std::string_view name, OpenApiVersion v) {
  OpenApiDefinitions defs(testing::DocumentedBuiltinSchemas().get());
  const apimachinery::Schema* s = defs.Find(name);
  EXPECT_NE(s, nullptr) << name;
  if (s == nullptr) return nullptr;
  return PublishedDefinition(defs, name, *s, v, nullptr);
}

// kube-apiserver 1.32's texts (its /openapi/v2 and /openapi/v3 with the OpenAPIEnums gate on).
constexpr std::string_view kRestartPolicyText =
    "Restart policy for all containers within the pod. One of Always, OnFailure, Never. In some contexts, only a "
    "subset of those values may be permitted. Default to Always. More info: "
    "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#restart-policy";
constexpr std::string_view kRestartPolicyEnums = "\n\nPossible enum values:\n - `\"Always\"`\n - `\"Never\"`\n - `\"OnFailure\"`";

TEST(OpenApiSchemaTest, BuiltinDefinitionsCarryKubesDescriptionsAndEnums) {
  json::value v2 = Documented("io.k8s.api.core.v1.PodSpec", OpenApiVersion::kV2);
  EXPECT_EQ(v2.at("description"), "PodSpec is a description of a pod.");
  EXPECT_EQ(v2.at("properties").at("restartPolicy"),
            (json::object{{"description", std::string(kRestartPolicyText) + std::string(kRestartPolicyEnums)},
                          {"type", "string"},
                          {"enum", json::array{"Always", "Never", "OnFailure"}}}));
  // A reference keeps the field's description beside it (v2) or in an allOf wrapper (v3).
  EXPECT_EQ(v2.at("properties").at("affinity"),
            (json::object{{"$ref", "#/definitions/io.k8s.api.core.v1.Affinity"},
                          {"description", "If specified, the pod's scheduling constraints"}}));
  json::value v3 = Documented("io.k8s.api.core.v1.PodSpec", OpenApiVersion::kV3);
  EXPECT_EQ(v3.at("properties").at("affinity"),
            (json::object{{"allOf", json::array{json::object{{"$ref", "#/components/schemas/io.k8s.api.core.v1.Affinity"}}}},
                          {"description", "If specified, the pod's scheduling constraints"}}));
  // Enums of slice items; descriptions of the types with their own JSON.
  json::value pvc = Documented("io.k8s.api.core.v1.PersistentVolumeClaimSpec", OpenApiVersion::kV3);
  EXPECT_EQ(pvc.at("properties").at("accessModes").at("items").at("enum"),
            (json::array{"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"}));
  EXPECT_EQ(Documented("io.k8s.apimachinery.pkg.apis.meta.v1.Time", OpenApiVersion::kV2).at("description"),
            "Time is a wrapper around time.Time which supports correct marshaling to YAML and JSON.  Wrappers are "
            "provided for many of the factory methods that the time package offers.");
  EXPECT_EQ(Documented("io.k8s.apimachinery.pkg.util.intstr.IntOrString", OpenApiVersion::kV3).at("format"),
            "int-or-string");
  EXPECT_TRUE(Documented("io.k8s.apimachinery.pkg.util.intstr.IntOrString", OpenApiVersion::kV3)
                  .at("description").as_string().starts_with("IntOrString is a type that can hold an int32 or a string."));
}

TEST(OpenApiSchemaTest, EnumsAreLeftOutWithTheOpenApiEnumsGateOff) {
  ASSERT_EQ(features::MutableGates().Set({"OpenAPIEnums=false"}), "");
  json::value v2 = Documented("io.k8s.api.core.v1.PodSpec", OpenApiVersion::kV2);
  json::value pvc = Documented("io.k8s.api.core.v1.PersistentVolumeClaimSpec", OpenApiVersion::kV3);
  ASSERT_EQ(features::MutableGates().Set({"OpenAPIEnums=true"}), "");
  // kube's pruneEnums: no enum, and the description ends before its enum paragraph.
  EXPECT_EQ(v2.at("properties").at("restartPolicy"),
            (json::object{{"description", kRestartPolicyText}, {"type", "string"}}));
  EXPECT_EQ(pvc.at("properties").at("accessModes").at("items"), (json::object{{"type", "string"}, {"default", ""}}));
}

TEST(OpenApiSchemaTest, CustomDefinitionsKeepTheirOwnDescriptions) {
  auto crd = apimachinery::ParseSchemaJson(R"({"type":"object","description":"mine"})", BuiltinSchemas());
  ASSERT_TRUE(crd.ok());
  OpenApiDefinitions defs(testing::DocumentedBuiltinSchemas().get());
  defs.Add("io.k8s.api.core.v1.PodSpec", crd->get());  // shadows the built-in one
  EXPECT_EQ(defs.Documentation("io.k8s.api.core.v1.PodSpec"), nullptr);
  EXPECT_EQ(PublishedDefinition(defs, "io.k8s.api.core.v1.PodSpec", **crd, OpenApiVersion::kV2, nullptr),
            (json::object{{"description", "mine"}, {"type", "object"}}));
}

}  // namespace
}  // namespace capstan::endpoints
