// End-to-end: the current `kubernetes` Python client from PyPI (installed into the build tree on
// first run; the test is skipped when PyPI cannot be reached) against the real build/capstan:
// tests/e2e/python_client/api_checks.py drives CRUD, errors, patches, a watch, scale, a CRD and the
// dynamic client; every check it prints must pass.
#include <gtest/gtest.h>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

TEST(PythonClientE2e, TypedDynamicAndWatchApis) {
  std::string why;
  std::string python = PythonClient(&why);
  if (python.empty()) GTEST_SKIP() << why;
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto r = RunCommand({python, SourcePath("python_client/api_checks.py"), server.kubeconfig()}, "", std::chrono::seconds(180));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "\ndone")) << r.out;
  EXPECT_FALSE(Contains(r.out, "FAIL")) << r.out;
}

}  // namespace
}  // namespace capstan::e2e
