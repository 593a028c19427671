#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "apimachinery/json.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;

std::string ParseError(std::string_view in) {
  auto r = ParseJson(in);
  if (r.ok()) return "<ok>";
  EXPECT_EQ(r.status().code(), 400);
  EXPECT_EQ(r.status().reason(), "BadRequest");
  return r.status().message();
}

TEST(JsonParseTest, GoSyntaxErrors) {
  EXPECT_EQ(ParseError(""), "unexpected end of JSON input");
  EXPECT_EQ(ParseError("  "), "unexpected end of JSON input");
  EXPECT_EQ(ParseError("{"), "unexpected end of JSON input");
  EXPECT_EQ(ParseError("{\"a\":1"), "unexpected end of JSON input");
  EXPECT_EQ(ParseError("\"abc"), "unexpected end of JSON input");
  EXPECT_EQ(ParseError("{\"a\":1,}"), "invalid character '}' looking for beginning of object key string");
  EXPECT_EQ(ParseError("{1:2}"), "invalid character '1' looking for beginning of object key string");
  EXPECT_EQ(ParseError("[1,]"), "invalid character ']' looking for beginning of value");
  EXPECT_EQ(ParseError("{\"a\" 1}"), "invalid character '1' after object key");
  EXPECT_EQ(ParseError("{\"a\":1 \"b\":2}"), "invalid character '\"' after object key:value pair");
  EXPECT_EQ(ParseError("[1 2]"), "invalid character '2' after array element");
  EXPECT_EQ(ParseError("{} x"), "invalid character 'x' after top-level value");
  EXPECT_EQ(ParseError("01"), "invalid character '1' after top-level value");
  EXPECT_EQ(ParseError("[01]"), "invalid character '1' after array element");
  EXPECT_EQ(ParseError("tru"), "invalid character ' ' in literal true (expecting 'e')");
  EXPECT_EQ(ParseError("nul!"), "invalid character '!' in literal null (expecting 'l')");
  EXPECT_EQ(ParseError("fx"), "invalid character 'x' in literal false (expecting 'a')");
  EXPECT_EQ(ParseError("-"), "invalid character ' ' in numeric literal");
  EXPECT_EQ(ParseError("-a"), "invalid character 'a' in numeric literal");
  EXPECT_EQ(ParseError("1."), "invalid character ' ' after decimal point in numeric literal");
  EXPECT_EQ(ParseError("[1.x]"), "invalid character 'x' after decimal point in numeric literal");
  EXPECT_EQ(ParseError("1e"), "invalid character ' ' in exponent of numeric literal");
  EXPECT_EQ(ParseError("1e+]"), "invalid character ']' in exponent of numeric literal");
  EXPECT_EQ(ParseError("\"a\tb\""), "invalid character '\\t' in string literal");
  EXPECT_EQ(ParseError("\"\\x\""), "invalid character 'x' in string escape code");
  EXPECT_EQ(ParseError("\"\\u12g4\""), "invalid character 'g' in \\u hexadecimal character escape");
  EXPECT_EQ(ParseError("'a'"), "invalid character '\\'' looking for beginning of value");
  EXPECT_EQ(ParseError("\xef\xbb\xbf{}"), "invalid character '\xc3\xaf' looking for beginning of value");
  EXPECT_EQ(ParseError("\x01"), "invalid character '\\x01' looking for beginning of value");
  EXPECT_EQ(ParseError("\x85"), "invalid character '\\u0085' looking for beginning of value");
}

TEST(JsonParseTest, DepthLimitLikeGo) {
  std::string ok(10000, '[');
  ok += std::string(10000, ']');
  EXPECT_TRUE(ParseJson(ok).ok());
  std::string deep(10001, '[');
  EXPECT_EQ(ParseError(deep), "invalid character '[' exceeded max depth");
  JsonParseOptions small;
  small.max_depth = 3;
  auto r = ParseJson("{\"a\":{\"b\":{\"c\":{}}}}", small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "invalid character '{' exceeded max depth");
}

TEST(JsonParseTest, SizeLimit) {
  JsonParseOptions o;
  o.max_bytes = 4;
  auto r = ParseJson("[1,2]", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), 413);
  EXPECT_EQ(r.status().reason(), "RequestEntityTooLarge");
  EXPECT_EQ(r.status().message(), "Request entity too large: limit is 4");
}

TEST(JsonParseTest, NumbersPreserveInts) {
  auto v = ParseJsonValue("[123, -0, 1.0, 1e3, 9223372036854775807, 9223372036854775808, -1.5e-3]");
  ASSERT_TRUE(v.ok());
  const json::array& a = v->as_array();
  EXPECT_TRUE(a[0].is_int64());
  EXPECT_EQ(a[0].as_int64(), 123);
  EXPECT_TRUE(a[1].is_int64());
  EXPECT_TRUE(a[2].is_double());
  EXPECT_TRUE(a[3].is_double());
  EXPECT_EQ(a[3].as_double(), 1000);
  EXPECT_TRUE(a[4].is_int64());
  EXPECT_TRUE(a[5].is_double());
  EXPECT_DOUBLE_EQ(a[6].as_double(), -0.0015);
  EXPECT_EQ(ParseError("[1e400]"), "json: cannot unmarshal number 1e400 into Go value of type float64");
  // A syntax error later in the input wins over a value error, as Go validates first.
  EXPECT_EQ(ParseError("[1e400, x]"), "invalid character 'x' looking for beginning of value");
}

TEST(JsonParseTest, StringsDecodeLikeGo) {
  auto v = ParseJsonValue(R"(["\u00e9\/\n", "\ud83d\ude00", "\ud800x", "\udc00\ud800"])");
  ASSERT_TRUE(v.ok());
  const json::array& a = v->as_array();
  EXPECT_EQ(a[0].as_string(), "\xc3\xa9/\n");
  EXPECT_EQ(a[1].as_string(), "\xf0\x9f\x98\x80");
  EXPECT_EQ(a[2].as_string(), "\xef\xbf\xbdx");
  EXPECT_EQ(a[3].as_string(), "\xef\xbf\xbd\xef\xbf\xbd");
  auto bad = ParseJsonValue("\"a\xff\xed\xa0\x80z\"");
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->as_string(), "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz");
}

TEST(JsonParseTest, DuplicatesKeepLastValueAndFirstPosition) {
  auto v = ParseJsonValue(R"({"a":1,"b":2,"a":3})");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(ToJson(*v), R"({"a":3,"b":2})");
}

TEST(JsonParseTest, StrictReportsDuplicatePaths) {
  JsonParseOptions o;
  o.strict = true;
  auto r = ParseJson(
      R"({"kind":"X","metadata":{"name":"a","name":"b"},"spec":{"items":[{"x":1},{"x":1,"x":2}]},"kind":"Y","kind":"Z"})",
      o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::vector<std::string> want = {"duplicate field \"metadata.name\"", "duplicate field \"spec.items[1].x\"",
                                   "duplicate field \"kind\""};
  EXPECT_EQ(r->strict_errors, want);
  auto top = ParseJson(R"([{"a":1,"a":2}])", o);
  ASSERT_TRUE(top.ok());
  EXPECT_EQ(top->strict_errors, std::vector<std::string>{"duplicate field \"[0].a\""});
  EXPECT_EQ(StrictDecodingMessage({"duplicate field \"other\"", UnknownFieldError("unknown")}),
            "strict decoding error: duplicate field \"other\", unknown field \"unknown\"");
  // Lenient mode reports nothing.
  EXPECT_TRUE(ParseJson(R"({"a":1,"a":2})")->strict_errors.empty());
}

TEST(JsonWriteTest, GoEscaping) {
  EXPECT_EQ(ToJson(json::value("<a href=\"x\">&</a>")), R"("\u003ca href=\"x\"\u003e\u0026\u003c/a\u003e")");
  EXPECT_EQ(ToJson(json::value("\b\f\n\r\t\x01\x1f\x7f\\")), R"("\b\f\n\r\t\u0001\u001f)" "\x7f" R"(\\")");
  EXPECT_EQ(ToJson(json::value("a\xe2\x80\xa8" "b\xe2\x80\xa9")), R"("a\u2028b\u2029")");
  EXPECT_EQ(ToJson(json::value("x\xffy")), R"("x\ufffdy")");
  EXPECT_EQ(ToJson(json::value("\xc3\xa9")), "\"\xc3\xa9\"");
  JsonWriteOptions no_html;
  no_html.escape_html = false;
  EXPECT_EQ(ToJson(json::value("<&>"), no_html), R"("<&>")");
}

TEST(JsonWriteTest, NumbersLikeEncodingJson) {
  EXPECT_EQ(ToJson(json::value(1e21)), "1e+21");
  EXPECT_EQ(ToJson(json::value(1e20)), "100000000000000000000");
  EXPECT_EQ(ToJson(json::value(1e-7)), "1e-7");
  EXPECT_EQ(ToJson(json::value(1.5e-10)), "1.5e-10");
  EXPECT_EQ(ToJson(json::value(0.000001)), "0.000001");
  EXPECT_EQ(ToJson(json::value(0.1)), "0.1");
  EXPECT_EQ(ToJson(json::value(3.0)), "3");
  EXPECT_EQ(ToJson(json::value(-0.0)), "-0");
  EXPECT_EQ(ToJson(json::value(123456789.125)), "123456789.125");
  EXPECT_EQ(ToJson(json::value(int64_t{-42})), "-42");
  EXPECT_EQ(ToJson(json::value(uint64_t{18446744073709551615ull})), "18446744073709551615");
}

TEST(JsonWriteTest, GoFloatGForm) {
  EXPECT_EQ(FormatFloatG(1234567.5), "1.2345675e+06");
  EXPECT_EQ(FormatFloatG(1e6), "1e+06");
  EXPECT_EQ(FormatFloatG(100000), "100000");
  EXPECT_EQ(FormatFloatG(0.00001), "1e-05");
  EXPECT_EQ(FormatFloatG(0.0001), "0.0001");
  EXPECT_EQ(FormatFloatG(0.5), "0.5");
  EXPECT_EQ(FormatFloatG(1e21), "1e+21");
  EXPECT_EQ(FormatFloatG(0.1, true), "0.1");
  EXPECT_EQ(FormatFloatG(3.14159265, true), "3.1415927");
}

TEST(JsonWriteTest, CompactAndOrdered) {
  auto v = ParseJsonValue(R"( { "b" : [ 1 , { } , [ ] , null , true ] , "a" : "x" } )");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(ToJson(*v), R"({"b":[1,{},[],null,true],"a":"x"})");
  JsonWriteOptions sorted;
  sorted.sort_keys = true;
  EXPECT_EQ(ToJson(*v, sorted), R"({"a":"x","b":[1,{},[],null,true]})");
}

TEST(JsonWriteTest, DeepValuesRoundTrip) {
  std::string deep = std::string(5000, '[') + std::string(5000, ']');
  auto v = ParseJsonValue(deep);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(ToJson(*v), deep);
}

TEST(JsonWriteTest, MetadataOverrides) {
  auto v = ParseJsonValue(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"d","labels":{"a":"b"}},"data":{"k":"v"}})");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(ToJsonWithResourceVersion(v->as_object(), "42"),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","namespace":"d","resourceVersion":"42","labels":{"a":"b"}},"data":{"k":"v"}})");
  auto with_rv = ParseJsonValue(R"({"kind":"X","metadata":{"resourceVersion":"1","name":"y"}})");
  EXPECT_EQ(ToJsonWithResourceVersion(with_rv->as_object(), "7"),
            R"({"kind":"X","metadata":{"resourceVersion":"7","name":"y"}})");
  auto no_meta = ParseJsonValue(R"({"apiVersion":"v1","kind":"X","spec":{}})");
  std::string out;
  AppendJsonWithMetadata(out, no_meta->as_object(),
                         {{"uid", json::value("u")}, {"name", json::value("n")}, {"generation", json::value(1)}});
  EXPECT_EQ(out, R"({"apiVersion":"v1","kind":"X","metadata":{"name":"n","uid":"u","generation":1},"spec":{}})");
}

TEST(JsonPathTest, GetSetRemove) {
  json::object o;
  EXPECT_EQ(GetPath(o, {"metadata", "name"}), nullptr);
  SetPath(o, {"metadata", "name"}, "x");
  SetPath(o, {"metadata", "generation"}, 3);
  EXPECT_EQ(GetStringPath(o, {"metadata", "name"}).value(), "x");
  EXPECT_EQ(GetIntPath(o, {"metadata", "generation"}).value(), 3);
  EXPECT_FALSE(GetIntPath(o, {"metadata", "name"}).has_value());
  EXPECT_FALSE(GetStringPath(o, {"metadata", "name", "deeper"}).has_value());
  SetPath(o, {"metadata", "name", "deeper"}, true);  // replaces the string with an object
  EXPECT_TRUE(GetPath(o, {"metadata", "name", "deeper"})->as_bool());
  EXPECT_TRUE(RemovePath(o, {"metadata", "name"}));
  EXPECT_FALSE(RemovePath(o, {"metadata", "name"}));
  EXPECT_FALSE(RemovePath(o, {"nope", "x"}));
  EXPECT_EQ(ToJson(o), R"({"metadata":{"generation":3}})");
}

}  // namespace
}  // namespace capstan::apimachinery
