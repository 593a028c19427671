// End-to-end: pods/log, nodes/proxy, pods/proxy and services/proxy through Capstan to a fake kubelet.
// The fake kubelet is an HTTPS server with its own CA on the machine's non-loopback address (kube
// refuses loopback node and pod addresses); it answers only requests that present the kubelet client
// certificate Capstan was given. A second fake kubelet, with a certificate Capstan does not trust,
// stands for a kubelet whose serving certificate cannot be verified. Driven with kubectl 1.32 (exec
// and port-forward also with 1.27, which speaks SPDY only, and 1.33).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "cmd/kubeconfig.h"
#include "cmd/pki.h"
#include "e2e_util.h"
#include "endpoints/proxy_html.h"
#include "fake_kubelet_streams.h"
#include "test_servers.h"
#include "util/strings.h"
#include "server/http/http_stream.h"
#include "server/http/websocket.h"
#include "server/http_client.h"
#include "server/http_server.h"

namespace capstan::e2e {
namespace {

struct KubeletSeen {
  std::mutex mu;
  std::vector<std::string> requests;  // "METHOD target"
  std::string forwarded_uri;
  std::string forwarded_for;
  bool authorization = false;
  std::string body;
  int refused = 0;  // requests without the expected client certificate
  // kubectl logs -f: the second line is sent once the test has seen the first (or after 10 s).
  std::shared_ptr<std::atomic<bool>> first_line_seen = std::make_shared<std::atomic<bool>>(false);
  std::atomic<bool> second_sent_after_first{false};
};

class FakeKubelet {
 public:
  // Its serving certificate (for `ip`) comes from its own CA (ca_file()); `client_der` is the
  // certificate it requires from its clients, whose CA it names in the handshake.
  FakeKubelet(const std::string& ip, const std::string& name, const std::string& client_ca_file, std::string client_der)
      : client_der_(std::move(client_der)) {
    dir_ = MakeTempDir("capstan-fake-kubelet");
    WriteServingCertificate(dir_, name, ip);
    streams_.container_root = dir_ + "/rootfs";
    std::filesystem::create_directories(streams_.container_root + "/tmp");
    server::HttpServerOptions o = TestServerOptions(dir_);
    o.client_ca_files = {client_ca_file};
    server_ = std::make_unique<server::HttpServer>(o, [this](http::RequestContext& ctx) -> Task<void> { co_await Serve(ctx); });
    ok_ = server_->Start().ok();
  }
  ~FakeKubelet() { server_->Shutdown(std::chrono::milliseconds(2000)); }
  bool ok() const { return ok_; }
  int port() const { return server_->port(); }
  std::string ca_file() const { return dir_ + "/ca.crt"; }
  // The folder the container's "/" is (kubectl cp's tar runs in it).
  const std::string& container_root() const { return streams_.container_root; }
  KubeletSeen& seen() { return seen_; }
  StreamsSeen& streams() { return streams_; }

 private:
  Task<void> Serve(http::RequestContext& ctx) {
    const auto& req = ctx.request;
    http::HttpResponse r;
    r.headers.Set("Content-Type", "text/plain");
    if (req.path == "/pod/page.html" || req.path == "/pod/page.html.gz") {
      // A page whose links name the pod's own paths: through */proxy they must stay under the proxy.
      r.headers.Set("Content-Type", "text/html; charset=utf-8");
      r.body = "<html><head><link href=\"/pod/style.css\" rel=stylesheet></head><body>"
               "<a href=\"/pod/hello\">hello</a> <a href=\"https://example.com/\">away</a> <img src=rel.png></body></html>";
      if (req.path.ends_with(".gz")) {
        r.headers.Set("Content-Encoding", "gzip");
        r.body = endpoints::EncodeContent(r.body, "gzip");
      }
      co_await ctx.writer->Respond(std::move(r));
      co_return;
    }
    if (req.path == "/pod/hello") {
      // What a pod's server answers (pods/proxy and services/proxy come without a client certificate).
      r.body = "hello from the pod (" + std::string(req.headers.Get("X-Forwarded-Uri")) + ")";
      co_await ctx.writer->Respond(std::move(r));
      co_return;
    }
    if (req.peer_certs_der.empty() || req.peer_certs_der.front() != client_der_) {
      {
        std::lock_guard lock(seen_.mu);
        ++seen_.refused;
      }
      r.status = 401;
      r.body = "Unauthorized";
      co_await ctx.writer->Respond(std::move(r));
      co_return;
    }
    if (IsStreamingPath(req.path)) {
      co_await ServeStreaming(ctx, streams_);
      co_return;
    }
    {
      std::lock_guard lock(seen_.mu);
      seen_.requests.push_back(req.method + " " + req.target);
    }
    const std::string& p = req.path;
    if (p == "/containerLogs/default/web/app" && req.query.Get("follow") == std::optional<std::string>("true")) {
      http::Headers h;
      h.Set("Content-Type", "text/plain");
      co_await ctx.writer->StartStream(200, std::move(h));
      co_await ctx.writer->WriteChunk("line 1\n");
      auto flag = seen_.first_line_seen;
      co_await Await<int>([flag](std::function<void(int)> cb) {
        std::thread([flag, cb] {
          for (int i = 0; i < 100 && !flag->load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
          cb(0);
        }).detach();
      });
      seen_.second_sent_after_first = flag->load();
      co_await ctx.writer->WriteChunk("line 2\n");
      co_await ctx.writer->EndStream();
      co_return;
    }
    if (p == "/containerLogs/default/web/app") {
      r.body = "log of app (" + req.raw_query + ")\n";
    } else if (p == "/containerLogs/default/web/sidecar") {
      r.status = 404;
      r.body = "container sidecar is not running";
    } else if (p.starts_with("/stats/")) {
      std::lock_guard lock(seen_.mu);
      seen_.forwarded_uri = std::string(req.headers.Get("X-Forwarded-Uri"));
      seen_.forwarded_for = std::string(req.headers.Get("X-Forwarded-For"));
      seen_.authorization = req.headers.Has("Authorization");
      r.headers.Set("Content-Type", "application/json");
      r.headers.Set("Access-Control-Allow-Origin", "*");
      r.body = R"({"node":{"nodeName":"n1"},"path":")" + p + R"("})";
    } else if (p == "/echo") {
      std::lock_guard lock(seen_.mu);
      seen_.body = req.body;
      r.body = req.method + " " + req.body;
    } else if (p == "/moved") {
      r.status = 302;
      r.headers.Set("Location", "/stats/summary");
      r.body = "moved";
    } else {
      r.status = 404;
      r.body = "404 page not found";
    }
    co_await ctx.writer->Respond(std::move(r));
  }

  std::string dir_, client_der_;
  std::unique_ptr<server::HttpServer> server_;
  KubeletSeen seen_;
  StreamsSeen streams_;
  bool ok_ = false;
};

// Sends `bytes` to 127.0.0.1:port, ends the sending half, and reads until the other side closes.
std::string SendAndHalfClose(int port, const std::string& bytes) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (fd >= 0) close(fd);
    return "";
  }
  timeval tv{10, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  (void)!write(fd, bytes.data(), bytes.size());
  shutdown(fd, SHUT_WR);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  close(fd);
  return out;
}

std::string Node(const std::string& name) {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name + "\n";
}

std::string NodeStatus(const std::string& ip, int port) {
  return R"({"status":{"addresses":[{"type":"InternalIP","address":")" + ip +
         R"("}],"daemonEndpoints":{"kubeletEndpoint":{"Port":)" + std::to_string(port) + "}}}}";
}

std::string Pod(const std::string& name, const std::string& node) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: default\n  labels:\n    app: " + name +
         "\nspec:\n  nodeName: " + node +
         "\n  containers:\n  - name: app\n    image: nginx\n  - name: sidecar\n    image: busybox\n";
}

class KubeletE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ip_ = LocalAddress();
    if (ip_.empty()) GTEST_SKIP() << "no non-loopback IPv4 address for the node and pod addresses";
    // The kubelet client certificate Capstan presents, from a CA the fake kubelets ask for.
    dir_ = MakeTempDir("capstan-kubelet-client");
    std::string cert_pem = WriteClientCertificate(dir_, "kube-apiserver-kubelet-client", {"kubeadm:cluster-admins"});
    kubelet_ = std::make_unique<FakeKubelet>(ip_, "fake-kubelet", dir_ + "/client-ca.crt", CertDerOf(cert_pem));
    untrusted_ = std::make_unique<FakeKubelet>(ip_, "untrusted-kubelet", dir_ + "/client-ca.crt", CertDerOf(cert_pem));
    ASSERT_TRUE(kubelet_->ok() && untrusted_->ok());
    std::vector<std::string> flags = {
        "--kubelet-client-certificate=" + dir_ + "/client.crt", "--kubelet-client-key=" + dir_ + "/client.key",
        "--kubelet-certificate-authority=" + kubelet_->ca_file(), "--kubelet-preferred-address-types=InternalIP,Hostname",
        "--kubelet-timeout=3s"};
    for (auto& f : ExtraFlags()) flags.push_back(f);
    server_ = std::make_unique<ServerProcess>(flags);
    ASSERT_TRUE(server_->ok()) << server_->error();
    for (auto [node, port] : {std::pair<std::string, int>{"n1", kubelet_->port()}, {"n2", untrusted_->port()}}) {
      ASSERT_EQ(Kubectl({"apply", "-f", "-"}, Node(node)).exit_code, 0);
      auto st = Kubectl({"patch", "node", node, "--subresource=status", "--type=merge", "-p", NodeStatus(ip_, port)});
      ASSERT_EQ(st.exit_code, 0) << st.err;
    }
    ASSERT_TRUE(server_->WaitForDefaultServiceAccount());
    auto web = Kubectl({"apply", "-f", "-"}, Pod("web", "n1"));
    ASSERT_EQ(web.exit_code, 0) << web.err;
    ASSERT_EQ(Kubectl({"apply", "-f", "-"}, Pod("web2", "n2")).exit_code, 0);
  }

  virtual std::vector<std::string> ExtraFlags() const { return {}; }

  CommandResult Kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input);
  }

  std::string ip_, dir_;
  std::unique_ptr<FakeKubelet> kubelet_, untrusted_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(KubeletE2eTest, LogsComeFromTheKubeletWithTheirOptions) {
  auto plain = Kubectl({"logs", "web", "-c", "app"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(plain.out, "log of app ()\n");
  // The options reach the kubelet as kube sends them (sorted keys, seconds for --since).
  auto opts = Kubectl({"logs", "web", "-c", "app", "--tail=2", "--timestamps", "--limit-bytes=100", "--since=1h", "--previous"});
  ASSERT_EQ(opts.exit_code, 0) << opts.err;
  EXPECT_EQ(opts.out, "log of app (limitBytes=100&previous=true&sinceSeconds=3600&tailLines=2&timestamps=true)\n");
  // A kubelet's error status becomes kube's Status for pods/log.
  auto missing = Kubectl({"logs", "web", "-c", "sidecar"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_TRUE(Contains(missing.err, "the server could not find the requested resource ( pods/log web)")) << missing.err;
  // Capstan's own checks come first: an unknown container never reaches the kubelet.
  auto bad = Kubectl({"logs", "web", "-c", "nope"});
  EXPECT_TRUE(Contains(bad.err, "container nope is not valid for pod web")) << bad.err;
  // Every request carried the kubelet client certificate.
  std::lock_guard lock(kubelet_->seen().mu);
  EXPECT_EQ(kubelet_->seen().refused, 0);
  ASSERT_GE(kubelet_->seen().requests.size(), 3u);
  EXPECT_EQ(kubelet_->seen().requests[0], "GET /containerLogs/default/web/app");
}

// The kubernetes Python client's pods/log and exec (WebSocket to Capstan, SPDY to the kubelet).
TEST_F(KubeletE2eTest, PythonClientLogsAndExec) {
  std::string why;
  std::string python = PythonClient(&why);
  if (python.empty()) GTEST_SKIP() << why;
  auto r = RunCommand({python, SourcePath("python_client/pod_streams.py"), server_->kubeconfig(), "default", "web", "app"},
                      "", std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "\ndone")) << r.out;
  std::lock_guard lock(kubelet_->seen().mu);
  EXPECT_EQ(kubelet_->seen().refused, 0);
}

// @kubernetes/client-node's Log and Exec (WebSocket v5 to Capstan, SPDY to the kubelet).
TEST_F(KubeletE2eTest, NodeClientLogsAndExec) {
  std::string why;
  std::string dir = NodeClient(&why);
  if (dir.empty()) GTEST_SKIP() << why;
  std::string script = dir + "/pod_streams.mjs";
  std::filesystem::copy_file(SourcePath("node_client/pod_streams.mjs"), script, std::filesystem::copy_options::overwrite_existing);
  auto r = RunCommand({"node", script, server_->kubeconfig(), "default", "web", "app"}, "", std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(Contains(r.out, "\ndone")) << r.out << r.err;
}

// What a WebSocket GET of `path` brought: the 101's subprotocol (or the refusal's status), the
// messages until the close, and the close code.
struct WebSocketRead {
  int status = 0;
  std::string protocol;
  std::vector<http::websocket::Message> messages;
  uint16_t close_code = 0;
};

WebSocketRead ReadWebSocket(const ServerProcess& server, const std::string& path, const std::vector<std::string>& protocols) {
  namespace ws = http::websocket;
  WebSocketRead out;
  auto config = cmd::LoadKubeconfigFile(server.kubeconfig());
  auto target = config.ok() ? cmd::ResolveCurrentContext(*config) : StatusOr<cmd::KubeconfigTarget>(config.status());
  if (!target.ok()) return out;
  server::HttpClientEngine engine;
  auto client = engine.NewClient({target->cluster.certificate_authority_data, target->user.client_certificate_data,
                                  target->user.client_key_data, "", false});
  auto* upgrading = client.ok() ? dynamic_cast<http::UpgradingHttpClient*>(client->get()) : nullptr;
  if (!upgrading) return out;
  const std::string key = ws::NewClientKey();
  http::ClientRequest req;
  req.url = target->cluster.server + path;
  req.headers = ws::ClientHandshakeHeaders(key, protocols);
  req.head_timeout = std::chrono::seconds(10);
  SyncWait([&]() -> Task<void> {
    auto up = co_await upgrading->DoUpgrade(std::move(req));
    if (!up.ok()) co_return;
    out.status = up->response.status;
    if (!up->stream || !ws::CheckHandshakeResponse(up->response.headers, key)) co_return;
    out.protocol = std::string(up->response.headers.Get("Sec-WebSocket-Protocol"));
    ws::Decoder decoder(/*expect_masked=*/false);
    for (std::string bytes; out.close_code == 0 && !(bytes = co_await up->stream->Read()).empty();) {
      std::vector<ws::Message> got;
      if (!decoder.Feed(bytes, &got).ok()) break;
      for (auto& m : got) {
        if (m.opcode == ws::Opcode::kClose) {
          out.close_code = ws::ParseClose(m.payload).first;
        } else {
          out.messages.push_back(std::move(m));
        }
      }
    }
    up->stream->Close();
  }());
  return out;
}

// kube's StreamObject over wsstream: pods/log to a WebSocket client, in binary or base64 messages.
TEST_F(KubeletE2eTest, LogsStreamOverAWebSocket) {
  namespace ws = http::websocket;
  const std::string path = "/api/v1/namespaces/default/pods/web/log?container=app&tailLines=3";
  auto binary = ReadWebSocket(*server_, path, {"binary.k8s.io"});
  ASSERT_EQ(binary.status, 101);
  EXPECT_EQ(binary.protocol, "binary.k8s.io");
  ASSERT_GE(binary.messages.size(), 2u);
  EXPECT_EQ(binary.messages[0], (ws::Message{ws::Opcode::kBinary, ""}));
  std::string text;
  for (size_t i = 1; i < binary.messages.size(); ++i) {
    EXPECT_EQ(binary.messages[i].opcode, ws::Opcode::kBinary);
    text += binary.messages[i].payload;
  }
  EXPECT_EQ(text, "log of app (tailLines=3)\n");
  EXPECT_EQ(binary.close_code, ws::kCloseNormal);

  auto b64 = ReadWebSocket(*server_, path, {"base64.binary.k8s.io"});
  ASSERT_EQ(b64.status, 101);
  EXPECT_EQ(b64.protocol, "base64.binary.k8s.io");
  ASSERT_GE(b64.messages.size(), 2u);
  EXPECT_EQ(b64.messages[0], (ws::Message{ws::Opcode::kText, ""}));
  EXPECT_EQ(b64.messages[1], (ws::Message{ws::Opcode::kText, Base64Encode("log of app (tailLines=3)\n")}));

  // A subprotocol wsstream does not know: x/net's bare 403.
  EXPECT_EQ(ReadWebSocket(*server_, path, {"v4.channel.k8s.io"}).status, 403);
  // Errors before the stream are the usual Status answers.
  EXPECT_EQ(ReadWebSocket(*server_, "/api/v1/namespaces/default/pods/web/log?container=sidecar", {"binary.k8s.io"}).status, 404);
}

// A WebSocket client asking for the kubelet's own protocol (v4.channel.k8s.io, as the Python client's
// exec does) is not translated: its upgrade is relayed to the kubelet, which answers it, as in kube.
TEST_F(KubeletE2eTest, AWebSocketV4ExecIsRelayedToTheKubelet) {
  namespace ws = http::websocket;
  auto got = ReadWebSocket(*server_, "/api/v1/namespaces/default/pods/web/exec?container=app&command=echo&command=hi&stdout=true",
                           {"v4.channel.k8s.io"});
  ASSERT_EQ(got.status, 101);
  EXPECT_EQ(got.protocol, "v4.channel.k8s.io");
  ASSERT_EQ(got.messages.size(), 2u);
  EXPECT_EQ(got.messages[0], (ws::Message{ws::Opcode::kBinary, "\x01hi\n"}));
  EXPECT_EQ(got.messages[1], (ws::Message{ws::Opcode::kBinary, std::string("\x03") + R"({"metadata":{},"status":"Success"})"}));
  EXPECT_EQ(got.close_code, ws::kCloseNormal);
  std::lock_guard lock(kubelet_->streams().mu);
  ASSERT_EQ(kubelet_->streams().requests.size(), 1u);
  EXPECT_EQ(kubelet_->streams().requests[0], "GET /exec/default/web/app?command=echo&command=hi&output=1 websocket");
}

TEST_F(KubeletE2eTest, FollowedLogsStreamLineByLine) {
  std::string cmd = KubectlPath() + " --kubeconfig " + server_->kubeconfig() + " logs -f web -c app";
  FILE* f = popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  char line[4096];
  std::string first = fgets(line, sizeof line, f) ? line : "";
  kubelet_->seen().first_line_seen->store(true);
  std::string rest;
  while (fgets(line, sizeof line, f)) rest += line;
  EXPECT_EQ(pclose(f), 0);
  EXPECT_EQ(first, "line 1\n");
  EXPECT_EQ(rest, "line 2\n");
  EXPECT_TRUE(kubelet_->seen().second_sent_after_first.load()) << "the first line did not arrive before the second was sent";
}

TEST_F(KubeletE2eTest, AnUnverifiableKubeletIsRefusedUnlessTheClientSkipsVerification) {
  auto refused = Kubectl({"logs", "web2", "-c", "app"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(Contains(refused.err, "Get \"https://" + ip_ + ":" + std::to_string(untrusted_->port()) +
                                        "/containerLogs/default/web2/app\"")) << refused.err;
  {
    std::lock_guard lock(untrusted_->seen().mu);
    EXPECT_TRUE(untrusted_->seen().requests.empty());
  }
  auto skipped = Kubectl({"logs", "web2", "-c", "app", "--insecure-skip-tls-verify-backend"});
  // That fake kubelet knows only pod web's logs: its 404 shows the request got there.
  EXPECT_TRUE(Contains(skipped.err, "the server could not find the requested resource ( pods/log web2)")) << skipped.err;
  {
    std::lock_guard lock(untrusted_->seen().mu);
    EXPECT_EQ(untrusted_->seen().requests.size(), 1u);
  }
  // kube's pods/log families: each request by its TLS usage, the failed verification counted.
  auto metrics = Kubectl({"get", "--raw", "/metrics"});
  EXPECT_TRUE(Contains(metrics.out, "kube_apiserver_pod_logs_insecure_backend_total{usage=\"enforce_tls\"} 1\n")) << metrics.err;
  EXPECT_TRUE(Contains(metrics.out, "kube_apiserver_pod_logs_insecure_backend_total{usage=\"skip_tls_allowed\"} 1\n"));
  EXPECT_TRUE(Contains(metrics.out, "kube_apiserver_pod_logs_backend_tls_failure_total 1\n"));
}

TEST_F(KubeletE2eTest, NodeProxyReachesTheKubelet) {
  auto stats = Kubectl({"get", "--raw", "/api/v1/nodes/n1/proxy/stats/summary"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_EQ(stats.out, R"({"node":{"nodeName":"n1"},"path":"/stats/summary"})");
  {
    std::lock_guard lock(kubelet_->seen().mu);
    EXPECT_EQ(kubelet_->seen().forwarded_uri, "/api/v1/nodes/n1/proxy/stats/summary");
    EXPECT_FALSE(kubelet_->seen().forwarded_for.empty());
    EXPECT_FALSE(kubelet_->seen().authorization) << "the client's credentials must not reach the kubelet";
  }
  // The kubelet's port named explicitly is the kubelet too; methods and bodies pass through.
  auto post = Kubectl({"create", "--raw", "/api/v1/nodes/n1:" + std::to_string(kubelet_->port()) + "/proxy/echo", "-f", "-"}, "hello");
  EXPECT_EQ(post.exit_code, 0) << post.err;
  EXPECT_EQ(post.out, "POST hello");
  // Raw HTTP: the status passes through, CORS headers are dropped, a redirect is rewritten under the
  // proxy path, an empty proxy path is kube's 301.
  const std::string pki = server_->data_dir() + "/pki/";
  auto get = [&](const std::string& path) {
    return RawHttps(server_->port(), {"GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"}, pki + "admin.crt",
                    pki + "admin.key").response;
  };
  std::string summary = get("/api/v1/nodes/n1/proxy/stats/summary");
  EXPECT_EQ(HttpStatusOf(summary), 200);
  EXPECT_FALSE(Contains(summary, "Access-Control-Allow-Origin: *")) << summary;
  std::string moved = get("/api/v1/nodes/n1/proxy/moved");
  EXPECT_EQ(HttpStatusOf(moved), 302) << moved;
  EXPECT_TRUE(Contains(moved, "Location: /api/v1/nodes/n1/proxy/stats/summary")) << moved;
  std::string root = get("/api/v1/nodes/n1/proxy?x=1");
  EXPECT_EQ(HttpStatusOf(root), 301) << root;
  EXPECT_TRUE(Contains(root, "Location: /api/v1/nodes/n1/proxy/?x=1")) << root;
  // A node without an address of the preferred types, and a kubelet that is not listening.
  ASSERT_EQ(Kubectl({"apply", "-f", "-"}, Node("bare")).exit_code, 0);
  auto bare = Kubectl({"get", "--raw", "/api/v1/nodes/bare/proxy/stats/summary"});
  EXPECT_TRUE(Contains(bare.err, "no preferred addresses found; known addresses: []")) << bare.err;
  // A node whose address is a name resolving to loopback is not proxied to (kube's isProxyableHostname).
  ASSERT_EQ(Kubectl({"apply", "-f", "-"}, Node("loopy")).exit_code, 0);
  ASSERT_EQ(Kubectl({"patch", "node", "loopy", "--subresource=status", "--type=merge", "-p",
                     R"({"status":{"addresses":[{"type":"Hostname","address":"localhost"}]}})"})
                .exit_code,
            0);
  auto loopy = Kubectl({"get", "--raw", "/api/v1/nodes/loopy/proxy/stats/summary"});
  EXPECT_NE(loopy.exit_code, 0);
  EXPECT_TRUE(Contains(loopy.err, "Error from server (BadRequest): address not allowed")) << loopy.err;
  ASSERT_EQ(Kubectl({"apply", "-f", "-"}, Node("gone")).exit_code, 0);
  ASSERT_EQ(Kubectl({"patch", "node", "gone", "--subresource=status", "--type=merge", "-p", NodeStatus(ip_, 1)}).exit_code, 0);
  auto gone = Kubectl({"get", "--raw", "/api/v1/nodes/gone/proxy/stats/summary"});
  EXPECT_TRUE(Contains(gone.err, "error trying to reach service: dial tcp " + ip_ + ":1: connect: connection refused")) << gone.err;
}

TEST_F(KubeletE2eTest, PodAndServiceProxiesReachTheEndpoint) {
  // Pod web's IP and a service whose endpoint is that pod, both at the fake kubelet's port (HTTPS).
  std::string port = std::to_string(kubelet_->port());
  auto st = Kubectl({"patch", "pod", "web", "--subresource=status", "--type=merge", "-p",
                     R"({"status":{"podIP":")" + ip_ + R"(","podIPs":[{"ip":")" + ip_ + R"("}]}})"});
  ASSERT_EQ(st.exit_code, 0) << st.err;
  auto pod = Kubectl({"get", "--raw", "/api/v1/namespaces/default/pods/https:web:" + port + "/proxy/pod/hello"});
  EXPECT_EQ(pod.exit_code, 0) << pod.err;
  EXPECT_EQ(pod.out, "hello from the pod (/api/v1/namespaces/default/pods/https:web:" + port + "/proxy/pod/hello)");
  // An HTML page's links to the pod's own paths are rewritten under the proxy path, gzipped or not.
  const std::string proxy = "/api/v1/namespaces/default/pods/https:web:" + port + "/proxy";
  for (const char* page : {"/pod/page.html", "/pod/page.html.gz"}) {
    auto html = Kubectl({"get", "--raw", proxy + page});
    EXPECT_EQ(html.exit_code, 0) << html.err;
    EXPECT_EQ(html.out, "<html><head><link href=\"" + proxy + "/pod/style.css\" rel=stylesheet></head><body><a href=\"" + proxy +
                            "/pod/hello\">hello</a> <a href=\"https://example.com/\">away</a> <img src=rel.png></body></html>")
        << page;
  }
  // The proxy transport presents no client certificate: the kubelet's own paths answer 401.
  auto kubelet_path = Kubectl({"get", "--raw", "/api/v1/namespaces/default/pods/https:web:" + port + "/proxy/stats/summary"});
  EXPECT_TRUE(Contains(kubelet_path.err, "the server has asked for the client to provide credentials")) << kubelet_path.err;
  // No scheme: http, which an HTTPS server does not speak.
  auto plain = Kubectl({"get", "--raw", "/api/v1/namespaces/default/pods/web:" + port + "/proxy/pod/hello"});
  EXPECT_NE(plain.exit_code, 0);
  std::string svc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: websvc\n  namespace: default\nspec:\n  ports:\n"
                    "  - name: web\n    port: 80\n    targetPort: " + port + "\n---\n"
                    "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: websvc\n  namespace: default\nsubsets:\n"
                    "- addresses:\n  - ip: " + ip_ + "\n    targetRef:\n      kind: Pod\n      name: web\n      namespace: default\n"
                    "  ports:\n  - name: web\n    port: " + port + "\n";
  ASSERT_EQ(Kubectl({"apply", "-f", "-"}, svc).exit_code, 0);
  auto viasvc = Kubectl({"get", "--raw", "/api/v1/namespaces/default/services/https:websvc:80/proxy/pod/hello"});
  EXPECT_EQ(viasvc.exit_code, 0) << viasvc.err;
  EXPECT_EQ(viasvc.out, "hello from the pod (/api/v1/namespaces/default/services/https:websvc:80/proxy/pod/hello)");
  // An endpoint that is not the pod's IP is not proxied to.
  st = Kubectl({"patch", "pod", "web", "--subresource=status", "--type=merge", "-p",
                R"({"status":{"podIP":"10.9.9.9","podIPs":[{"ip":"10.9.9.9"}]}})"});
  ASSERT_EQ(st.exit_code, 0) << st.err;
  auto stale = Kubectl({"get", "--raw", "/api/v1/namespaces/default/services/https:websvc:80/proxy/pod/hello"});
  EXPECT_TRUE(Contains(stale.err, "no endpoints available for service \\\"https:websvc:80\\\"") ||
              Contains(stale.err, "no endpoints available for service \"https:websvc:80\""))
      << stale.err;
}

TEST_F(KubeletE2eTest, UsersNeedTheSubresourceVerbs) {
  auto logs = Kubectl({"get", "--raw", "/api/v1/namespaces/default/pods/web/log?container=app", "--as=dev"});
  EXPECT_TRUE(Contains(logs.err, "User \"dev\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"default\""))
      << logs.err;
  auto proxy = Kubectl({"get", "--raw", "/api/v1/nodes/n1/proxy/stats/summary", "--as=dev"});
  EXPECT_TRUE(Contains(proxy.err, "cannot get resource \"nodes/proxy\" in API group \"\" at the cluster scope")) << proxy.err;
  std::lock_guard lock(kubelet_->seen().mu);
  EXPECT_TRUE(kubelet_->seen().requests.empty());
}

// exec and attach: kubectl 1.27 speaks SPDY, 1.32 and 1.33 first ask for a WebSocket (v5.channel.k8s.io).
TEST_F(KubeletE2eTest, ExecAndAttachReachTheContainer) {
  for (const std::string minor : {"27", "32", "33"}) {
    SCOPED_TRACE("kubectl 1." + minor);
    auto echo = server_->Kubectl({"exec", "web", "-c", "app", "--", "echo", "hello", "world"}, "", minor);
    ASSERT_EQ(echo.exit_code, 0) << echo.err;
    EXPECT_EQ(echo.out, "hello world\n");
    auto cat = server_->Kubectl({"exec", "-i", "web", "-c", "app", "--", "cat"}, "line one\nline two\n", minor);
    ASSERT_EQ(cat.exit_code, 0) << cat.err;
    EXPECT_EQ(cat.out, "line one\nline two\n");
    auto warn = server_->Kubectl({"exec", "web", "-c", "app", "--", "warn", "careful"}, "", minor);
    EXPECT_EQ(warn.exit_code, 0) << warn.err;
    EXPECT_EQ(warn.out, "");
    EXPECT_EQ(warn.err, "careful\n");
    // The exit code comes back through the error stream's Status.
    auto fail = server_->Kubectl({"exec", "web", "-c", "app", "--", "exit", "3"}, "", minor);
    EXPECT_EQ(fail.exit_code, 3) << fail.err;
    EXPECT_TRUE(Contains(fail.err, "command terminated with exit code 3")) << fail.err;
    auto attach = server_->Kubectl({"attach", "-i", "web", "-c", "app"}, "typed\n", minor);
    EXPECT_EQ(attach.exit_code, 0) << attach.err;
    EXPECT_TRUE(Contains(attach.out, "typed\n")) << attach.out;
  }
  std::lock_guard lock(kubelet_->streams().mu);
  ASSERT_FALSE(kubelet_->streams().requests.empty());
  // kube's streamParams: the kubelet's names for the streams, sorted, then the command.
  EXPECT_TRUE(Contains(kubelet_->streams().requests[0],
                       "POST /exec/default/web/app?command=echo&command=hello&command=world&error=1&output=1 SPDY/3.1"))
      << kubelet_->streams().requests[0];
  EXPECT_EQ(kubelet_->seen().refused, 0);
  // The WebSocket clients' streams were translated: the kubelet only ever saw SPDY.
  for (const auto& r : kubelet_->streams().requests) EXPECT_TRUE(r.ends_with(" SPDY/3.1")) << r;
  EXPECT_EQ(kubelet_->streams().requests.size(), 15u);
  // kube's translator metric: every WebSocket exec and attach ran (exit 3 too), so all are 200s.
  auto metrics = Kubectl({"get", "--raw", "/metrics"});
  EXPECT_TRUE(Contains(metrics.out, "apiserver_stream_translator_requests_total{code=\"200\"} 10\n")) << metrics.err;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// kubectl cp is tar through exec: into the container with stdin, out of it with stdout.
TEST_F(KubeletE2eTest, CpCopiesFilesBothWays) {
  std::string local = MakeTempDir("capstan-cp");
  std::string payload;
  for (int i = 0; i < 20000; ++i) payload += "line " + std::to_string(i) + " of a file copied through exec\n";
  std::ofstream(local + "/notes.txt", std::ios::binary) << payload;
  for (const std::string minor : {"27", "32", "33"}) {
    SCOPED_TRACE("kubectl 1." + minor);
    const std::string in_pod = "/tmp/notes-" + minor + ".txt";
    auto to = server_->Kubectl({"cp", local + "/notes.txt", "web:" + in_pod, "-c", "app"}, "", minor);
    ASSERT_EQ(to.exit_code, 0) << to.err;
    EXPECT_EQ(ReadFile(kubelet_->container_root() + in_pod), payload);
    const std::string back = local + "/back-" + minor + ".txt";
    auto from = server_->Kubectl({"cp", "web:" + in_pod, back, "-c", "app"}, "", minor);
    ASSERT_EQ(from.exit_code, 0) << from.err;
    EXPECT_EQ(ReadFile(back), payload);
  }
  // A missing source: kubectl cp writes nothing (whether it also prints tar's complaint races with its
  // exit, in kubectl itself); the same tar through exec reports it and its exit code.
  for (const std::string minor : {"27", "32", "33"}) {
    SCOPED_TRACE("kubectl 1." + minor);
    server_->Kubectl({"cp", "web:/tmp/absent.txt", local + "/absent.txt", "-c", "app"}, "", minor);
    EXPECT_FALSE(std::filesystem::exists(local + "/absent.txt"));
    auto tar = server_->Kubectl({"exec", "web", "-c", "app", "--", "tar", "cf", "-", "/tmp/absent.txt"}, "", minor);
    EXPECT_EQ(tar.exit_code, 2) << tar.err;
    EXPECT_TRUE(Contains(tar.err, "tmp/absent.txt: Cannot stat")) << tar.err;
  }
}

TEST_F(KubeletE2eTest, ExecNeedsAnUpgradeAndAScheduledPod) {
  auto plain = Kubectl({"create", "--raw", "/api/v1/namespaces/default/pods/web/exec?container=app&command=ls&stdout=true", "-f", "-"}, "{}");
  EXPECT_NE(plain.exit_code, 0);
  EXPECT_TRUE(Contains(plain.err, "Upgrade request required")) << plain.err;
  ASSERT_EQ(Kubectl({"apply", "-f", "-"}, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pending\nspec:\n  containers:\n  - name: c\n    image: x\n").exit_code, 0);
  auto pending = Kubectl({"exec", "pending", "--", "ls"});
  EXPECT_NE(pending.exit_code, 0);
  EXPECT_TRUE(Contains(pending.err, "pod pending does not have a host assigned")) << pending.err;
  auto user = Kubectl({"create", "--raw", "/api/v1/namespaces/default/pods/web/exec?container=app&command=ls", "--as=dev", "-f", "-"}, "{}");
  EXPECT_TRUE(Contains(user.err, "cannot create resource \"pods/exec\"")) << user.err;
}

// `kubectl port-forward pod/web :8080` for as long as it lives; port() is the local port (0 when
// kubectl did not start forwarding, first_line() then says why).
class PortForward {
 public:
  PortForward(const ServerProcess& server, const std::string& minor) {
    std::string cmd = KubectlPath(minor) + " --kubeconfig " + server.kubeconfig() + " port-forward pod/web :8080 2>&1";
    f_ = popen(cmd.c_str(), "r");
    char line[4096];
    if (f_ && fgets(line, sizeof line, f_)) first_ = line;
    // "Forwarding from 127.0.0.1:PORT -> 8080"
    if (size_t colon = first_.find("127.0.0.1:"); colon != std::string::npos) port_ = std::stoi(first_.substr(colon + 10));
  }
  ~PortForward() {
    RunCommand({"pkill", "-f", "port-forward pod/web :8080"});
    if (f_) pclose(f_);
  }
  int port() const { return port_; }
  const std::string& first_line() const { return first_; }

 private:
  FILE* f_ = nullptr;
  std::string first_;
  int port_ = 0;
};

// port-forward: kubectl 1.27 over SPDY, 1.32 and 1.33 first over WebSocket tunnelling.
TEST_F(KubeletE2eTest, PortForwardCarriesBytesBothWays) {
  // kubectl forwards only to a running pod.
  ASSERT_EQ(Kubectl({"patch", "pod", "web", "--subresource=status", "--type=merge", "-p", R"({"status":{"phase":"Running"}})"}).exit_code, 0);
  for (const std::string minor : {"27", "32", "33"}) {
    SCOPED_TRACE("kubectl 1." + minor);
    PortForward pf(*server_, minor);
    ASSERT_NE(pf.port(), 0) << pf.first_line();
    std::string back = SendAndHalfClose(pf.port(), "ping over the tunnel\n");
    EXPECT_EQ(back, "ping over the tunnel\n");
    std::string again = SendAndHalfClose(pf.port(), "second connection\n");
    EXPECT_EQ(again, "second connection\n");
  }
  std::lock_guard lock(kubelet_->streams().mu);
  EXPECT_TRUE(std::count(kubelet_->streams().stream_types.begin(), kubelet_->streams().stream_types.end(), "data:8080") >= 6);
  // One SPDY connection per kubectl, the WebSocket ones tunnelled: the kubelet never saw a WebSocket.
  EXPECT_EQ(kubelet_->streams().requests.size(), 3u);
  for (const auto& r : kubelet_->streams().requests) EXPECT_TRUE(r.ends_with(" SPDY/3.1")) << r;
  auto metrics = Kubectl({"get", "--raw", "/metrics"});
  EXPECT_TRUE(Contains(metrics.out, "apiserver_stream_tunnel_requests_total{code=\"101\"} 2\n")) << metrics.err;
}

// --max-connection-bytes-per-sec paces each direction of the kubelet's side of an upgraded
// connection, as kube's flowrate does: 256 KiB at 64 KiB/s (one second's burst) takes about three
// seconds, where unpaced it takes milliseconds.
class PacedKubeletE2eTest : public KubeletE2eTest {
 protected:
  std::vector<std::string> ExtraFlags() const override { return {"--max-connection-bytes-per-sec=65536"}; }
};

TEST_F(PacedKubeletE2eTest, UpgradedConnectionsKeepToTheRate) {
  ASSERT_EQ(Kubectl({"patch", "pod", "web", "--subresource=status", "--type=merge", "-p", R"({"status":{"phase":"Running"}})"}).exit_code, 0);
  const std::string payload(256 * 1024, 'p');
  // kubectl 1.27 through the SPDY relay, 1.33 through the WebSocket tunnel.
  for (const std::string minor : {"27", "33"}) {
    SCOPED_TRACE("kubectl 1." + minor);
    PortForward pf(*server_, minor);
    ASSERT_NE(pf.port(), 0) << pf.first_line();
    auto start = std::chrono::steady_clock::now();
    std::string back = SendAndHalfClose(pf.port(), payload);
    auto took = std::chrono::steady_clock::now() - start;
    EXPECT_EQ(back.size(), payload.size());
    EXPECT_GE(took, std::chrono::seconds(2));
  }
  // exec translated from WebSocket: stdin to the kubelet is paced too.
  auto start = std::chrono::steady_clock::now();
  auto cat = server_->Kubectl({"exec", "-i", "web", "-c", "app", "--", "cat"}, payload, "33");
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(cat.exit_code, 0) << cat.err;
  EXPECT_EQ(cat.out.size(), payload.size());
  EXPECT_GE(took, std::chrono::seconds(2));
}

}  // namespace
}  // namespace capstan::e2e
