// The status kube's stream translator writes to WebSocket channel 3 for each kind of v4 error stream.
#include "endpoints/stream_translator.h"

#include <gtest/gtest.h>

namespace capstan::endpoints {
namespace {

std::string Channel3(std::string_view error_stream) { return ErrorChannelJson(TranslatedExitStatus(error_stream)); }

TEST(TranslatedExitStatusTest, SuccessAndAnEmptyErrorStreamAreSuccess) {
  EXPECT_EQ(Channel3(""), R"({"metadata":{},"status":"Success"})");
  EXPECT_EQ(Channel3(R"({"metadata":{},"status":"Success"})"), R"({"metadata":{},"status":"Success"})");
}

TEST(TranslatedExitStatusTest, ANonZeroExitCodeKeepsItsCode) {
  std::string kubelet =
      R"({"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}})";
  EXPECT_EQ(Channel3(kubelet),
            R"({"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: command terminated with exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}})");
}

TEST(TranslatedExitStatusTest, OtherFailuresBecomeInternalErrors) {
  EXPECT_EQ(Channel3(R"({"status":"Failure","message":"container not found"})"),
            R"({"metadata":{},"status":"Failure","message":"Internal error occurred: container not found","reason":"InternalError","details":{"causes":[{"message":"container not found"}]},"code":500})");
  EXPECT_NE(Channel3(R"({"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"300"}]}})")
                .find("invalid exit code value \\\"300\\\""),
            std::string::npos);
  EXPECT_NE(Channel3(R"({"status":"Failure","reason":"NonZeroExitCode"})").find("details must be set"), std::string::npos);
  EXPECT_NE(Channel3(R"({"status":"Weird"})").find("unknown error"), std::string::npos);
  EXPECT_NE(Channel3("not json").find("error stream protocol error"), std::string::npos);
}

}  // namespace
}  // namespace capstan::endpoints
