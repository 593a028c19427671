#include "apimachinery/yaml.h"

#include <gtest/gtest.h>

#include "apimachinery/json.h"

namespace capstan::apimachinery {
namespace {

std::string Y2J(std::string_view y) {
  auto r = YamlToJson(y);
  if (!r.ok()) return "ERR: " + r.status().message();
  return ToJson(r->value);
}

TEST(YamlToJsonTest, KubernetesManifest) {
  EXPECT_EQ(Y2J("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels: {app: web}\ndata:\n  a: \"1\"\n  b: |\n    line\n"),
            R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x","labels":{"app":"web"}},"data":{"a":"1","b":"line\n"}})");
  EXPECT_EQ(Y2J("items:\n- 1\n- two\n- [3, {x: z}]\n"), R"({"items":[1,"two",[3,{"x":"z"}]]})");
  EXPECT_EQ(Y2J("{x: y, y: 1}"), R"({"x":true,"true":1})");  // go-yaml v2: y is a boolean, also as a key
  EXPECT_EQ(Y2J("{\"a\": [1, 2.5, true, null]}"), R"({"a":[1,2.5,true,null]})");
  EXPECT_EQ(Y2J(""), "null");
  EXPECT_EQ(Y2J("# only a comment\n"), "null");
  EXPECT_EQ(Y2J("a: 1\n---\nb: 2\n"), R"({"a":1})");  // first document only
}

TEST(YamlToJsonTest, GoYamlV2Scalars) {
  EXPECT_EQ(Y2J("[yes, No, on, OFF, y, n, true, False]"), "[true,false,true,false,true,false,true,false]");
  EXPECT_EQ(Y2J("[~, null, '', \"\", x]"), R"([null,null,"","","x"])");
  EXPECT_EQ(Y2J("[0x1F, 0o17, 017, 08, 1_000, -0b101, +12]"), "[31,15,15,8,1000,-5,12]");
  EXPECT_EQ(Y2J("[1.0, 1e3, 1.5, .5, -2.5e-3, 1e21, 1e400]"), R"([1,1000,1.5,0.5,-0.0025,1e+21,"1e400"])");
  EXPECT_EQ(Y2J("[18446744073709551615, 9223372036854775807]"), "[18446744073709552000,9223372036854775807]");
  EXPECT_EQ(Y2J("[2024-01-01, 2024-01-01T10:00:00Z, 12:30, '123', !!str 5, ! 6]"),
            R"(["2024-01-01","2024-01-01T10:00:00Z","12:30","123","5","6"])");
  EXPECT_EQ(Y2J("!!binary aGVsbG8="), R"("hello")");
  EXPECT_EQ(Y2J("[.nan]"), "ERR: json: unsupported value: NaN");
  EXPECT_EQ(Y2J("a: .inf"), "ERR: json: unsupported value: +Inf");
  EXPECT_EQ(Y2J("!!int abc"), "ERR: yaml: cannot decode !!str `abc` as a !!int");
  EXPECT_EQ(Y2J("!!float 3"), "3");
}

TEST(YamlToJsonTest, KeysAnchorsMerges) {
  EXPECT_EQ(Y2J("{1: a, true: b, 1.5: c, 0.1: d}"), R"({"1":"a","true":"b","1.5":"c","0.1":"d"})");
  EXPECT_EQ(Y2J("base: &b {x: 1, p: 2}\nuse: *b\n"), R"({"base":{"x":1,"p":2},"use":{"x":1,"p":2}})");
  EXPECT_EQ(Y2J("b: &b {x: 1, p: 2}\nm:\n  <<: *b\n  p: 3\n"), R"({"b":{"x":1,"p":2},"m":{"x":1,"p":3}})");
  EXPECT_EQ(Y2J("a: &a {x: 1}\nb: &b {x: 2, z: 2}\nm:\n  <<: [*a, *b]\n"), R"({"a":{"x":1},"b":{"x":2,"z":2},"m":{"x":1,"z":2}})");
  EXPECT_EQ(Y2J("m:\n  <<: 1\n"), "ERR: yaml: map merge requires map or sequence of maps as the value");
  EXPECT_EQ(Y2J("a: *nope\n"), "ERR: yaml: unknown anchor 'nope' referenced");
  EXPECT_EQ(Y2J("a: &x [*x]\n"), "ERR: yaml: anchor 'x' value contains itself");
  EXPECT_EQ(Y2J("{[1]: a}"), "ERR: yaml: invalid map key: []interface {}{}");
  EXPECT_EQ(Y2J("a: 1\na: 2\n"), R"({"a":2})");
}

TEST(YamlToJsonTest, GoYamlErrors) {
  EXPECT_EQ(Y2J("a: b: c"), "ERR: yaml: mapping values are not allowed in this context");
  EXPECT_EQ(Y2J("a: 1\nb: c: d\n"), "ERR: yaml: line 2: mapping values are not allowed in this context");
  EXPECT_EQ(Y2J("a:\n  - b\n  c: d\n"), "ERR: yaml: line 2: did not find expected '-' indicator");
  EXPECT_EQ(Y2J("a: [1, 2\n"), "ERR: yaml: line 1: did not find expected ',' or ']'");
  EXPECT_EQ(Y2J("a: \"x\n"), "ERR: yaml: line 2: found unexpected end of stream");
  EXPECT_EQ(Y2J("\t- a"), "ERR: yaml: found character that cannot start any token");
  EXPECT_EQ(Y2J("a: \xff"), "ERR: yaml: invalid leading UTF-8 octet");
}

TEST(YamlToJsonTest, Limits) {
  // The billion-laughs document: aliases expanding geometrically.
  std::string bomb = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'i'; ++c, ++prev) {
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 9; ++i) bomb += std::string(i ? "," : "") + "*" + prev;
    bomb += "]\n";
  }
  EXPECT_EQ(Y2J(bomb), "ERR: yaml: document contains excessive aliasing");
  std::string deep = std::string(10001, '[') + std::string(10001, ']');
  EXPECT_EQ(Y2J(deep).substr(0, 39), "ERR: yaml: exceeded max depth of 10000");
  std::string ok = std::string(10000, '[') + std::string(10000, ']');
  EXPECT_EQ(Y2J(ok).substr(0, 3), "[[[");
  YamlParseOptions small;
  small.max_bytes = 3;
  EXPECT_EQ(YamlToJson("a: 1", small).status().code(), 413);
}

TEST(YamlToJsonTest, StrictDuplicates) {
  YamlParseOptions strict;
  strict.strict = true;
  auto r = YamlToJson("a: 1\nb:\n  c: 1\n  c: 2\nother: 1\nother: 2\n1: x\n\"1\": z\n", strict);
  ASSERT_TRUE(r.ok());
  std::vector<std::string> want = {"line 4: key \"c\" already set in map", "line 6: key \"other\" already set in map"};
  EXPECT_EQ(r->strict_errors, want);
  EXPECT_EQ(YamlStrictErrorMessage(r->strict_errors),
            "yaml: unmarshal errors:\n  line 4: key \"c\" already set in map\n  line 6: key \"other\" already set in map");
  EXPECT_EQ(ToJson(r->value), R"({"a":1,"b":{"c":2},"other":2,"1":"z"})");
}

TEST(YamlSplitTest, Documents) {
  auto docs = SplitYamlDocuments("a: 1\n---\nb: 2\n--- # comment\n---\nc: 3");
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ(*docs, (std::vector<std::string>{"a: 1\n", "b: 2\n", "c: 3"}));
  EXPECT_EQ(SplitYamlDocuments("a: 1\n--- x\n").status().message(), "invalid Yaml document separator: x");
}

std::string J2Y(std::string_view j) { return JsonToYaml(*ParseJsonValue(j)); }

TEST(JsonToYamlTest, KubectlStyle) {
  EXPECT_EQ(J2Y(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"x","creationTimestamp":"2024-01-01T00:00:00Z","labels":{"app":"web"}},"data":{"a":"1","b":"true","c":"line1\nline2\n","d":"","e":"yes","f":"12:30","g":"- x","h":"x: y","i":"hello world"}})"),
            "apiVersion: v1\n"
            "data:\n"
            "  a: \"1\"\n"
            "  b: \"true\"\n"
            "  c: |\n"
            "    line1\n"
            "    line2\n"
            "  d: \"\"\n"
            "  e: \"yes\"\n"
            "  f: \"12:30\"\n"
            "  g: '- x'\n"
            "  h: 'x: y'\n"
            "  i: hello world\n"
            "kind: ConfigMap\n"
            "metadata:\n"
            "  creationTimestamp: \"2024-01-01T00:00:00Z\"\n"
            "  labels:\n"
            "    app: web\n"
            "  name: x\n");
  EXPECT_EQ(J2Y(R"({"items":[{"a":1},[],{}],"n":null,"f":1.5,"g":3.0,"h":1234567.5,"i":1e21,"j":0.00001,"t":true})"),
            "f: 1.5\n"
            "g: 3\n"
            "h: 1.2345675e+06\n"
            "i: 1e+21\n"
            "items:\n"
            "- a: 1\n"
            "- []\n"
            "- {}\n"
            "j: 1e-05\n"
            "\"n\": null\n"  // "n" reads as a YAML 1.1 boolean, so go-yaml quotes the key
            "t: true\n");
  EXPECT_EQ(J2Y(R"({"a10":1,"a2":2,"a1":3,"B":4,"b":5,"_x":6})"), "_x: 6\nB: 4\na1: 3\na2: 2\na10: 1\nb: 5\n");
  EXPECT_EQ(J2Y(R"("x")"), "x\n");
  std::string long_value(100, 'a');
  long_value = "word " + std::string(90, 'b') + " tail";
  // Plain scalars fold at the first space past column 80, as go-yaml's emitter does.
  EXPECT_EQ(J2Y("{\"k\":\"" + long_value + "\"}"), "k: word " + std::string(90, 'b') + "\n  tail\n");
}

TEST(JsonToYamlTest, RoundTrip) {
  std::string j = R"({"apiVersion":"v1","data":{"n":"0x10","s":"a b","t":"2024-01-01","z":"~"},"kind":"ConfigMap","list":[1,2.5,"3",null,false]})";
  auto y = J2Y(j);
  auto back = YamlToJson(y);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->value, *ParseJsonValue(j)) << y;
}

}  // namespace
}  // namespace capstan::apimachinery
