#include "util/log.h"

#include <gtest/gtest.h>

namespace capstan {
namespace {

TEST(LogTest, FormatsKlogStyleLineWithQuotedFields) {
  std::string line = FormatLogLine(LogLevel::kWarn, "watch closed", {{"resource", "configmaps"}, {"n", 3}});
  EXPECT_EQ(line[0], 'W');
  EXPECT_NE(line.find("capstan] \"watch closed\" resource=\"configmaps\" n=3\n"), std::string::npos) << line;
}

TEST(LogTest, EscapesControlCharactersAndQuotes) {
  std::string line = FormatLogLine(LogLevel::kInfo, "a\"b\nc", {});
  EXPECT_NE(line.find("\"a\\\"b\\nc\""), std::string::npos) << line;
}

}  // namespace
}  // namespace capstan
