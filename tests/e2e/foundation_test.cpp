// End-to-end: the binary, TLS, PKI, health, metrics, flags and graceful shutdown (issue: foundation).
#include <sys/stat.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cmd/kubeconfig.h"
#include "cmd/pki.h"
#include "e2e_util.h"

namespace capstan::e2e {
namespace {

std::string ReadFile(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class FoundationTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }
  static ServerProcess* server_;
};
ServerProcess* FoundationTest::server_ = nullptr;

TEST_F(FoundationTest, KubectlVersionShowsServerVersion) {
  auto r = server_->Kubectl({"version", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\"gitVersion\": \"v1.32.0+capstan-"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"minor\": \"32\""), std::string::npos) << r.out;
}

TEST_F(FoundationTest, ReadyzVerboseListsChecks) {
  auto r = server_->Kubectl({"get", "--raw", "/readyz?verbose"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[+]ping ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[+]shutdown ok"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("readyz check passed"), std::string::npos) << r.out;
  auto one = server_->Kubectl({"get", "--raw", "/readyz/ping"});
  EXPECT_EQ(one.out, "ok");
  auto ex = server_->Kubectl({"get", "--raw", "/readyz?verbose&exclude=ping"});
  EXPECT_NE(ex.out.find("[+]ping excluded: ok"), std::string::npos) << ex.out;
}

TEST_F(FoundationTest, LivezAndHealthz) {
  EXPECT_EQ(server_->Kubectl({"get", "--raw", "/livez"}).out, "ok");
  EXPECT_EQ(server_->Kubectl({"get", "--raw", "/healthz"}).out, "ok");
  auto v = server_->Kubectl({"get", "--raw", "/livez?verbose"});
  EXPECT_NE(v.out.find("livez check passed"), std::string::npos);
  EXPECT_EQ(v.out.find("shutdown"), std::string::npos) << "shutdown is a readiness check only";
}

TEST_F(FoundationTest, MetricsInPrometheusFormat) {
  server_->Kubectl({"get", "--raw", "/version"});
  auto r = server_->Kubectl({"get", "--raw", "/metrics"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("# TYPE apiserver_request_total counter"), std::string::npos);
  EXPECT_NE(r.out.find("apiserver_request_total{code=\"200\",component=\"apiserver\",dry_run=\"\",group=\"\",resource=\"\","
                       "scope=\"\",subresource=\"/version\",verb=\"GET\",version=\"\"}"),
            std::string::npos)
      << r.out.substr(0, 3000);
  EXPECT_NE(r.out.find("apiserver_request_duration_seconds_bucket"), std::string::npos);
  EXPECT_NE(r.out.find("process_resident_memory_bytes "), std::string::npos);
  EXPECT_NE(r.out.find("process_start_time_seconds "), std::string::npos);
  EXPECT_NE(r.out.find("apiserver_current_inflight_requests{request_kind=\"readOnly\"}"), std::string::npos);
}

TEST_F(FoundationTest, UnknownPathIsKubes404Status) {
  auto r = RawHttps(server_->port(), {"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"},
                    server_->data_dir() + "/pki/admin.crt", server_->data_dir() + "/pki/admin.key");
  EXPECT_EQ(HttpStatusOf(r.response), 404) << r.response;
  EXPECT_NE(r.response.find("\"message\":\"the server could not find the requested resource\""), std::string::npos);
  EXPECT_NE(r.response.find("\"reason\":\"NotFound\""), std::string::npos);
}

TEST_F(FoundationTest, AnonymousReachesHealthButNotTheApi) {
  auto health = RawHttps(server_->port(), {"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(health.response), 200);
  auto api = RawHttps(server_->port(), {"GET /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(api.response), 403) << api.response;
  EXPECT_NE(api.response.find("User \\\"system:anonymous\\\" cannot list resource \\\"namespaces\\\""),
            std::string::npos)
      << api.response;
  auto metrics = RawHttps(server_->port(), {"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(metrics.response), 403);
}

TEST_F(FoundationTest, ClientCertFromAnotherCaIs401) {
  std::string dir = MakeTempDir("capstan-foreign");
  auto now = std::chrono::system_clock::now();
  auto ca = cmd::CreateSelfSignedCa("foreign-ca", now);
  ASSERT_TRUE(ca.ok());
  cmd::CertSpec spec;
  spec.common_name = "mallory";
  spec.organizations = {"system:masters"};
  spec.client_auth = true;
  cmd::SetValidity(spec, now, cmd::kLeafLifetime);
  auto leaf = cmd::IssueCertAndKey(spec, *ca);
  ASSERT_TRUE(leaf.ok());
  cmd::AdminKubeconfig kc;
  kc.server_url = "https://127.0.0.1:" + std::to_string(server_->port());
  kc.ca_cert_pem = ReadFile(server_->data_dir() + "/pki/ca.crt");
  kc.client_cert_pem = cmd::CertificateToPem(*leaf->cert);
  kc.client_key_pem = cmd::PrivateKeyToPem(*leaf->key);
  ASSERT_TRUE(cmd::WriteAdminKubeconfig(dir + "/foreign.kubeconfig", kc).ok());
  auto r = RunCommand({KubectlPath(), "--kubeconfig", dir + "/foreign.kubeconfig", "get", "--raw", "/api"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("Unauthorized"), std::string::npos) << r.err;

  // An expired certificate from the cluster's own CA is refused the same way.
  auto own_ca_cert = cmd::LoadCertificatesFile(server_->data_dir() + "/pki/ca.crt");
  auto own_ca_key = cmd::LoadPrivateKeyFile(server_->data_dir() + "/pki/ca.key");
  ASSERT_TRUE(own_ca_cert.ok() && own_ca_key.ok());
  cmd::CertAndKey own{std::move((*own_ca_cert)[0]), std::move(*own_ca_key)};
  cmd::CertSpec old = spec;
  old.common_name = "expired-admin";
  old.not_before = now - std::chrono::hours(48);
  old.not_after = now - std::chrono::hours(24);
  auto expired = cmd::IssueCertAndKey(old, own);
  ASSERT_TRUE(expired.ok());
  kc.client_cert_pem = cmd::CertificateToPem(*expired->cert);
  kc.client_key_pem = cmd::PrivateKeyToPem(*expired->key);
  ASSERT_TRUE(cmd::WriteAdminKubeconfig(dir + "/expired.kubeconfig", kc).ok());
  auto e = RunCommand({KubectlPath(), "--kubeconfig", dir + "/expired.kubeconfig", "get", "--raw", "/api"});
  EXPECT_NE(e.exit_code, 0);
  EXPECT_NE(e.err.find("Unauthorized"), std::string::npos) << e.err;
  std::filesystem::remove_all(dir);
}

TEST_F(FoundationTest, OversizedBodyIs413Status) {
  std::string head = "POST /api/v1/namespaces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: " +
                     std::to_string(4 * 1024 * 1024) + "\r\n\r\n";
  auto r = RawHttps(server_->port(), {head});
  EXPECT_EQ(HttpStatusOf(r.response), 413) << r.response;
  EXPECT_NE(r.response.find("\"reason\":\"RequestEntityTooLarge\""), std::string::npos);
  EXPECT_NE(r.response.find("Request entity too large: limit is 3145728"), std::string::npos);
}

TEST_F(FoundationTest, OversizedHeadersAre431) {
  std::string req = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(1100 * 1024, 'a') + "\r\n\r\n";
  auto r = RawHttps(server_->port(), {req});
  EXPECT_EQ(HttpStatusOf(r.response), 431) << r.response.substr(0, 200);
}

TEST_F(FoundationTest, MalformedHttpAndTlsGarbageLeaveTheServerServing) {
  auto bad = RawHttps(server_->port(), {"THIS IS NOT HTTP\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(bad.response), 400);
  std::string garbage(5000, '\x16');
  RawTcp(server_->port(), garbage);
  RawTcp(server_->port(), "GET / HTTP/1.1\r\n\r\n");
  auto health = RawHttps(server_->port(), {"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(health.response), 200);
}

TEST_F(FoundationTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  std::string two = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /livez HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  auto r = RawHttps(server_->port(), {two});
  size_t first = r.response.find("HTTP/1.1 200");
  ASSERT_NE(first, std::string::npos);
  EXPECT_NE(r.response.find("HTTP/1.1 200", first + 1), std::string::npos) << r.response;
}

TEST_F(FoundationTest, GeneratedKeysArePrivate) {
  for (const char* f : {"ca.key", "apiserver.key", "admin.key", "sa.key", "front-proxy-ca.key"}) {
    struct stat st;
    ASSERT_EQ(stat((server_->data_dir() + "/pki/" + f).c_str(), &st), 0) << f;
    EXPECT_EQ(st.st_mode & 0777, 0600u) << f;
  }
  struct stat kc;
  ASSERT_EQ(stat(server_->kubeconfig().c_str(), &kc), 0);
  EXPECT_EQ(kc.st_mode & 0777, 0600u);
}

TEST(FoundationProcessTest, SecondStartReusesThePki) {
  std::string dir = MakeTempDir("capstan-reuse");
  std::string ca1;
  {
    ServerProcess first({}, dir);
    ASSERT_TRUE(first.ok()) << first.error();
    ca1 = ReadFile(dir + "/pki/ca.crt");
    EXPECT_EQ(first.Stop(), 0);
  }
  ServerProcess second({}, dir);
  ASSERT_TRUE(second.ok()) << second.error();
  EXPECT_EQ(ReadFile(dir + "/pki/ca.crt"), ca1);
  EXPECT_EQ(second.Kubectl({"get", "--raw", "/readyz"}).out, "ok");
  second.Stop();
  std::filesystem::remove_all(dir);
}

TEST(FoundationProcessTest, SigtermDuringASlowRequestCompletesItAndExitsZero) {
  ServerProcess s;
  ASSERT_TRUE(s.ok()) << s.error();
  // A slow upload: the head and half the body now, SIGTERM, then the rest.
  std::string body = "{\"kind\":\"Namespace\"}";
  std::string head = "POST /apis/nothing/v1/things HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: " +
                     std::to_string(body.size()) + "\r\n\r\n";
  RawResult result;
  std::thread client([&] {
    result = RawHttps(s.port(), {head + body.substr(0, 5), body.substr(5)}, s.data_dir() + "/pki/admin.crt",
                      s.data_dir() + "/pki/admin.key", std::chrono::milliseconds(700));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int code = s.Stop(SIGTERM);
  client.join();
  EXPECT_EQ(code, 0) << s.log();
  EXPECT_EQ(HttpStatusOf(result.response), 404) << result.response;
}

TEST(FoundationFlagsTest, UnknownFlagExitsTwoNamingIt) {
  auto r = RunCommand({Binary(), "--no-such-flag=1"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown flag: --no-such-flag"), std::string::npos) << r.err;
}

TEST(FoundationFlagsTest, BadValueExitsTwoNamingTheFlag) {
  auto r = RunCommand({Binary(), "--secure-port=abc"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--secure-port"), std::string::npos) << r.err;
}

TEST(FoundationFlagsTest, VersionAndHelp) {
  auto v = RunCommand({Binary(), "--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("Kubernetes v1.32.0+capstan-"), std::string::npos) << v.out;
  auto h = RunCommand({Binary(), "--help"});
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_NE(h.out.find("--etcd-servers"), std::string::npos);
  EXPECT_NE(h.out.find("--data-dir"), std::string::npos);
}

TEST(FoundationFlagsTest, KubeFlagsWithoutEffectAreAcceptedAndLogged) {
  ServerProcess s({"--contention-profiling=true", "--event-ttl=2h", "--v=2"});
  ASSERT_TRUE(s.ok()) << s.error();
  EXPECT_NE(s.log().find("flags accepted for compatibility but not acted on yet"), std::string::npos) << s.log();
  EXPECT_NE(s.log().find("contention-profiling"), std::string::npos) << s.log();
}

}  // namespace
}  // namespace capstan::e2e
