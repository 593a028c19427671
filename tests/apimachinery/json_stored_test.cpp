#include "apimachinery/json_stored.h"

#include <gtest/gtest.h>

#include <string>

namespace capstan::apimachinery {
namespace {

std::string Arrays(int levels) { return std::string(levels, '[') + std::string(levels, ']'); }

TEST(JsonStoredTest, ReadsBackEveryDepthARequestBodyMayHave) {
  // The request-body parser and the stored-bytes parser agree on the limit.
  ASSERT_TRUE(ParseJson(Arrays(kJsonMaxDepth)).ok());
  EXPECT_FALSE(ParseJson(Arrays(kJsonMaxDepth + 1)).ok());
  EXPECT_TRUE(ParseStoredJson(Arrays(33)).ok()) << "Boost.JSON's default limit is 32";
  EXPECT_TRUE(ParseStoredJson(Arrays(kJsonMaxDepth)).ok());
  auto too_deep = ParseStoredJson(Arrays(kJsonMaxDepth + 1));
  ASSERT_FALSE(too_deep.ok());
  EXPECT_EQ(too_deep.status().code(), 500);
}

TEST(JsonStoredTest, DepthCountsBracketsOutsideStrings) {
  EXPECT_EQ(JsonDepth("1"), 0);
  EXPECT_EQ(JsonDepth("{}"), 1);
  EXPECT_EQ(JsonDepth(R"({"a":[1,{"b":[]}],"c":{}})"), 4);
  EXPECT_EQ(JsonDepth(R"({"a":"[[[{{{\"[[["})"), 1);
  EXPECT_EQ(JsonDepth(R"(["\\",["\\\"]"]])"), 2);
  EXPECT_EQ(JsonDepth(Arrays(kJsonMaxDepth + 1)), kJsonMaxDepth + 1);
}

}  // namespace
}  // namespace capstan::apimachinery
