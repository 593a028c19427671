// Go's renderings used in kube's messages (fmt %v, reflect type names, json.Marshal).
#include "apimachinery/schema_go_format.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace capstan::apimachinery {
namespace {

using testing::J;

TEST(SchemaGoFormatTest, FloatsPrintAsGoDoes) {
  EXPECT_EQ(GoFloatV(1000000), "1e+06");
  EXPECT_EQ(GoFloatV(123456), "123456");
  EXPECT_EQ(GoFloatV(0.5), "0.5");
  EXPECT_EQ(GoFloatV(0.00001), "1e-05");
  EXPECT_EQ(GoFloatV(1234567.5), "1.2345675e+06");
  EXPECT_EQ(GoFloatF(1e21), "1000000000000000000000");
  EXPECT_EQ(GoFloatF(1.5), "1.5");
}

TEST(SchemaGoFormatTest, SprintLikeFmtV) {
  EXPECT_EQ(GoSprint(J(R"({"b":[1,"x",null],"a":{"c":true}})")), "map[a:map[c:true] b:[1 x <nil>]]");
  EXPECT_EQ(GoSprint(J("2.5")), "2.5");
}

TEST(SchemaGoFormatTest, SharpVLikeFmtSharpV) {
  // What fmt.Sprintf("%#v") prints for json.Unmarshal's values (checked against Go).
  EXPECT_EQ(GoSharpV(J(R"({"protocol":"TCP","port":80})")), R"(map[string]interface {}{"port":80, "protocol":"TCP"})");
  EXPECT_EQ(GoSharpV(J(R"({"l":["a",1,{"x":"y"}],"n":null,"f":1.5,"g":1e21,"m":{},"e":[]})")),
            R"(map[string]interface {}{"e":[]interface {}{}, "f":1.5, "g":1e+21, "l":[]interface {}{"a", 1, )"
            R"(map[string]interface {}{"x":"y"}}, "m":map[string]interface {}{}, "n":interface {}(nil)})");
  EXPECT_EQ(GoSharpV(J(R"("q\"x")")), R"("q\"x")");
}

TEST(SchemaGoFormatTest, TypeNamesAndMarshal) {
  EXPECT_EQ(GoTypeName(J("{}")), "map[string]interface {}");
  EXPECT_EQ(GoTypeName(J("[]")), "[]interface {}");
  EXPECT_EQ(GoTypeName(J("1")), "int64");
  EXPECT_EQ(GoTypeName(J("1.5")), "float64");
  EXPECT_EQ(GoTypeName(J("null")), "%!s(<nil>)");
  EXPECT_EQ(GoJsonMarshal(J(R"({"b":1,"a":"<x>"})")), R"({"a":"\u003cx\u003e","b":1})");
}

TEST(SchemaGoFormatTest, JsonIntegersBySwagsRules) {
  EXPECT_TRUE(IsFloat64AJSONInteger(3.0));
  EXPECT_TRUE(IsFloat64AJSONInteger(-3.0));
  EXPECT_FALSE(IsFloat64AJSONInteger(1.5));
  EXPECT_FALSE(IsFloat64AJSONInteger(1e300));
  EXPECT_TRUE(IsFloat64AJSONInteger(1000000000.5));  // within swag's relative epsilon
  EXPECT_FALSE(IsFloat64AJSONInteger(0.5));
}

}  // namespace
}  // namespace capstan::apimachinery
