// Cases follow kube's apiextensions-apiserver validation tests (TestValidateCustomResource) and the
// messages of kube-openapi's validate package.
#include "apimachinery/schema_validate.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace capstan::apimachinery {
namespace {

using testing::ErrorStrings;
using testing::J;
using testing::S;
using Set = std::set<std::string>;

Set Validate(std::string_view schema, std::string_view obj) {
  auto s = S(schema);
  return ErrorStrings(ValidateBySchema(*s, J(obj)));
}

constexpr std::string_view kObjectField = R"({"type":"object","properties":{"field":{"type":"object"}}})";

TEST(SchemaValidateTest, TypeMismatchesNameTheFoundType) {
  EXPECT_EQ(Validate(kObjectField, R"({})"), Set{});
  EXPECT_EQ(Validate(kObjectField, R"({"field":{}})"), Set{});
  EXPECT_EQ(Validate(kObjectField, R"({"field":"foo"})"),
            Set{R"(field: Invalid value: "string": field in body must be of type object: "string")"});
  EXPECT_EQ(Validate(kObjectField, R"({"field":42})"),
            Set{R"(field: Invalid value: "integer": field in body must be of type object: "integer")"});
  EXPECT_EQ(Validate(kObjectField, R"({"field":true})"),
            Set{R"(field: Invalid value: "boolean": field in body must be of type object: "boolean")"});
  EXPECT_EQ(Validate(kObjectField, R"({"field":1.2})"),
            Set{R"(field: Invalid value: "number": field in body must be of type object: "number")"});
  EXPECT_EQ(Validate(kObjectField, R"({"field":[]})"),
            Set{R"(field: Invalid value: "array": field in body must be of type object: "array")"});
  EXPECT_EQ(Validate(kObjectField, R"({"field":null})"),
            Set{R"(field: Invalid value: "null": field in body must be of type object: "null")"});
}

TEST(SchemaValidateTest, NullableAcceptsNull) {
  constexpr std::string_view schema = R"({"type":"object","properties":{"field":{"type":"object","nullable":true}}})";
  EXPECT_EQ(Validate(schema, R"({"field":null})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"field":"foo"})"),
            Set{R"(field: Invalid value: "string": field in body must be of type object: "string")"});
  constexpr std::string_view untyped = R"({"type":"object","properties":{"field":{"nullable":true}}})";
  for (auto v : {"null", "{}", "\"foo\"", "42", "true", "1.2", "[]"}) {
    EXPECT_EQ(Validate(untyped, std::string(R"({"field":)") + v + "}"), Set{}) << v;
  }
}

TEST(SchemaValidateTest, IntOrString) {
  constexpr std::string_view schema = R"({"type":"object","properties":{"field":{"x-kubernetes-int-or-string":true}}})";
  EXPECT_EQ(Validate(schema, R"({"field":42})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"field":"foo"})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"field":null})"),
            Set{R"(field: Invalid value: "null": field in body must be of type integer,string: "null")"});
  EXPECT_EQ(Validate(schema, R"({"field":1.2})"),
            Set{R"(field: Invalid value: "number": field in body must be of type integer,string: "number")"});
  EXPECT_EQ(Validate(schema, R"({"field":{}})"),
            Set{R"(field: Invalid value: "object": field in body must be of type integer,string: "object")"});
}

TEST(SchemaValidateTest, AnyOfReportsTheBestBranchAndACompositeAtNil) {
  constexpr std::string_view schema = R"({"type":"object","properties":{"field":{
      "nullable":true,"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}})";
  EXPECT_EQ(Validate(schema, R"({"field":null})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"field":42})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"field":true})"),
            (Set{R"(<nil>: Invalid value: "": "field" must validate at least one schema (anyOf))",
                 R"(field: Invalid value: "boolean": field in body must be of type integer,string: "boolean")",
                 R"(field: Invalid value: "boolean": field in body must be of type integer: "boolean")"}));
  EXPECT_EQ(Validate(schema, R"({"field":1.2})"),
            (Set{R"(<nil>: Invalid value: "": "field" must validate at least one schema (anyOf))",
                 R"(field: Invalid value: "number": field in body must be of type integer,string: "number")",
                 R"(field: Invalid value: "number": field in body must be of type integer: "number")",
                 R"(<nil>: Invalid value: "": Checked value must be of type integer (default format) in field)"}));
}

TEST(SchemaValidateTest, AllOfWrappingAnyOf) {
  constexpr std::string_view schema = R"({"type":"object","properties":{"field":{
      "nullable":true,"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]}]}}})";
  EXPECT_EQ(Validate(schema, R"({"field":"foo"})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"field":[]})"),
            (Set{R"(<nil>: Invalid value: "": "field" must validate all the schemas (allOf). None validated)",
                 R"(<nil>: Invalid value: "": "field" must validate at least one schema (anyOf))",
                 R"(field: Invalid value: "array": field in body must be of type integer,string: "array")",
                 R"(field: Invalid value: "array": field in body must be of type integer: "array")"}));
}

TEST(SchemaValidateTest, OneOfAndNot) {
  constexpr std::string_view schema = R"({"type":"object","properties":{"field":{"type":"integer",
      "oneOf":[{"minimum":0},{"maximum":10}],"not":{"enum":[5]}}}})";
  EXPECT_EQ(Validate(schema, R"({"field":-3})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"field":3})"),
            Set{R"(<nil>: Invalid value: "": "field" must validate one and only one schema (oneOf). Found 2 valid alternatives)"});
  EXPECT_EQ(Validate(schema, R"({"field":5})"),
            (Set{R"(<nil>: Invalid value: "": "field" must validate one and only one schema (oneOf). Found 2 valid alternatives)",
                 R"(<nil>: Invalid value: "": "field" must not validate the schema (not))"}));
}

TEST(SchemaValidateTest, InvalidPatternIsReportedPerValue) {
  constexpr std::string_view schema = R"({"type":"object","properties":{"field":{"type":"string","pattern":"+"}}})";
  EXPECT_EQ(Validate(schema, R"({"field":"foo"})"),
            Set{"field: Invalid value: \"foo\": field in body should match '+, but pattern is invalid: error parsing "
                "regexp: missing argument to repetition operator: `+`'"});
}

TEST(SchemaValidateTest, PatternUsesGoSyntaxAndSearch) {
  constexpr std::string_view schema = R"({"type":"object","properties":{"f":{"type":"string","pattern":"^[a-z]+\\d$"},
      "g":{"type":"string","pattern":"b"}}})";
  EXPECT_EQ(Validate(schema, R"({"f":"abc1","g":"abc"})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"f":"Abc1"})"),
            Set{R"(f: Invalid value: "Abc1": f in body should match '^[a-z]+\d$')"});
}

TEST(SchemaValidateTest, RequiredFields) {
  constexpr std::string_view schema = R"({"type":"object","required":["field"],"properties":{"field":{
      "type":"object","required":["nested"],"properties":{"nested":{}}}}})";
  EXPECT_EQ(Validate(schema, R"({"test":"a"})"), Set{"field: Required value"});
  EXPECT_EQ(Validate(schema, R"({"field":{}})"), Set{"field.nested: Required value"});
}

TEST(SchemaValidateTest, EnumListsSupportedValues) {
  constexpr std::string_view schema = R"({"type":"object","properties":{"field":{"type":"object",
      "required":["nestedint","nestedstring"],"properties":{
        "nestedint":{"type":"integer","enum":[1,2]},"nestedstring":{"type":"string","enum":["a","b"]}}}}})";
  EXPECT_EQ(Validate(schema, R"({"field":{}})"), (Set{"field.nestedint: Required value", "field.nestedstring: Required value"}));
  EXPECT_EQ(Validate(schema, R"({"field":{"nestedint":"x","nestedstring":true}})"),
            (Set{R"(field.nestedint: Invalid value: "string": field.nestedint in body must be of type integer: "string")",
                 R"(field.nestedint: Unsupported value: "x": supported values: "1", "2")",
                 R"(field.nestedstring: Invalid value: "boolean": field.nestedstring in body must be of type string: "boolean")",
                 R"(field.nestedstring: Unsupported value: true: supported values: "a", "b")"}));
  // A float that converts to an enum integer matches, as Go's reflect conversion does.
  EXPECT_EQ(Validate(schema, R"({"field":{"nestedint":2.0,"nestedstring":"b"}})"), Set{});
}

TEST(SchemaValidateTest, LimitsOnCollectionsAndStrings) {
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"fieldX":{"type":"object","maxProperties":2}}})",
                     R"({"fieldX":{"a":true,"b":true,"c":true}})"),
            Set{"fieldX: Too many: 3: must have at most 2 items"});
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"fieldX":{"type":"array","maxItems":2}}})",
                     R"({"fieldX":["a","b","c"]})"),
            Set{"fieldX: Too many: 3: must have at most 2 items"});
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"fieldX":{"type":"string","maxLength":2}}})", R"({"fieldX":"abc"})"),
            Set{"fieldX: Too long: may not be more than 2 bytes"});
  // maxLength counts characters, not bytes.
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"fieldX":{"type":"string","maxLength":2}}})", R"({"fieldX":"éé"})"),
            Set{});
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"f":{"type":"string","minLength":3}}})", R"({"f":"ab"})"),
            Set{R"(f: Invalid value: "ab": f in body should be at least 3 chars long)"});
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"f":{"type":"array","minItems":2}}})", R"({"f":[1]})"),
            Set{"f: Invalid value: 1: f in body should have at least 2 items"});
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"f":{"type":"object","minProperties":1}}})", R"({"f":{}})"),
            Set{"f: Invalid value: 0: f in body should have at least 1 properties"});
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"f":{"type":"array","uniqueItems":true}}})", R"({"f":[1,{"a":1},{"a":1}]})"),
            Set{R"(f: Invalid value: "": f in body shouldn't contain duplicates)"});
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"f":{"type":"array","uniqueItems":true}}})", R"({"f":[1,1.0]})"), Set{});
}

TEST(SchemaValidateTest, NumberBoundsAndMultiples) {
  constexpr std::string_view schema = R"({"type":"object","properties":{
      "i":{"type":"integer","minimum":1,"maximum":10},
      "x":{"type":"integer","minimum":0,"exclusiveMinimum":true,"maximum":10,"exclusiveMaximum":true},
      "n":{"type":"number","maximum":1000000,"multipleOf":0.5},
      "m":{"type":"integer","multipleOf":3}}})";
  EXPECT_EQ(Validate(schema, R"({"i":1,"x":5,"n":2.5,"m":9})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"i":11})"), Set{"i: Invalid value: 11: i in body should be less than or equal to 10"});
  EXPECT_EQ(Validate(schema, R"({"i":0})"), Set{"i: Invalid value: 0: i in body should be greater than or equal to 1"});
  EXPECT_EQ(Validate(schema, R"({"x":0})"), Set{"x: Invalid value: 0: x in body should be greater than 0"});
  EXPECT_EQ(Validate(schema, R"({"x":10})"), Set{"x: Invalid value: 10: x in body should be less than 10"});
  EXPECT_EQ(Validate(schema, R"({"n":2e6})"),
            Set{"n: Invalid value: 2e+06: n in body should be less than or equal to 1e+06"});
  EXPECT_EQ(Validate(schema, R"({"n":0.3})"), Set{"n: Invalid value: 0.3: n in body should be a multiple of 0.5"});
  EXPECT_EQ(Validate(schema, R"({"m":10})"), Set{"m: Invalid value: 10: m in body should be a multiple of 3"});
}

TEST(SchemaValidateTest, NumericFormatsRange) {
  constexpr std::string_view schema = R"({"type":"object","properties":{
      "intThirtyTwo":{"type":"integer","format":"int32"},"intSixtyFour":{"type":"integer","format":"int64"},
      "floatThreeTwo":{"type":"number","format":"float"},"floatSixFour":{"type":"number","format":"double"}}})";
  EXPECT_EQ(Validate(schema, R"({"intThirtyTwo":-2147483648,"intSixtyFour":-9223372036854775808,
      "floatThreeTwo":-3.4028234663852886e+38,"floatSixFour":-1.7976931348623157e+308})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"intThirtyTwo":2147483648})"),
            Set{R"(<nil>: Invalid value: "": Checked value must be of type integer with format int32 in intThirtyTwo)"});
  EXPECT_EQ(Validate(schema, R"({"intSixtyFour":1.0145709240379443e+19})"),
            (Set{R"(intSixtyFour: Invalid value: "float64": intSixtyFour in body must be of type int64: "float64")",
                 R"(<nil>: Invalid value: "": Checked value must be of type integer with format int64 in intSixtyFour)"}));
  EXPECT_EQ(Validate(schema, R"({"floatThreeTwo":3.743105912740699e+38})"),
            Set{R"(<nil>: Invalid value: "": Checked value must be of type number with format float in floatThreeTwo)"});
  // An integral float is an integer.
  EXPECT_EQ(Validate(schema, R"({"intThirtyTwo":3.0})"), Set{});
}

TEST(SchemaValidateTest, StringFormats) {
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"fieldX":{"type":"string","format":"k8s-long-name"}}})", R"({"fieldX":"a.-"})"),
            Set{R"(fieldX: Invalid value: "a.-": fieldX in body must be of type k8s-long-name: "a.-")"});
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"fieldX":{"type":"string","format":"k8s-short-name"}}})", R"({"fieldX":"a-"})"),
            Set{R"(fieldX: Invalid value: "a-": fieldX in body must be of type k8s-short-name: "a-")"});
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"t":{"type":"string","format":"date-time"}}})", R"({"t":"yesterday"})"),
            Set{R"(t: Invalid value: "yesterday": t in body must be of type date-time: "yesterday")"});
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"t":{"type":"string","format":"date-time"}}})", R"({"t":"2024-02-29T10:00:00Z"})"),
            Set{});
  // Formats kube does not know are not checked.
  EXPECT_EQ(Validate(R"({"type":"object","properties":{"t":{"type":"string","format":"color"}}})", R"({"t":"blue"})"), Set{});
}

TEST(SchemaValidateTest, AdditionalProperties) {
  constexpr std::string_view schema = R"({"type":"object","properties":{
      "closed":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false},
      "labels":{"type":"object","additionalProperties":{"type":"string"}}}})";
  EXPECT_EQ(Validate(schema, R"({"closed":{"a":"x"},"labels":{"app":"web"}})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"closed":{"b":1}})"),
            Set{R"(closed: Invalid value: "b": closed.b in body is a forbidden property)"});
  EXPECT_EQ(Validate(schema, R"({"labels":{"app":1}})"),
            Set{R"(labels.app: Invalid value: "integer": labels.app in body must be of type string: "integer")"});
}

TEST(SchemaValidateTest, ItemsAndNestedPaths) {
  constexpr std::string_view schema = R"({"type":"object","properties":{"spec":{"type":"object","properties":{
      "replicas":{"type":"integer"},
      "ports":{"type":"array","items":{"type":"object","required":["port"],"properties":{"port":{"type":"integer","maximum":65535}}}}}}}})";
  EXPECT_EQ(Validate(schema, R"({"spec":{"replicas":"string"}})"),
            Set{R"(spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string")"});
  EXPECT_EQ(Validate(schema, R"({"spec":{"ports":[{"port":80},{},{"port":70000}]}})"),
            (Set{"spec.ports[1].port: Required value",
                 "spec.ports[2].port: Invalid value: 70000: spec.ports[2].port in body should be less than or equal to 65535"}));
}

TEST(SchemaValidateTest, StatusRootPrefixesPaths) {
  auto s = S(R"({"type":"object","required":["phase"],"properties":{"phase":{"type":"string"},"n":{"type":"integer"}}})");
  EXPECT_EQ(ErrorStrings(ValidateBySchema(*s, J(R"({"n":"x"})"), FieldPath("status"))),
            (Set{"status.phase: Required value",
                 R"(status.n: Invalid value: "string": n in body must be of type integer: "string")"}));
}

TEST(SchemaValidateTest, ListTypeMapDuplicates) {
  constexpr std::string_view schema = R"({"type":"object","properties":{
      "single":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
                "items":{"type":"object","properties":{"name":{"type":"string"},"v":{"type":"integer"}}}},
      "multi":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["port","protocol"],
               "items":{"type":"object"}},
      "set":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}})";
  EXPECT_EQ(Validate(schema, R"({"single":[{"name":"a"},{"name":"b"}],"set":["x","y"]})"), Set{});
  EXPECT_EQ(Validate(schema, R"({"single":[{"name":"a","v":1},{"name":"b"},{"name":"a","v":2},{"name":"a"}]})"),
            Set{R"(single[2]: Duplicate value: map[string]interface {}{"name":"a"})"});
  EXPECT_EQ(Validate(schema, R"({"single":[{"v":1},{"v":2}]})"), Set{"single[1]: Duplicate value: map[string]interface {}{}"});
  EXPECT_EQ(Validate(schema, R"({"multi":[{"protocol":"TCP","port":80},{"port":80,"protocol":"TCP"},{"port":80,"protocol":"UDP"}]})"),
            Set{R"(multi[1]: Duplicate value: map[string]interface {}{"port":80, "protocol":"TCP"})"});
  EXPECT_EQ(Validate(schema, R"({"set":["x","y","x"]})"), Set{R"(set[2]: Duplicate value: "x")"});
  EXPECT_EQ(Validate(schema, R"({"single":[{"name":"a"},"b"]})"),
            (Set{R"(single[1]: Invalid value: "string": single[1] in body must be of type object: "string")",
                 R"(single[1]: Invalid value: "b": must be an object for an array of list-type map)"}));
}

TEST(SchemaValidateTest, RegistryRefsAndRecursiveTypes) {
  SchemaRegistry reg;
  ASSERT_TRUE(reg.AddDocumentJson(R"({"definitions":{
      "Node":{"type":"object","properties":{"name":{"type":"string"},
              "children":{"type":"array","items":{"$ref":"#/definitions/Node"}}}}}})").ok());
  ASSERT_TRUE(reg.Resolve().ok());
  const Schema* node = reg.Find("Node");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(ErrorStrings(ValidateBySchema(*node, J(R"({"name":"a","children":[{"name":"b","children":[{"name":3}]}]})"))),
            Set{R"(children[0].children[0].name: Invalid value: "integer": children[0].children[0].name in body must be of type string: "integer")"});
}

}  // namespace
}  // namespace capstan::apimachinery
