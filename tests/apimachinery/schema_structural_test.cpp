// The structural-schema rules with the paths and messages kube reports for CRDs.
#include "apimachinery/schema_structural.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace capstan::apimachinery {
namespace {

using testing::ErrorStrings;
using testing::S;
using Set = std::set<std::string>;

const FieldPath kPath("spec.versions[0].schema.openAPIV3Schema");

Set Check(std::string_view schema) { return ErrorStrings(ValidateStructural(*S(schema), kPath)); }

TEST(SchemaStructuralTest, StructuralSchemasPass) {
  EXPECT_EQ(Check(R"({"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},
      "metadata":{"type":"object"},"spec":{"type":"object","properties":{"replicas":{"type":"integer","minimum":0},
      "port":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]},
      "raw":{"x-kubernetes-preserve-unknown-fields":true},
      "tmpl":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}}})"),
            Set{});
}

TEST(SchemaStructuralTest, RootType) {
  EXPECT_EQ(Check(R"({"type":""})"),
            Set{"spec.versions[0].schema.openAPIV3Schema.type: Required value: must not be empty at the root"});
  EXPECT_EQ(Check(R"({"type":"integer"})"),
            Set{R"(spec.versions[0].schema.openAPIV3Schema.type: Invalid value: "integer": must be object at the root)"});
}

TEST(SchemaStructuralTest, MissingTypes) {
  EXPECT_EQ(Check(R"({"type":"object","properties":{"foo":{"properties":{"a":{}}},
      "abc":{"type":"object","additionalProperties":{"properties":{"a":{"items":{"type":"string"}}}}}}})"),
            (Set{"spec.versions[0].schema.openAPIV3Schema.properties[foo].properties[a].type: Required value: must not be empty for specified object fields",
                 "spec.versions[0].schema.openAPIV3Schema.properties[foo].type: Required value: must not be empty for specified object fields",
                 "spec.versions[0].schema.openAPIV3Schema.properties[abc].additionalProperties.properties[a].type: Required value: must not be empty for specified object fields",
                 "spec.versions[0].schema.openAPIV3Schema.properties[abc].additionalProperties.type: Required value: must not be empty for specified object fields"}));
  EXPECT_EQ(Check(R"({"type":"object","properties":{"l":{"type":"array"},"m":{"type":"array","items":{}}}})"),
            (Set{"spec.versions[0].schema.openAPIV3Schema.properties[l].items: Required value: must be specified",
                 "spec.versions[0].schema.openAPIV3Schema.properties[m].items.type: Required value: must not be empty for specified array items"}));
}

TEST(SchemaStructuralTest, ForbiddenInNestedValueValidation) {
  EXPECT_EQ(Check(R"({"type":"object","properties":{"foo":{"type":"string"}},
      "not":{"type":"string","additionalProperties":true,"title":"hello","description":"world","nullable":true},
      "anyOf":[{"items":{"type":"string","title":"t"}}]})"),
            (Set{"spec.versions[0].schema.openAPIV3Schema.not.type: Forbidden: must be empty to be structural",
                 "spec.versions[0].schema.openAPIV3Schema.not.additionalProperties: Forbidden: must be undefined to be structural",
                 "spec.versions[0].schema.openAPIV3Schema.not.title: Forbidden: must be empty to be structural",
                 "spec.versions[0].schema.openAPIV3Schema.not.description: Forbidden: must be empty to be structural",
                 "spec.versions[0].schema.openAPIV3Schema.not.nullable: Forbidden: must be false to be structural",
                 "spec.versions[0].schema.openAPIV3Schema.anyOf[0].items.type: Forbidden: must be empty to be structural",
                 "spec.versions[0].schema.openAPIV3Schema.anyOf[0].items.title: Forbidden: must be empty to be structural",
                 "spec.versions[0].schema.openAPIV3Schema.items: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.anyOf[0].items"}));
}

TEST(SchemaStructuralTest, CompletenessOfJunctorProperties) {
  EXPECT_EQ(Check(R"({"type":"object","properties":{"bar":{"type":"string"}},"allOf":[{"properties":{"foo":{"minLength":2}}}]})"),
            Set{"spec.versions[0].schema.openAPIV3Schema.properties[foo]: Required value: because it is defined in spec.versions[0].schema.openAPIV3Schema.allOf[0].properties[foo]"});
}

TEST(SchemaStructuralTest, MetadataAndEmbeddedResources) {
  EXPECT_EQ(Check(R"({"type":"object","properties":{"metadata":{"type":"object","properties":{"name":{"type":"string","maxLength":3}}}}})"),
            Set{});
  EXPECT_EQ(Check(R"({"type":"object","properties":{"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}})"),
            Set{"spec.versions[0].schema.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"});
  EXPECT_EQ(Check(R"({"type":"object","properties":{"e":{"x-kubernetes-embedded-resource":true,"properties":{"kind":{"type":"integer"}}}}})"),
            (Set{"spec.versions[0].schema.openAPIV3Schema.properties[e].type: Required value: must be object if x-kubernetes-embedded-resource is true",
                 R"(spec.versions[0].schema.openAPIV3Schema.properties[e].properties[kind].type: Invalid value: "integer": must be string)"}));
  EXPECT_EQ(Check(R"({"type":"object","properties":{"e":{"type":"object","x-kubernetes-embedded-resource":true}}})"),
            Set{"spec.versions[0].schema.openAPIV3Schema.properties[e].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"});
  EXPECT_EQ(Check(R"({"type":"object","additionalProperties":{"type":"string"}})"),
            Set{"spec.versions[0].schema.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root"});
}

TEST(SchemaStructuralTest, ExtensionsAndPatterns) {
  EXPECT_EQ(Check(R"({"type":"object","properties":{"foo":{"type":"string","pattern":"+"},
      "p":{"x-kubernetes-int-or-string":true,"x-kubernetes-preserve-unknown-fields":true}}})"),
            (Set{"spec.versions[0].schema.openAPIV3Schema.properties[foo].pattern: Invalid value: \"+\": must be a valid regular "
                 "expression, but isn't: error parsing regexp: missing argument to repetition operator: `+`",
                 "spec.versions[0].schema.openAPIV3Schema.properties[p].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true"}));
}

TEST(SchemaStructuralTest, ConversionRefusals) {
  EXPECT_FALSE(StructuralConversionError(*S(R"({"type":"object"})"), kPath).has_value());
  auto e = StructuralConversionError(*S(R"({"type":"object","properties":{"a":{"type":"object","patternProperties":{}}}})"), kPath);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->ToString(),
            R"(spec.versions[0].schema.openAPIV3Schema: Invalid value: "": OpenAPIV3Schema 'patternProperties' is not supported)");
  auto f = StructuralConversionError(*S(R"({"type":"object","x-kubernetes-preserve-unknown-fields":false})"), kPath);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->detail, "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined");
}

}  // namespace
}  // namespace capstan::apimachinery
