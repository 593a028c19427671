// End-to-end: HTTP/2 on the secure port (issue 21). ALPN offers h2 then http/1.1; curl gets either
// protocol it asks for; kubectl 1.32 and 1.33 negotiate h2 (counted in /metrics); one Node
// `node:http2` connection multiplexes many requests and two watches; a watch whose reader stops
// stalls only its own stream; a client RST_STREAM ends the server's watcher; SIGTERM sends GOAWAY and
// ends open watches cleanly; --disable-http2-serving keeps everyone on HTTP/1.1.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <string>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;

std::string ClientScript() {
  const char* source = std::getenv("CAPSTAN_SOURCE_DIR");
  return std::string(source ? source : ".") + "/tests/e2e/testdata/http2_client.js";
}

class Http2Test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  // curl with the admin certificate, forcing a protocol; "<http_version> <code>".
  static std::string CurlVersion(const ServerProcess& s, const std::string& flag, const std::string& path = "/version") {
    std::string pki = s.data_dir() + "/pki/";
    auto r = RunCommand({"curl", "-sS", flag, "--cacert", pki + "ca.crt", "--cert", pki + "admin.crt", "--key",
                         pki + "admin.key", "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                         "https://127.0.0.1:" + std::to_string(s.port()) + path});
    return r.out + r.err;
  }

  // A counter's value in /metrics, read over HTTP/1.1 so the reading does not count as HTTP/2.
  static double Metric(const ServerProcess& s, const std::string& sample) {
    std::string pki = s.data_dir() + "/pki/";
    auto r = RunCommand({"curl", "-sS", "--http1.1", "--cacert", pki + "ca.crt", "--cert", pki + "admin.crt", "--key",
                         pki + "admin.key", "https://127.0.0.1:" + std::to_string(s.port()) + "/metrics"});
    size_t at = r.out.find("\n" + sample + " ");
    if (at == std::string::npos) return -1;
    return std::stod(r.out.substr(at + sample.size() + 2));
  }

  static json::object Node(const ServerProcess& s, const std::string& mode, const std::string& ns,
                           const std::string& extra = "") {
    std::vector<std::string> argv = {"node", ClientScript(), mode, std::to_string(s.port()), s.data_dir() + "/pki", ns};
    if (!extra.empty()) argv.push_back(extra);
    auto r = RunCommand(argv, "", std::chrono::seconds(90));
    boost::system::error_code ec;
    json::value v = json::parse(r.out, ec);
    if (ec || !v.is_object()) {
      ADD_FAILURE() << "node " << mode << ": " << r.out << r.err;
      return {};
    }
    EXPECT_FALSE(v.as_object().contains("error")) << r.out;
    return v.as_object();
  }

  static void Namespace(const std::string& ns) { ASSERT_EQ(server_->Kubectl({"create", "namespace", ns}).exit_code, 0); }

  static ServerProcess* server_;
};
ServerProcess* Http2Test::server_ = nullptr;

const std::string kH2Connections = "capstan_http_connections_total{protocol=\"HTTP/2\"}";
const std::string kH1Connections = "capstan_http_connections_total{protocol=\"HTTP/1.1\"}";

TEST_F(Http2Test, CurlGetsTheProtocolItAsksFor) {
  EXPECT_EQ(CurlVersion(*server_, "--http2"), "2 200");
  EXPECT_EQ(CurlVersion(*server_, "--http1.1"), "1.1 200");
  // A Status error and a streamed list over h2.
  EXPECT_EQ(CurlVersion(*server_, "--http2", "/api/v1/namespaces/nope"), "2 404");
  EXPECT_EQ(CurlVersion(*server_, "--http2", "/api/v1/namespaces?watch=1&timeoutSeconds=1"), "2 200");
}

TEST_F(Http2Test, KubectlNegotiatesHttp2) {
  for (std::string minor : {"32", "33"}) {
    std::string ns = "kubectl-h2-" + minor;
    double before = Metric(*server_, kH2Connections);
    ASSERT_GE(before, 0);
    auto c = server_->Kubectl({"create", "namespace", ns}, "", minor);
    ASSERT_EQ(c.exit_code, 0) << c.err;
    c = server_->Kubectl({"create", "configmap", "c", "-n", ns, "--from-literal=a=b"}, "", minor);
    ASSERT_EQ(c.exit_code, 0) << c.err;
    c = server_->Kubectl({"get", "configmap", "c", "-n", ns, "-o", "jsonpath={.data.a}"}, "", minor);
    EXPECT_EQ(c.out, "b") << c.err;
    // A watch through kubectl's streaming path: it ends when the server's timeout does.
    c = server_->Kubectl({"get", "--raw", "/api/v1/namespaces/" + ns + "/configmaps?watch=1&timeoutSeconds=2"}, "", minor);
    EXPECT_EQ(c.exit_code, 0) << c.err;
    EXPECT_NE(c.out.find("\"type\":\"ADDED\""), std::string::npos) << c.out;
    c = server_->Kubectl({"get", "configmaps", "-n", ns, "--watch", "--request-timeout=3s"}, "", minor);
    EXPECT_NE(c.out.find("c "), std::string::npos) << c.out << c.err;
    // Each kubectl call is one TLS connection, and each negotiated h2.
    EXPECT_GE(Metric(*server_, kH2Connections), before + 5) << "kubectl 1." << minor;
  }
}

TEST_F(Http2Test, OneConnectionMultiplexesRequestsAndWatches) {
  Namespace("mux");
  double h2_before = Metric(*server_, kH2Connections);
  auto r = Node(*server_, "multiplex", "mux");
  EXPECT_EQ(r["alpn"], "h2");
  EXPECT_EQ(r["creates_ok"], 10);
  EXPECT_EQ(r["gets_ok"], 100);
  EXPECT_EQ(r["watch1_status"], 200);
  EXPECT_EQ(r["watch2_status"], 200);
  EXPECT_GE(r["watch1_events"].to_number<int>(), 10);  // every create, seen on the open watch
  EXPECT_EQ(r["watch2_events"], 0);                    // its selector matches nothing
  EXPECT_EQ(r["watches_open"], true);
  EXPECT_EQ(Metric(*server_, kH2Connections), h2_before + 1);  // all of it on one connection
}

TEST_F(Http2Test, StalledWatchDoesNotDelayOtherStreams) {
  Namespace("stall");
  auto r = Node(*server_, "stall", "stall");
  EXPECT_EQ(r["watch_status"], 200);
  // The paused watch got no more than its 16 KiB window while about 600 KiB waited...
  EXPECT_LE(r["stalled_bytes"].to_number<int>(), 16384 + 4096) << json::serialize(r);
  // ...and meanwhile 20 GETs of 200 KiB objects on the same connection were answered.
  EXPECT_EQ(r["gets_ok"], 20);
  EXPECT_LT(r["gets_ms"].to_number<int>(), 10000);
  // Reading again delivers the rest.
  EXPECT_GE(r["events_after_resume"].to_number<int>(), 3);
  EXPECT_GT(r["bytes_after_resume"].to_number<int>(), 600 * 1024);
}

TEST_F(Http2Test, ClientResetEndsTheWatch) {
  Namespace("reset");
  auto r = Node(*server_, "reset", "reset");
  EXPECT_EQ(r["watch_status"], 200);
  double before = r["before"].to_number<double>();
  EXPECT_EQ(r["during"].to_number<double>(), before + 1) << json::serialize(r);
  EXPECT_EQ(r["after"].to_number<double>(), before) << json::serialize(r);  // the watcher went away
  EXPECT_GE(r["resets"].to_number<double>(), 1);
}

TEST(Http2ServerTest, SigtermSendsGoawayAndEndsWatchesCleanly) {
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  ASSERT_EQ(server.Kubectl({"create", "namespace", "bye"}).exit_code, 0);
  std::vector<std::string> argv = {"node", ClientScript(), "goaway", std::to_string(server.port()),
                                   server.data_dir() + "/pki", "bye", std::to_string(server.pid())};
  auto out = RunCommand(argv, "", std::chrono::seconds(60));
  boost::system::error_code ec;
  json::value v = json::parse(out.out, ec);
  ASSERT_FALSE(ec) << out.out << out.err;
  json::object r = v.as_object();
  EXPECT_EQ(r["watch_status"], 200) << out.out;
  EXPECT_EQ(r["watch_ended"], true) << out.out;  // the server ended the stream, no reset
  EXPECT_TRUE(r["watch_error"].is_null()) << out.out;
  ASSERT_TRUE(r["goaway"].is_object()) << out.out;
  EXPECT_EQ(r["goaway"].as_object()["code"], 0) << out.out;  // NO_ERROR
  EXPECT_EQ(server.Stop(15), 0);
}

TEST(Http2ServerTest, DisableHttp2ServingKeepsHttp11) {
  ServerProcess server({"--disable-http2-serving"});
  ASSERT_TRUE(server.ok()) << server.error();
  std::string pki = server.data_dir() + "/pki/";
  auto r = RunCommand({"curl", "-sS", "--http2", "--cacert", pki + "ca.crt", "--cert", pki + "admin.crt", "--key",
                       pki + "admin.key", "-o", "/dev/null", "-w", "%{http_version}",
                       "https://127.0.0.1:" + std::to_string(server.port()) + "/version"});
  EXPECT_EQ(r.out, "1.1") << r.err;
  auto k = server.Kubectl({"get", "namespaces"});
  EXPECT_EQ(k.exit_code, 0) << k.err;
}

TEST_F(Http2Test, SettingsAreKubes) {
  auto r = Node(*server_, "settings", "default");
  json::object& st = r["settings"].as_object();
  EXPECT_EQ(st["maxConcurrentStreams"], 100) << json::serialize(r);  // kube's value for 0
  EXPECT_EQ(st["maxFrameSize"], 256 * 1024);
  EXPECT_EQ(st["initialWindowSize"], 256 * 1024);
  EXPECT_EQ(st["maxHeaderListSize"], 1 << 20);
}

TEST(Http2ServerTest, MaxStreamsFlagIsAdvertised) {
  ServerProcess server({"--http2-max-streams-per-connection=7"});
  ASSERT_TRUE(server.ok()) << server.error();
  std::vector<std::string> argv = {"node", ClientScript(), "settings", std::to_string(server.port()),
                                   server.data_dir() + "/pki", "default"};
  auto out = RunCommand(argv, "", std::chrono::seconds(60));
  EXPECT_NE(out.out.find("\"maxConcurrentStreams\":7"), std::string::npos) << out.out << out.err;
  EXPECT_EQ(server.log().find("http2-max-streams-per-connection"), std::string::npos)
      << "the flag must not be reported as ignored";
}

TEST(Http2ServerTest, GoawayChanceIsValidatedAsKubeDoes) {
  const char* bin = std::getenv("CAPSTAN_BINARY");
  std::string binary = bin ? bin : "build/capstan";
  std::string dir = MakeTempDir("capstan-goaway");
  auto r = RunCommand({binary, "--data-dir", dir, "--secure-port", "0", "--goaway-chance=0.5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--goaway-chance can not be less than 0 or greater than 0.02"), std::string::npos) << r.err;
  // An accepted value acts and is not reported among the flags that do nothing.
  ServerProcess server({"--goaway-chance=0.02"});
  ASSERT_TRUE(server.ok()) << server.error();
  EXPECT_EQ(server.log().find("goaway-chance"), std::string::npos) << server.log();
}

}  // namespace
}  // namespace capstan::e2e
