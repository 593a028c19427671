// kubelet_bench: the streaming subresources' figures, in one run against one fake kubelet (the e2e
// tests' SPDY exec and port-forward echo, in this process):
//   - port-forward throughput: the same SPDY client straight to the kubelet and through Capstan's
//     pods/portforward (relayed SPDY), then kubectl 1.27 (SPDY) and 1.32 (WebSocket tunnel) through
//     Capstan from a local TCP connection;
//   - exec round trip: one stdin message to `cat` and its echo back, straight over SPDY, through
//     Capstan over SPDY, and through Capstan over WebSocket v5 (translated to SPDY v4);
//   - memory per open exec session: Capstan's RSS with N open `cat` sessions (SPDY, then WebSocket).
// Usage: kubelet_bench [MiB] [sessions] [round-trips]; needs build/capstan (CAPSTAN_BINARY) and kubectl.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cmd/kubeconfig.h"
#include "e2e_util.h"
#include "fake_kubelet_streams.h"
#include "server/http/http_stream.h"
#include "server/http/spdy_connection.h"
#include "server/http/websocket.h"
#include "server/http_client.h"
#include "server/http_server.h"
#include "test_servers.h"
#include "util/fan_out.h"

namespace capstan::bench {
namespace {

namespace ws = http::websocket;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

size_t OpenFds(pid_t pid) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) ++n;
  return n;
}

long RssKib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return -1;
}

struct Endpoint {
  std::string base;  // https://host:port
  http::UpgradingHttpClient* client = nullptr;
  std::string port_forward_path;
  std::string exec_path;  // cat with stdin, stdout and stderr
};

Task<std::unique_ptr<http::ByteStream>> Dial(const Endpoint& e, const std::string& path, http::Headers h) {
  http::ClientRequest req;
  req.method = h.Has("Sec-WebSocket-Key") ? "GET" : "POST";
  const std::string url = e.base + path;
  req.url = url;
  req.headers = std::move(h);
  req.timeout = std::chrono::hours(1);
  req.head_timeout = std::chrono::seconds(10);
  auto up = co_await e.client->DoUpgrade(std::move(req));
  if (!up.ok() || !up->stream) {
    std::fprintf(stderr, "upgrade of %s failed: %s %s\n", url.c_str(), up.ok() ? "" : up.status().message().c_str(),
                 up.ok() ? up->response.body.c_str() : "");
    co_return nullptr;
  }
  co_return std::move(up->stream);
}

http::Headers SpdyHeaders(const char* protocol) {
  http::Headers h;
  h.Set("Upgrade", "SPDY/3.1");
  h.Set("X-Stream-Protocol-Version", protocol);
  return h;
}

// Sends `bytes` through one forwarded connection and reads the echo; MB/s both ways counted once.
Task<double> PortForwardThroughput(const Endpoint& e, size_t bytes) {
  auto io = co_await Dial(e, e.port_forward_path, SpdyHeaders("portforward.k8s.io"));
  if (!io) co_return 0;
  http::SpdyConnection conn(*io);
  co_await conn.SynStream(1, {{"streamtype", "error"}, {"port", "8080"}, {"requestid", "0"}});
  co_await conn.SynStream(3, {{"streamtype", "data"}, {"port", "8080"}, {"requestid", "0"}});
  const std::string chunk(64 * 1024, 'x');
  size_t received = 0;
  auto start = Clock::now();
  co_await ForEachConcurrently(2, 2, [&](size_t pump) -> Task<void> {
    if (pump == 0) {
      for (size_t sent = 0; sent < bytes; sent += chunk.size()) {
        if (!co_await conn.Data(3, chunk)) break;
      }
      co_return;
    }
    while (received < bytes) {
      auto f = co_await conn.Next();
      if (!f) break;
      if (f->type == http::spdy::FrameType::kData && f->stream_id == 3) received += f->data.size();
    }
  });
  double s = Seconds(Clock::now() - start);
  conn.Close();
  if (received < bytes) std::fprintf(stderr, "port-forward: %zu of %zu bytes came back\n", received, bytes);
  co_return static_cast<double>(received) / (1024.0 * 1024.0) / s;
}

// An open SPDY `cat` session: its connection and the stream ids of remotecommand v4.
struct SpdyExec {
  std::unique_ptr<http::ByteStream> io;
  std::unique_ptr<http::SpdyConnection> conn;
};

Task<std::optional<SpdyExec>> OpenSpdyExec(const Endpoint& e) {
  SpdyExec x;
  x.io = co_await Dial(e, e.exec_path, SpdyHeaders("v4.channel.k8s.io"));
  if (!x.io) co_return std::nullopt;
  x.conn = std::make_unique<http::SpdyConnection>(*x.io);
  uint32_t id = 1;
  for (const char* type : {"error", "stdin", "stdout", "stderr"}) {
    co_await x.conn->SynStream(id, {{"streamtype", type}});
    id += 2;
  }
  co_return x;
}

// One stdin message and its echo on stdout (stream 5).
Task<bool> SpdyRoundTrip(SpdyExec& x, const std::string& message) {
  if (!co_await x.conn->Data(3, message)) co_return false;
  size_t got = 0;
  while (got < message.size()) {
    auto f = co_await x.conn->Next();
    if (!f) co_return false;
    if (f->type == http::spdy::FrameType::kData && f->stream_id == 5) got += f->data.size();
  }
  co_return true;
}

// An open WebSocket v5 `cat` session through Capstan's translator.
struct WsExec {
  std::unique_ptr<http::ByteStream> io;
  ws::Decoder decoder{/*expect_masked=*/false};
  std::vector<ws::Message> messages;
};

Task<std::optional<WsExec>> OpenWsExec(const Endpoint& e) {
  WsExec x;
  http::Headers h = ws::ClientHandshakeHeaders("dGhlIHNhbXBsZSBub25jZQ==", {"v5.channel.k8s.io"});
  x.io = co_await Dial(e, e.exec_path, std::move(h));
  if (!x.io) co_return std::nullopt;
  co_return x;
}

Task<bool> WsRoundTrip(WsExec& x, const std::string& message) {
  if (!co_await x.io->Write(ws::EncodeFrame(ws::Opcode::kBinary, std::string(1, '\0') + message, true, 0x1234567u))) {
    co_return false;
  }
  size_t got = 0;
  while (got < message.size()) {
    while (x.messages.empty()) {
      std::string bytes = co_await x.io->Read();
      if (bytes.empty() || !x.decoder.Feed(bytes, &x.messages).ok()) co_return false;
    }
    ws::Message m = std::move(x.messages.front());
    x.messages.erase(x.messages.begin());
    if (m.payload.size() > 1 && m.payload[0] == 1) got += m.payload.size() - 1;
  }
  co_return true;
}

struct Latency {
  double mean_us = 0, p50_us = 0, p99_us = 0;
};

Latency Summarize(std::vector<double> us) {
  Latency l;
  if (us.empty()) return l;
  std::sort(us.begin(), us.end());
  for (double u : us) l.mean_us += u;
  l.mean_us /= static_cast<double>(us.size());
  l.p50_us = us[us.size() / 2];
  l.p99_us = us[std::min(us.size() - 1, us.size() * 99 / 100)];
  return l;
}

template <class Session, class Trip>
Task<Latency> RoundTrips(Session& x, int n, Trip trip) {
  std::vector<double> us;
  const std::string message = "ping\n";
  for (int i = 0; i < n + 50; ++i) {
    auto start = Clock::now();
    if (!co_await trip(x, message)) break;
    if (i >= 50) us.push_back(Seconds(Clock::now() - start) * 1e6);  // the first 50 warm up
  }
  co_return Summarize(std::move(us));
}

// n sessions, each open once its first echo came back (fewer when one fails).
template <class Session, class Open, class Trip>
Task<std::vector<Session>> OpenSessions(int n, Open open, Trip trip) {
  std::vector<Session> out;
  for (int i = 0; i < n; ++i) {
    auto x = co_await open();
    if (!x || !co_await trip(*x, "hi\n")) break;
    out.push_back(std::move(*x));
  }
  co_return out;
}

// kubectl port-forward on a free local port; the echo of `bytes` through a local TCP connection.
double KubectlPortForward(const e2e::ServerProcess& capstan, const std::string& minor, size_t bytes) {
  std::string cmd = e2e::KubectlPath(minor) + " --kubeconfig " + capstan.kubeconfig() + " port-forward pod/web :8080 2>&1";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return 0;
  char line[4096];
  std::string first = fgets(line, sizeof line, f) ? line : "";
  size_t colon = first.find("127.0.0.1:");
  double mbps = 0;
  if (colon != std::string::npos) {
    int port = std::stoi(first.substr(colon + 10));
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
      auto start = Clock::now();
      std::thread writer([fd, bytes] {
        const std::string chunk(64 * 1024, 'x');
        for (size_t sent = 0; sent < bytes; sent += chunk.size()) {
          if (write(fd, chunk.data(), chunk.size()) != static_cast<ssize_t>(chunk.size())) break;
        }
      });
      size_t received = 0;
      char buf[65536];
      for (ssize_t n; received < bytes && (n = read(fd, buf, sizeof buf)) > 0;) received += static_cast<size_t>(n);
      writer.join();
      mbps = static_cast<double>(received) / (1024.0 * 1024.0) / Seconds(Clock::now() - start);
    }
    close(fd);
  } else {
    std::fprintf(stderr, "kubectl 1.%s port-forward: %s\n", minor.c_str(), first.c_str());
  }
  e2e::RunCommand({"pkill", "-f", "port-forward pod/web :8080"});
  pclose(f);
  return mbps;
}

int Main(int argc, char** argv) {
  const size_t mib = argc > 1 ? std::stoul(argv[1]) : 256;
  const int sessions = argc > 2 ? std::stoi(argv[2]) : 200;
  const int trips = argc > 3 ? std::stoi(argv[3]) : 2000;
  const std::string ip = e2e::LocalAddress();
  if (ip.empty()) {
    std::fprintf(stderr, "no non-loopback IPv4 address for the node\n");
    return 1;
  }
  const std::string dir = e2e::MakeTempDir("capstan-kubelet-bench");
  const std::string kubelet_ca = e2e::WriteServingCertificate(dir, "bench-kubelet", ip);
  const std::string client_cert = e2e::WriteClientCertificate(dir, "kube-apiserver-kubelet-client", {"kubeadm:cluster-admins"});
  e2e::StreamsSeen seen;
  server::HttpServerOptions o = e2e::TestServerOptions(dir);
  o.client_ca_files = {dir + "/client-ca.crt"};
  server::HttpServer kubelet(o, [&seen](http::RequestContext& ctx) -> Task<void> { co_await e2e::ServeStreaming(ctx, seen); });
  if (!kubelet.Start().ok()) return 1;

  e2e::ServerProcess capstan({"--kubelet-client-certificate=" + dir + "/client.crt", "--kubelet-client-key=" + dir + "/client.key",
                              "--kubelet-certificate-authority=" + dir + "/ca.crt",
                              "--kubelet-preferred-address-types=InternalIP"});
  if (!capstan.ok()) {
    std::fprintf(stderr, "capstan: %s\n", capstan.error().c_str());
    return 1;
  }
  capstan.Kubectl({"apply", "-f", "-"}, "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n");
  capstan.Kubectl({"patch", "node", "n1", "--subresource=status", "--type=merge", "-p",
                   R"({"status":{"addresses":[{"type":"InternalIP","address":")" + ip +
                       R"("}],"daemonEndpoints":{"kubeletEndpoint":{"Port":)" + std::to_string(kubelet.port()) + "}}}}"});
  capstan.WaitForDefaultServiceAccount();
  auto pod = capstan.Kubectl({"apply", "-f", "-"},
                             "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  nodeName: n1\n"
                             "  containers:\n  - name: app\n    image: nginx\n");
  capstan.Kubectl({"patch", "pod", "web", "--subresource=status", "--type=merge", "-p", R"({"status":{"phase":"Running"}})"});
  if (pod.exit_code != 0) {
    std::fprintf(stderr, "pod: %s\n", pod.err.c_str());
    return 1;
  }

  auto admin = cmd::LoadKubeconfigFile(capstan.kubeconfig());
  auto target = admin.ok() ? cmd::ResolveCurrentContext(*admin) : StatusOr<cmd::KubeconfigTarget>(admin.status());
  if (!target.ok()) return 1;
  server::HttpClientEngine engine;
  http::ClientTlsConfig to_capstan{target->cluster.certificate_authority_data, target->user.client_certificate_data,
                                   target->user.client_key_data, "", false};
  http::ClientTlsConfig to_kubelet{kubelet_ca, client_cert, ReadFile(dir + "/client.key"), "", false};
  auto capstan_client = engine.NewClient(to_capstan);
  auto kubelet_client = engine.NewClient(to_kubelet);
  if (!capstan_client.ok() || !kubelet_client.ok()) return 1;
  Endpoint direct{"https://" + ip + ":" + std::to_string(kubelet.port()),
                  dynamic_cast<http::UpgradingHttpClient*>(kubelet_client->get()), "/portForward/default/web",
                  "/exec/default/web/app?command=cat&error=1&input=1&output=1"};
  Endpoint through{target->cluster.server, dynamic_cast<http::UpgradingHttpClient*>(capstan_client->get()),
                   "/api/v1/namespaces/default/pods/web/portforward?ports=8080",
                   "/api/v1/namespaces/default/pods/web/exec?container=app&command=cat&stdin=true&stdout=true&stderr=true"};

  const size_t bytes = mib * 1024 * 1024;
  std::printf("port-forward, %zu MiB echoed through one connection (MB/s = MiB/s of echo received)\n", mib);
  double d = SyncWait(PortForwardThroughput(direct, bytes));
  double t = SyncWait(PortForwardThroughput(through, bytes));
  std::printf("  SPDY client straight to the kubelet:       %8.1f MB/s\n", d);
  std::printf("  SPDY client through Capstan:               %8.1f MB/s  (%.2f of straight)\n", t, d > 0 ? t / d : 0);
  for (const std::string minor : {"27", "32"}) {
    double k = KubectlPortForward(capstan, minor, bytes);
    std::printf("  kubectl 1.%s port-forward through Capstan: %8.1f MB/s  (%s)\n", minor.c_str(), k,
                minor == "27" ? "SPDY" : "WebSocket tunnel");
  }

  std::printf("exec round trip, one 5-byte stdin message to cat and back, %d trips\n", trips);
  auto report = [](const char* what, const Latency& l) {
    std::printf("  %-42s mean %7.1f us  p50 %7.1f us  p99 %7.1f us\n", what, l.mean_us, l.p50_us, l.p99_us);
  };
  SyncWait([&]() -> Task<void> {
    for (auto [what, e] : {std::pair<const char*, const Endpoint*>{"SPDY straight to the kubelet:", &direct},
                           {"SPDY through Capstan:", &through}}) {
      auto x = co_await OpenSpdyExec(*e);
      if (!x) continue;
      report(what, co_await RoundTrips(*x, trips, SpdyRoundTrip));
      x->conn->Close();
    }
    auto w = co_await OpenWsExec(through);
    if (w) {
      report("WebSocket v5 through Capstan (to SPDY v4):", co_await RoundTrips(*w, trips, WsRoundTrip));
      w->io->Close();
    }
  }());

  std::printf("memory per open exec session, %d sessions of cat, Capstan's RSS\n", sessions);
  SyncWait([&]() -> Task<void> {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const long before = RssKib(capstan.pid());
    const size_t fds_before = OpenFds(capstan.pid());
    std::vector<SpdyExec> spdy = co_await OpenSessions<SpdyExec>(sessions, [&] { return OpenSpdyExec(through); }, SpdyRoundTrip);
    const long with_spdy = RssKib(capstan.pid());
    for (auto& x : spdy) x.conn->Close();
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    const long between = RssKib(capstan.pid());
    const size_t fds_between = OpenFds(capstan.pid());
    std::vector<WsExec> wss = co_await OpenSessions<WsExec>(sessions, [&] { return OpenWsExec(through); }, WsRoundTrip);
    const long with_ws = RssKib(capstan.pid());
    for (auto& x : wss) x.io->Close();
    std::printf("  RSS before: %ld KiB (%zu open descriptors)\n", before, fds_before);
    std::printf("  %zu SPDY sessions open: %ld KiB, %.1f KiB per session\n", spdy.size(), with_spdy,
                spdy.empty() ? 0.0 : static_cast<double>(with_spdy - before) / static_cast<double>(spdy.size()));
    std::printf("  RSS once they closed: %ld KiB (%zu open descriptors)\n", between, fds_between);
    std::printf("  %zu WebSocket sessions open: %ld KiB, %.1f KiB per session over that\n", wss.size(), with_ws,
                wss.empty() ? 0.0 : static_cast<double>(with_ws - between) / static_cast<double>(wss.size()));
  }());
  kubelet.Shutdown(std::chrono::milliseconds(2000));
  return 0;
}

}  // namespace
}  // namespace capstan::bench

int main(int argc, char** argv) { return capstan::bench::Main(argc, argv); }
