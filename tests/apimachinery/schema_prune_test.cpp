// Cases ported from kube's apiextensions-apiserver pruning tests (pruning/algorithm_test.go).
#include "apimachinery/schema_prune.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace capstan::apimachinery {
namespace {

using testing::J;
using testing::S;
using Paths = std::vector<std::string>;

struct Pruned {
  boost::json::value object;
  Paths paths;
};

Pruned Prune(std::string_view schema, std::string_view obj, bool root = false) {
  auto s = schema.empty() ? nullptr : S(schema);
  Pruned p{J(obj), {}};
  p.paths = PruneBySchema(p.object, s.get(), root);
  return p;
}

TEST(SchemaPruneTest, ObjectArray) {
  auto p = Prune(R"({"items":{"properties":{"a":{},"c":{}}}})", R"([{"a":1},{"b":1},{"a":1,"b":2,"c":3}])");
  EXPECT_EQ(p.object, J(R"([{"a":1},{},{"a":1,"c":3}])"));
  EXPECT_EQ(p.paths, (Paths{"[1].b", "[2].b"}));
}

TEST(SchemaPruneTest, NilSchemaPrunesEverything) {
  auto p = Prune("", R"([{"a":1},{"b":1},{"a":1,"b":2,"c":3}])");
  EXPECT_EQ(p.object, J(R"([{},{},{}])"));
  EXPECT_EQ(p.paths, (Paths{"[0].a", "[1].b", "[2].a", "[2].b", "[2].c"}));
}

TEST(SchemaPruneTest, ObjectArrayObject) {
  auto p = Prune(R"({"properties":{"array":{"items":{"properties":{"a":{},"c":{}}}},"specified":{"properties":{"a":{},"c":{}}}}})",
                 R"({"array":[{"a":1},{"b":1},{"a":1,"b":2,"c":3}],"unspecified":{"a":1},"specified":{"a":1,"b":2,"c":3}})");
  EXPECT_EQ(p.object, J(R"({"array":[{"a":1},{},{"a":1,"c":3}],"specified":{"a":1,"c":3}})"));
  EXPECT_EQ(p.paths, (Paths{"array[1].b", "array[2].b", "specified.b", "unspecified"}));
}

TEST(SchemaPruneTest, NestedPreserveUnknownFields) {
  auto p = Prune(R"({"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
      "alpha":{"type":"string"},"beta":{"type":"number"},
      "pruning":{"type":"object","properties":{
          "preserving":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
          "pruning":{"type":"object"}}},
      "preserving":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
          "preserving":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
          "preservingUnknownType":{"x-kubernetes-preserve-unknown-fields":true},
          "pruning":{"type":"object"}}},
      "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields":{"type":"object",
          "x-kubernetes-preserve-unknown-fields":true,
          "additionalProperties":{"type":"object","properties":{"specified":{"type":"object"}}}},
      "preservingAdditionalPropertiesKeyPruneValues":{"type":"object",
          "additionalProperties":{"type":"object","properties":{"specified":{"type":"object"}}}}}})",
                 R"({
  "unspecified":"bar", "alpha": "abc", "beta": 42.0, "unspecifiedObject": {"unspecified": "bar"},
  "pruning": {"unspecified": "bar", "unspecifiedObject": {"unspecified": "bar"}, "pruning": {"unspecified": "bar"},
              "apiVersion": "unknown", "preserving": {"unspecified": "bar"}},
  "preserving": {"unspecified": "bar", "unspecifiedObject": {"unspecified": "bar"}, "pruning": {"unspecified": "bar"},
                 "preserving": {"unspecified": "bar"}, "preservingUnknownType": [{"foo":true},{"bar":true}]},
  "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields": {"foo": {"specified": {"unspecified":"bar"}, "unspecified": "bar"}},
  "preservingAdditionalPropertiesKeyPruneValues": {"foo": {"specified": {"unspecified":"bar"}, "unspecified": "bar"}}})");
  EXPECT_EQ(p.object, J(R"({
  "unspecified":"bar", "alpha": "abc", "beta": 42.0, "unspecifiedObject": {"unspecified": "bar"},
  "pruning": {"pruning": {}, "preserving": {"unspecified": "bar"}},
  "preserving": {"unspecified": "bar", "unspecifiedObject": {"unspecified": "bar"}, "pruning": {},
                 "preserving": {"unspecified": "bar"}, "preservingUnknownType": [{"foo":true},{"bar":true}]},
  "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields": {"foo": {"specified": {}}},
  "preservingAdditionalPropertiesKeyPruneValues": {"foo": {"specified": {}}}})"));
  EXPECT_EQ(p.paths, (Paths{"preserving.pruning.unspecified",
                            "preservingAdditionalPropertiesKeyPruneValues.foo.specified.unspecified",
                            "preservingAdditionalPropertiesKeyPruneValues.foo.unspecified",
                            "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.specified.unspecified",
                            "preservingAdditionalPropertiesNotInheritingXPreserveUnknownFields.foo.unspecified",
                            "pruning.apiVersion", "pruning.pruning.unspecified", "pruning.unspecified",
                            "pruning.unspecifiedObject"}));
}

TEST(SchemaPruneTest, AdditionalPropertiesSchemaAndBool) {
  auto p = Prune(R"({"properties":{"a":{},"c":{"additionalProperties":{"type":"integer"}}}})",
                 R"({"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1}}})");
  EXPECT_EQ(p.object, J(R"({"a":1,"c":{"a":1,"b":2,"c":{}}})"));
  EXPECT_EQ(p.paths, (Paths{"b", "c.c.a"}));
  auto q = Prune(R"({"properties":{"a":{},"c":{"additionalProperties":false}}})",
                 R"({"a":1,"b":1,"c":{"a":1,"b":2,"c":{"a":1, "apiVersion": "unknown"}}})");
  EXPECT_EQ(q.object, J(R"({"a":1,"c":{"a":1,"b":2,"c":{}}})"));
  EXPECT_EQ(q.paths, (Paths{"b", "c.c.a", "c.c.apiVersion"}));
}

constexpr std::string_view kEmbeddedSchema = R"({"type":"object","properties":{
    "pruned":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object"}}},
    "preserving":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
    "nested":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object","properties":{
        "embedded":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object"}}}}}}}}})";

constexpr std::string_view kEmbeddedObject = R"({
  "apiVersion": "foo/v1", "kind": "Foo", "metadata": {"name": "instance", "unspecified": "bar"}, "unspecified":"bar",
  "pruned": {"apiVersion": "foo/v1", "kind": "Foo", "unspecified": "bar",
             "metadata": {"name": "instance", "unspecified": "bar"}, "spec": {"unspecified": "bar"}},
  "preserving": {"apiVersion": "foo/v1", "kind": "Foo", "unspecified": "bar",
                 "metadata": {"name": "instance", "unspecified": "bar"}, "spec": {"unspecified": "bar"}},
  "nested": {"apiVersion": "foo/v1", "kind": "Foo", "unspecified": "bar",
             "metadata": {"name": "instance", "unspecified": "bar"},
             "spec": {"unspecified": "bar", "embedded": {"apiVersion": "foo/v1", "kind": "Foo", "unspecified": "bar",
                      "metadata": {"name": "instance", "unspecified": "bar"}, "spec": {"unspecified": "bar"}}}}})";

constexpr std::string_view kEmbeddedPruned = R"(
  "pruned": {"apiVersion": "foo/v1", "kind": "Foo", "metadata": {"name": "instance", "unspecified": "bar"}, "spec": {}},
  "preserving": {"apiVersion": "foo/v1", "kind": "Foo", "unspecified": "bar",
                 "metadata": {"name": "instance", "unspecified": "bar"}, "spec": {"unspecified": "bar"}},
  "nested": {"apiVersion": "foo/v1", "kind": "Foo", "metadata": {"name": "instance", "unspecified": "bar"},
             "spec": {"embedded": {"apiVersion": "foo/v1", "kind": "Foo",
                      "metadata": {"name": "instance", "unspecified": "bar"}, "spec": {}}}}})";

const Paths kEmbeddedPaths = {"nested.spec.embedded.spec.unspecified", "nested.spec.embedded.unspecified",
                              "nested.spec.unspecified", "nested.unspecified", "pruned.spec.unspecified",
                              "pruned.unspecified", "unspecified"};

TEST(SchemaPruneTest, EmbeddedResourcesKeepTypeAndObjectMeta) {
  auto p = Prune(kEmbeddedSchema, kEmbeddedObject, /*root=*/false);
  EXPECT_EQ(p.object, J("{" + std::string(kEmbeddedPruned)));
  EXPECT_EQ(p.paths, kEmbeddedPaths);
}

TEST(SchemaPruneTest, ResourceRootKeepsItsTypeAndObjectMeta) {
  auto p = Prune(kEmbeddedSchema, kEmbeddedObject, /*root=*/true);
  EXPECT_EQ(p.object, J(R"({"apiVersion": "foo/v1", "kind": "Foo", "metadata": {"name": "instance", "unspecified": "bar"},)" +
                        std::string(kEmbeddedPruned)));
  EXPECT_EQ(p.paths, kEmbeddedPaths);
  EXPECT_EQ(UnknownFieldMessage(p.paths.back()), R"(unknown field "unspecified")");
}

TEST(SchemaPruneTest, RefsAreFollowed) {
  SchemaRegistry reg;
  ASSERT_TRUE(reg.AddDocumentJson(R"({"definitions":{
      "Spec":{"type":"object","properties":{"replicas":{"type":"integer"}}},
      "Thing":{"type":"object","properties":{"spec":{"$ref":"#/definitions/Spec"}}}}})").ok());
  ASSERT_TRUE(reg.Resolve().ok());
  boost::json::value obj = J(R"({"apiVersion":"v1","kind":"Thing","spec":{"replicas":1,"foo":2},"bar":3})");
  EXPECT_EQ(PruneBySchema(obj, reg.Find("Thing")), (Paths{"bar", "spec.foo"}));
  EXPECT_EQ(obj, J(R"({"apiVersion":"v1","kind":"Thing","spec":{"replicas":1}})"));
}

}  // namespace
}  // namespace capstan::apimachinery

namespace capstan::apimachinery {
namespace {

TEST(SchemaPruneTest, DeepRecursiveDocumentsArePrunedWithoutQuadraticPaths) {
  SchemaRegistry reg;
  ASSERT_TRUE(reg.AddDocumentJson(R"({"definitions":{"Node":{"type":"object","properties":{
      "child":{"$ref":"#/definitions/Node"}}}}})").ok());
  ASSERT_TRUE(reg.Resolve().ok());
  boost::json::value doc = boost::json::object();
  boost::json::value* cur = &doc;
  for (int i = 0; i < 3000; ++i) cur = &(cur->as_object()["child"] = boost::json::object());
  cur->as_object()["extra"] = 1;
  auto paths = PruneBySchema(doc, reg.Find("Node"), false);
  ASSERT_EQ(paths.size(), 1u);
  EXPECT_EQ(paths[0].size(), 3000 * 6 + 5);  // "child." x 3000 + "extra"
}

}  // namespace
}  // namespace capstan::apimachinery
