#include "apimachinery/schema.h"

#include <gtest/gtest.h>

#include <thread>

#include "apimachinery/schema_registry.h"
#include "apimachinery/schema_validate.h"
#include "schema_test_util.h"

namespace capstan::apimachinery {
namespace {

using testing::J;
using testing::S;

TEST(SchemaTest, ParsesKeywordsAndKeepsPropertyOrder) {
  auto s = S(R"({"type":"object","description":"d","required":["b"],"minProperties":1,
      "properties":{"b":{"type":"string","format":"date-time","pattern":"^a","maxLength":3,"enum":["a","ab"]},
                    "a":{"type":"integer","format":"int32","minimum":1,"maximum":5,"exclusiveMaximum":true,"multipleOf":2,"default":2},
                    "l":{"type":"array","items":{"type":"string"},"minItems":1,"uniqueItems":true,
                         "x-kubernetes-list-type":"set"},
                    "m":{"type":"object","additionalProperties":{"type":"string"},"x-kubernetes-map-type":"atomic"},
                    "x":{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-embedded-resource":true,"type":"object"},
                    "n":{"additionalProperties":false,"nullable":true}}})");
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->properties.size(), 6u);
  EXPECT_EQ(s->properties[0].first, "b");
  EXPECT_EQ(s->properties[1].first, "a");
  EXPECT_EQ(s->description, "d");
  EXPECT_EQ(s->required, std::vector<std::string>{"b"});
  const Schema* b = s->Property("b");
  EXPECT_EQ(b->SingleType(), "string");
  EXPECT_EQ(b->validation_format, "date-time");
  EXPECT_NE(b->pattern_re, nullptr);
  EXPECT_EQ(*b->max_length, 3);
  EXPECT_EQ(b->enum_values.size(), 2u);
  const Schema* a = s->Property("a");
  EXPECT_EQ(*a->minimum, 1);
  EXPECT_TRUE(a->exclusive_maximum);
  EXPECT_EQ(*a->multiple_of, 2);
  EXPECT_EQ(*a->Default(), J("2"));
  const Schema* l = s->Property("l");
  EXPECT_EQ(l->list_type, ListType::kSet);
  EXPECT_TRUE(l->unique_items);
  EXPECT_EQ(l->items->SingleType(), "string");
  const Schema* m = s->Property("m");
  EXPECT_EQ(m->additional_properties_kind, AdditionalPropertiesKind::kSchema);
  EXPECT_EQ(m->map_type, MapType::kAtomic);
  EXPECT_TRUE(s->Property("x")->PreservesUnknownFields());
  EXPECT_TRUE(s->Property("x")->EmbeddedResource());
  EXPECT_EQ(s->Property("n")->additional_properties_kind, AdditionalPropertiesKind::kFalse);
  EXPECT_TRUE(s->Property("n")->Nullable());
  EXPECT_EQ(s->Property("missing"), nullptr);
}

TEST(SchemaTest, ValidationFormatDropsWhatKubeDoesNotCheck) {
  auto s = S(R"({"properties":{"a":{"type":"integer","format":"uint32"},"b":{"type":"number","format":"double"},
      "c":{"type":"string","format":"color"},"d":{"type":"string","format":"uuid"},"e":{"type":"boolean","format":"byte"},
      "f":{"x-kubernetes-int-or-string":true,"format":"int-or-string"}}})");
  EXPECT_EQ(s->Property("a")->validation_format, "");
  EXPECT_EQ(s->Property("b")->validation_format, "double");
  EXPECT_EQ(s->Property("c")->validation_format, "");
  EXPECT_EQ(s->Property("d")->validation_format, "uuid");
  EXPECT_EQ(s->Property("e")->validation_format, "");
  EXPECT_EQ(s->Property("f")->validation_format, "");
  EXPECT_EQ(s->Property("f")->validation_type, (std::vector<std::string>{"integer", "string"}));
}

TEST(SchemaTest, KubernetesPatchExtensionsAndXProto) {
  auto s = S(R"({"properties":{"containers":{"type":"array","items":{"type":"object"},
      "x-kubernetes-patch-merge-key":"name","x-kubernetes-patch-strategy":"merge,retainKeys",
      "x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
      "x-kubernetes-validations":[{"rule":"self.size() > 0"}],
      "x-proto":{"tag":2,"type":"message"}},
      "labels":{"type":"object","additionalProperties":{"type":"string"},
      "x-proto":{"tag":11,"type":"map","key":"string","value":"string"}},
      "replicas":{"type":"integer","x-proto":{"tag":1,"type":"int32","ptr":true}}}})");
  const Schema* c = s->Property("containers");
  EXPECT_EQ(c->PatchMergeKey(), "name");
  EXPECT_EQ(c->PatchStrategies(), (std::vector<std::string>{"merge", "retainKeys"}));
  EXPECT_EQ(c->list_type, ListType::kMap);
  EXPECT_EQ(c->list_map_keys, std::vector<std::string>{"name"});
  ASSERT_TRUE(c->validations.has_value());
  ASSERT_TRUE(c->proto.has_value());
  EXPECT_EQ(c->proto->tag, 2);
  EXPECT_EQ(c->proto->type, ProtoType::kMessage);
  const Schema* labels = s->Property("labels");
  EXPECT_EQ(labels->proto->type, ProtoType::kMap);
  EXPECT_EQ(labels->proto->key, ProtoType::kString);
  EXPECT_EQ(labels->proto->value, ProtoType::kString);
  const Schema* r = s->Property("replicas");
  EXPECT_TRUE(r->proto->ptr);
  EXPECT_EQ(ProtoTypeName(r->proto->type), "int32");
}

TEST(SchemaTest, BadInputIsAnErrorNotACrash) {
  EXPECT_FALSE(ParseSchemaJson(R"({"type":3})").ok());
  EXPECT_FALSE(ParseSchemaJson(R"({"properties":[]})").ok());
  EXPECT_FALSE(ParseSchemaJson(R"({"maxLength":"3"})").ok());
  EXPECT_FALSE(ParseSchemaJson(R"({"x-proto":{"tag":1,"type":"complex"}})").ok());
  EXPECT_FALSE(ParseSchemaJson(R"({"x-proto":{"tag":0,"type":"string"}})").ok());
  EXPECT_FALSE(ParseSchemaJson(R"({"$ref":"#/definitions/Nope"})").ok());
  EXPECT_FALSE(ParseSchemaJson("[").ok());
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += R"({"items":)";
  deep += "{}";
  for (int i = 0; i < 300; ++i) deep += "}";
  auto r = ParseSchemaJson(deep);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 400);
  // An invalid pattern parses; validation reports it per value (as kube does).
  auto p = ParseSchemaJson(R"({"pattern":"("})");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->pattern_re, nullptr);
  EXPECT_EQ((*p)->pattern_error, "error parsing regexp: missing closing ): `(`");
}

TEST(SchemaTest, RegistryResolvesRecursiveDefinitionsAcrossDocuments) {
  auto reg = std::make_shared<SchemaRegistry>();
  ASSERT_TRUE(reg->AddDocumentJson(R"({"definitions":{
      "io.k8s.apiextensions.JSONSchemaProps":{"type":"object","properties":{
          "properties":{"type":"object","additionalProperties":{"$ref":"#/definitions/io.k8s.apiextensions.JSONSchemaProps"}},
          "items":{"$ref":"#/definitions/io.k8s.apiextensions.JSONSchemaProps"},
          "meta":{"$ref":"#/definitions/io.k8s.meta.ObjectMeta"}}}}})").ok());
  ASSERT_TRUE(reg->AddDocumentJson(R"({"components":{"schemas":{
      "io.k8s.meta.ObjectMeta":{"type":"object","properties":{"name":{"type":"string"}}}}}})").ok());
  EXPECT_FALSE(reg->Add("io.k8s.meta.ObjectMeta", J("{}")).ok());  // defined twice
  ASSERT_TRUE(reg->Resolve().ok());
  const Schema* props = reg->Find("io.k8s.apiextensions.JSONSchemaProps");
  ASSERT_NE(props, nullptr);
  const Schema& items = props->Property("items")->Deref();
  EXPECT_EQ(&items, props);
  EXPECT_EQ(&items.Property("properties")->additional_properties->Deref(), props);
  EXPECT_EQ(props->Property("meta")->Deref().Property("name")->SingleType(), "string");

  // A standalone schema may point into a resolved registry, which it keeps alive.
  std::shared_ptr<const Schema> crd;
  {
    auto parsed = ParseSchema(J(R"({"type":"object","properties":{"metadata":{"$ref":"#/definitions/io.k8s.meta.ObjectMeta"}}})"), reg);
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    crd = *parsed;
  }
  reg.reset();
  EXPECT_EQ(crd->Property("metadata")->Deref().Property("name")->SingleType(), "string");
}

TEST(SchemaTest, RegistryRejectsBareRefCycles) {
  SchemaRegistry reg;
  ASSERT_TRUE(reg.AddDocumentJson(R"({"definitions":{"A":{"$ref":"#/definitions/B"},"B":{"$ref":"#/definitions/A"}}})").ok());
  EXPECT_FALSE(reg.Resolve().ok());
}

TEST(SchemaTest, SharedReadOnlyAcrossThreads) {
  auto s = S(R"({"type":"object","properties":{"n":{"type":"integer","maximum":3}}})");
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) errors += static_cast<int>(ValidateBySchema(*s, J(R"({"n":5})")).size());
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(errors.load(), 800);
}

}  // namespace
}  // namespace capstan::apimachinery
