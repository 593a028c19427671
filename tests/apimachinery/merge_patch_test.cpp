// Cases from RFC 7386 appendix A and evanphx/json-patch's MergePatch tests.
#include "apimachinery/merge_patch.h"

#include "apimachinery/patch_common.h"

#include <gtest/gtest.h>

#include "schema_test_util.h"

namespace capstan::apimachinery {
namespace {

using testing::J;

boost::json::value Merge(std::string_view doc, std::string_view patch) {
  auto r = MergePatchValues(J(doc), J(patch));
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : boost::json::value();
}

TEST(MergePatchTest, RfcCases) {
  EXPECT_EQ(Merge(R"({"a":"b"})", R"({"a":"c"})"), J(R"({"a":"c"})"));
  EXPECT_EQ(Merge(R"({"a":"b"})", R"({"b":"c"})"), J(R"({"a":"b","b":"c"})"));
  EXPECT_EQ(Merge(R"({"a":"b"})", R"({"a":null})"), J(R"({})"));
  EXPECT_EQ(Merge(R"({"a":"b","b":"c"})", R"({"a":null})"), J(R"({"b":"c"})"));
  EXPECT_EQ(Merge(R"({"a":["b"]})", R"({"a":"c"})"), J(R"({"a":"c"})"));
  EXPECT_EQ(Merge(R"({"a":"c"})", R"({"a":["b"]})"), J(R"({"a":["b"]})"));
  EXPECT_EQ(Merge(R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})"), J(R"({"a":{"b":"d"}})"));
  EXPECT_EQ(Merge(R"({"a":[{"b":"c"}]})", R"({"a":[1]})"), J(R"({"a":[1]})"));
  EXPECT_EQ(Merge(R"(["a","b"])", R"(["c","d"])"), J(R"(["c","d"])"));
  EXPECT_EQ(Merge(R"({"a":"b"})", R"(["c"])"), J(R"(["c"])"));
  EXPECT_EQ(Merge(R"({"e":null})", R"({"a":1})"), J(R"({"a":1,"e":null})"));
  EXPECT_EQ(Merge(R"([1,2])", R"({"a":"b","c":null})"), J(R"({"a":"b"})"));
  EXPECT_EQ(Merge(R"({})", R"({"a":{"bb":{"ccc":null}}})"), J(R"({"a":{"bb":{}}})"));
}

TEST(MergePatchTest, LibraryCases) {
  EXPECT_EQ(Merge(R"({"title":null})", R"({"title":{"foo":"bar"}})"), J(R"({"title":{"foo":"bar"}})"));
  EXPECT_EQ(Merge(R"({"a":[{"b":"c"}]})", R"({"a":[null,1]})"), J(R"({"a":[null,1]})"));
  EXPECT_EQ(Merge(R"({"a":[]})", R"({"a":["b",null,null,"a"]})"), J(R"({"a":["b",null,null,"a"]})"));
  EXPECT_EQ(Merge(R"({"person":{"title":"hello","age":18}})", R"({"person":{"title":"goodbye"}})"),
            J(R"({"person":{"title":"goodbye","age":18}})"));
  EXPECT_EQ(Merge(R"({"array":["one","two"]})", R"({"array":[]})"), J(R"({"array":[]})"));
  // Nulls in objects inside a new array are pruned; a replaced array of the same key keeps them.
  EXPECT_EQ(Merge(R"({})", R"({"a":[{"x":null,"y":1}]})"), J(R"({"a":[{"y":1}]})"));
  EXPECT_EQ(Merge(R"({"a":{}})", R"({"a":[{"x":null}]})"), J(R"({"a":[{"x":null}]})"));
}

TEST(MergePatchTest, KubeAnswers) {
  boost::json::value doc = J(R"({"metadata":{"name":"x","labels":{"a":"1"}},"data":{"k":"v"}})");
  auto r = ApplyMergePatch(doc, R"({"metadata":{"labels":{"a":null,"b":"2"}},"data":null})");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, J(R"({"metadata":{"name":"x","labels":{"b":"2"}}})"));

  auto invalid = ApplyMergePatch(doc, R"({"a":)");
  EXPECT_EQ(invalid.status().code(), 400);
  EXPECT_EQ(invalid.status().message(), "invalid JSON patch");
  for (auto body : {"null", "\"bar\"", "1", "true"}) {
    auto bad = ApplyMergePatch(doc, body);
    EXPECT_EQ(bad.status().code(), 400) << body;
    EXPECT_EQ(bad.status().reason(), "BadRequest");
    EXPECT_EQ(bad.status().message(), "Invalid JSON Patch") << body;
  }
}

TEST(MergePatchTest, DeepPatchIsRefusedNotOverflowed) {
  std::string deep;
  for (int i = 0; i < 5000; ++i) deep += R"({"a":)";
  deep += "1";
  for (int i = 0; i < 5000; ++i) deep += "}";
  boost::json::value doc = J("{}");
  auto r = ApplyMergePatch(doc, deep);
  EXPECT_EQ(r.status().code(), 422);
  std::string ok;
  for (int i = 0; i < 1500; ++i) ok += R"({"a":)";
  ok += "null";
  for (int i = 0; i < 1500; ++i) ok += "}";
  auto fine = ApplyMergePatch(doc, ok);
  ASSERT_TRUE(fine.ok());
  EXPECT_EQ(JsonDepth(*fine), 1499);  // the innermost null member was pruned
}

}  // namespace
}  // namespace capstan::apimachinery
