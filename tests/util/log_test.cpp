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

TEST(LogTest, JsonLinesCarryKubesKeys) {
  SetLogFormat(LogFormat::kJson);
  std::string info = FormatLogLine(LogLevel::kInfo, "watch \"closed\"", {{"resource", "configmaps"}, {"n", 3}});
  std::string debug = FormatLogLine(LogLevel::kDebug, "d", {{"ctl", "a\x01" "b"}});
  std::string error = FormatLogLine(LogLevel::kError, "e", {});
  SetLogFormat(LogFormat::kText);
  EXPECT_EQ(info.rfind("{\"ts\":", 0), 0u) << info;
  EXPECT_NE(info.find(",\"caller\":\"capstan\",\"msg\":\"watch \\\"closed\\\"\",\"v\":0,\"resource\":\"configmaps\",\"n\":3}\n"),
            std::string::npos)
      << info;
  EXPECT_NE(debug.find("\"v\":4,\"ctl\":\"a\\u0001b\"}"), std::string::npos) << debug;
  EXPECT_EQ(error.find("\"v\":"), std::string::npos) << error;
  EXPECT_EQ(FormatLogLine(LogLevel::kInfo, "t", {})[0], 'I');
}

}  // namespace
}  // namespace capstan
