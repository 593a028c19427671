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

namespace capstan {
namespace {

TEST(LogVmoduleTest, FirstMatchingPatternGivesTheFilesVerbosity) {
  SetLogVerbosity(0);
  SetLogVmodule({{"handlers_*", 4}, {"handlers_read", 1}, {"log_te?t", 6}, {"[xy]z", 2}});
  EXPECT_EQ(VmoduleLevel("/work/src/endpoints/handlers_read.cpp"), 4);  // the first match wins
  EXPECT_EQ(VmoduleLevel("../src/endpoints/handlers_write.h"), 4);
  EXPECT_EQ(VmoduleLevel("tests/util/log_test.cpp"), 6);
  EXPECT_EQ(VmoduleLevel("yz.cpp"), 2);
  EXPECT_EQ(VmoduleLevel("src/x/other.cpp"), -1);
  // This file's lines: on at 6 and below, off above; other files stay at -v.
  EXPECT_TRUE(LogV(6));
  EXPECT_FALSE(LogV(7));
  SetLogVmodule({});
  EXPECT_FALSE(LogV(1));
  EXPECT_EQ(VmoduleLevel("tests/util/log_test.cpp"), -1);
}

}  // namespace
}  // namespace capstan
