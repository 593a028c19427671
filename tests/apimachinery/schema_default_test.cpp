// Cases ported from kube's apiextensions-apiserver defaulting tests (defaulting/algorithm_test.go,
// prunenulls_test.go).
#include "apimachinery/schema_default.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace capstan::apimachinery {
namespace {

using testing::J;
using testing::S;

boost::json::value Defaulted(std::string_view schema, std::string_view obj) {
  auto s = S(schema);
  boost::json::value v = J(obj);
  ApplyDefaults(v, s.get());
  return v;
}

TEST(SchemaDefaultTest, ScalarsAndScalarArraysUnchanged) {
  EXPECT_EQ(Defaulted(R"({"default":"foo"})", "4"), J("4"));
  EXPECT_EQ(Defaulted(R"({"items":{"default":"foo"}})", "[1,2]"), J("[1,2]"));
}

TEST(SchemaDefaultTest, ObjectArray) {
  EXPECT_EQ(Defaulted(R"({"items":{"properties":{"a":{"default":"A"},"b":{"default":"B"},"c":{"default":"C"}}}})",
                      R"([{"a":1},{"b":1},{"c":1}])"),
            J(R"([{"a":1,"b":"B","c":"C"},{"a":"A","b":1,"c":"C"},{"a":"A","b":"B","c":1}])"));
}

TEST(SchemaDefaultTest, ObjectArrayObjectAndAdditionalProperties) {
  EXPECT_EQ(Defaulted(R"({"properties":{
      "array":{"items":{"properties":{"a":{"default":"A"},"b":{"default":"B"}}}},
      "object":{"properties":{"a":{"default":"N"},"b":{"default":"O"}}},
      "additionalProperties":{"additionalProperties":{"properties":{"a":{"default":"alpha"},"b":{"default":"beta"}}}},
      "foo":{"default":"bar"}}})",
                      R"({"array":[{"a":1},{"b":2}],"object":{"a":1},"additionalProperties":{"x":{"a":1},"y":{"b":2}}})"),
            J(R"({"array":[{"a":1,"b":"B"},{"a":"A","b":2}],"object":{"a":1,"b":"O"},
                 "additionalProperties":{"x":{"a":1,"b":"beta"},"y":{"a":"alpha","b":2}},"foo":"bar"})"));
}

TEST(SchemaDefaultTest, EmptyValuesAreNotDefaultedButNullIs) {
  EXPECT_EQ(Defaulted(R"({"items":{"properties":{"a":{"default":"A"}}}})",
                      R"([{},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":null},{"a":[]},{"a":{}}])"),
            J(R"([{"a":"A"},{"a":1},{"a":0},{"a":0.0},{"a":""},{"a":"A"},{"a":[]},{"a":{}}])"));
}

TEST(SchemaDefaultTest, NullHandlingFollowsNullable) {
  EXPECT_EQ(Defaulted(R"({"nullable":true,"items":{"properties":{"a":{"default":"A"}}}})", "[null]"), J("[null]"));
  EXPECT_EQ(Defaulted(R"({"items":{"default":"A"}})", "[null]"), J(R"(["A"])"));
  EXPECT_EQ(Defaulted(R"({"properties":{"a":{"nullable":true,"default":"A"}}})", R"({"a":null})"), J(R"({"a":null})"));
  EXPECT_EQ(Defaulted(R"({"properties":{"a":{"default":"A"}}})", R"({"a":null})"), J(R"({"a":"A"})"));
  EXPECT_EQ(Defaulted(R"({"additionalProperties":{"default":"A"}})", R"({"x":null,"y":"b"})"), J(R"({"x":"A","y":"b"})"));
}

TEST(SchemaDefaultTest, DefaultsAreCopiedAndRecursed) {
  // A defaulted object gets its own nested defaults.
  EXPECT_EQ(Defaulted(R"({"properties":{"spec":{"type":"object","default":{},"properties":{"replicas":{"default":1}}}}})", "{}"),
            J(R"({"spec":{"replicas":1}})"));
}

TEST(SchemaDefaultTest, PruneNonNullableNullsWithoutDefaults) {
  auto s = S(R"({"properties":{
      "a":{"type":"string"},"b":{"type":"string","nullable":true},"c":{"type":"string","default":"C"},
      "m":{"additionalProperties":{"type":"string"}},
      "l":{"items":{"properties":{"x":{"type":"string"}}}}}})");
  boost::json::value v = J(R"({"a":null,"b":null,"c":null,"d":null,"m":{"k":null},"l":[null,{"x":null}]})");
  PruneNonNullableNullsWithoutDefaults(v, s.get());
  EXPECT_EQ(v, J(R"({"b":null,"c":null,"d":null,"m":{},"l":[null,{}]})"));
  ApplyDefaults(v, s.get());
  EXPECT_EQ(v, J(R"({"b":null,"c":"C","d":null,"m":{},"l":[null,{}]})"));
}

TEST(SchemaDefaultTest, DefaultBesideARef) {
  SchemaRegistry reg;
  ASSERT_TRUE(reg.AddDocumentJson(R"({"definitions":{
      "Policy":{"type":"string"},
      "Spec":{"type":"object","properties":{"policy":{"allOf":[{"$ref":"#/definitions/Policy"}],"default":"Always"}}}}})").ok());
  ASSERT_TRUE(reg.Resolve().ok());
  boost::json::value v = J("{}");
  ApplyDefaults(v, reg.Find("Spec"));
  EXPECT_EQ(v, J(R"({"policy":"Always"})"));
}

}  // namespace
}  // namespace capstan::apimachinery
