#include "apimachinery/go_base64.h"

#include <gtest/gtest.h>

namespace capstan::apimachinery {
namespace {

TEST(GoBase64Test, OffsetsAreThoseGoReports) {
  EXPECT_EQ(GoBase64CorruptOffset(""), -1);
  EXPECT_EQ(GoBase64CorruptOffset("YWJj"), -1);
  EXPECT_EQ(GoBase64CorruptOffset("YWI="), -1);
  EXPECT_EQ(GoBase64CorruptOffset("YQ=="), -1);
  EXPECT_EQ(GoBase64CorruptOffset("YW\nJj\r\n"), -1) << "newlines are skipped";
  EXPECT_EQ(GoBase64CorruptOffset("YR=="), -1) << "StdEncoding is not strict about trailing bits";
  EXPECT_EQ(GoBase64CorruptOffset("not base64!"), 3);
  EXPECT_EQ(GoBase64CorruptOffset("YWJ"), 0) << "a short last group without padding";
  EXPECT_EQ(GoBase64CorruptOffset("YWJjY"), 4);
  EXPECT_EQ(GoBase64CorruptOffset("YQ="), 3) << "one '=' where two belong";
  EXPECT_EQ(GoBase64CorruptOffset("Y==="), 1);
  EXPECT_EQ(GoBase64CorruptOffset("=AAA"), 0);
  EXPECT_EQ(GoBase64CorruptOffset("YQ=x"), 2);
  EXPECT_EQ(GoBase64CorruptOffset("YWJjZA==YWJj"), 8) << "data after the padding";
  EXPECT_EQ(GoBase64CorruptOffset("YWJj!"), 4);
  EXPECT_EQ(GoBase64CorruptOffset("YWJjZGVmZ2hp-A=="), 12) << "the URL alphabet is not the standard one";
  EXPECT_EQ(GoBase64ErrorText(3), "illegal base64 data at input byte 3");
}

}  // namespace
}  // namespace capstan::apimachinery
