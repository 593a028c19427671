// End-to-end: the client libraries people write tools with, against the real build/capstan: the
// current `kubernetes` Python client (PyPI) and @kubernetes/client-node 1.x (npm), each installed into
// the build tree on first run (a test is skipped when its registry cannot be reached). The scripts in
// tests/e2e/python_client/ and tests/e2e/node_client/ drive CRUD, kube's error Statuses, patches,
// server-side apply, a watch, pagination, scale, a CRD and the discovery-based clients; every check they
// print must pass.
#include <gtest/gtest.h>

#include <filesystem>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

void ExpectAllChecksPass(const CommandResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "\ndone")) << r.out;
  EXPECT_FALSE(Contains(r.out, "FAIL")) << r.out;
}

TEST(ClientLibrariesE2e, PythonClientTypedDynamicAndWatchApis) {
  std::string why;
  std::string python = PythonClient(&why);
  if (python.empty()) GTEST_SKIP() << why;
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  ExpectAllChecksPass(
      RunCommand({python, SourcePath("python_client/api_checks.py"), server.kubeconfig()}, "", std::chrono::seconds(180)));
}

TEST(ClientLibrariesE2e, NodeClientTypedGenericAndWatchApis) {
  std::string why;
  std::string dir = NodeClient(&why);
  if (dir.empty()) GTEST_SKIP() << why;
  // The script runs beside node_modules, where its import resolves.
  std::string script = dir + "/api_checks.mjs";
  std::filesystem::copy_file(SourcePath("node_client/api_checks.mjs"), script,
                             std::filesystem::copy_options::overwrite_existing);
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  ExpectAllChecksPass(RunCommand({"node", script, server.kubeconfig()}, "", std::chrono::seconds(180)));
}

}  // namespace
}  // namespace capstan::e2e
