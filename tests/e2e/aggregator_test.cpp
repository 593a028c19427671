// End-to-end: an APIService backed by a service (the aggregation layer). The test runs its own HTTPS
// backend (certificate for metrics.default.svc from its own CA) serving metrics.example.com/v1beta1
// with one resource, widgets; a Service + Endpoints point at it and an APIService carries the CA.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "cmd/pki.h"
#include "e2e_util.h"
#include "test_servers.h"
#include "server/http_server.h"
#include "util/strings.h"

namespace capstan::e2e {
namespace {

constexpr const char* kResourceList =
    R"({"kind":"APIResourceList","apiVersion":"v1","groupVersion":"metrics.example.com/v1beta1","resources":[)"
    R"({"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["get","list"]}]})";
constexpr const char* kWidgets =
    R"({"kind":"WidgetList","apiVersion":"metrics.example.com/v1beta1","metadata":{},"items":[)"
    R"({"kind":"Widget","apiVersion":"metrics.example.com/v1beta1","metadata":{"name":"w1","namespace":"default"}}]})";

constexpr const char* kEvent1 =
    R"({"type":"ADDED","object":{"kind":"Widget","apiVersion":"metrics.example.com/v1beta1","metadata":{"name":"w1"}}})";
constexpr const char* kEvent2 =
    R"({"type":"ADDED","object":{"kind":"Widget","apiVersion":"metrics.example.com/v1beta1","metadata":{"name":"w2"}}})";

struct Seen {
  std::mutex mu;
  std::string user;
  std::vector<std::string> groups;
  bool authorization = false;
  bool client_cert = false;
  std::string client_cert_der;
  std::string forwarded_for;
  int widget_requests = 0;
  // The watch: the test sets first_event_seen once the first event came through Capstan; the backend
  // writes the second event only then (or after 10 s), and records which.
  std::shared_ptr<std::atomic<bool>> first_event_seen = std::make_shared<std::atomic<bool>>(false);
  std::atomic<bool> second_sent_after_first{false};
};

class Backend {
 public:
  explicit Backend(const std::string& ip) {
    dir_ = MakeTempDir("capstan-agg-backend");
    ca_pem_ = WriteServingCertificate(dir_, "metrics.default.svc", ip);
    // Every address: the Endpoints address, and 127.0.0.1 for the direct timing.
    server::HttpServerOptions o = TestServerOptions(dir_);
    Seen* seen = &seen_;
    server_ = std::make_unique<server::HttpServer>(o, [seen](http::RequestContext& ctx) -> Task<void> {
      http::HttpResponse r;
      r.headers.Set("Content-Type", "application/json");
      const std::string& p = ctx.request.path;
      if (p == "/apis/metrics.example.com/v1beta1") {
        r.body = kResourceList;
      } else if (p == "/apis/metrics.example.com/v1beta1/namespaces/default/widgets" &&
                 ctx.request.raw_query.find("watch=") != std::string::npos) {
        http::Headers h;
        h.Set("Content-Type", "application/json");
        co_await ctx.writer->StartStream(200, std::move(h));
        co_await ctx.writer->WriteChunk(std::string(kEvent1) + "\n");
        auto flag = seen->first_event_seen;
        co_await Await<int>([flag](std::function<void(int)> cb) {
          std::thread([flag, cb] {
            for (int i = 0; i < 100 && !flag->load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
            cb(0);
          }).detach();
        });
        seen->second_sent_after_first = flag->load();
        co_await ctx.writer->WriteChunk(std::string(kEvent2) + "\n");
        co_await ctx.writer->EndStream();
        co_return;
      } else if (p == "/apis/metrics.example.com/v1beta1/namespaces/default/widgets") {
        std::lock_guard lock(seen->mu);
        seen->user = std::string(ctx.request.headers.Get("X-Remote-User"));
        seen->groups.clear();
        for (auto g : ctx.request.headers.GetAll("X-Remote-Group")) seen->groups.emplace_back(g);
        seen->authorization = ctx.request.headers.Has("Authorization");
        seen->forwarded_for = std::string(ctx.request.headers.Get("X-Forwarded-For"));
        seen->client_cert = !ctx.request.peer_certs_der.empty();
        seen->client_cert_der = seen->client_cert ? ctx.request.peer_certs_der.front() : "";
        ++seen->widget_requests;
        r.body = kWidgets;
      } else {
        r.status = 404;
        r.body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404})";
      }
      co_await ctx.writer->Respond(std::move(r));
    });
    ok_ = server_->Start().ok();
  }
  ~Backend() { server_->Shutdown(std::chrono::milliseconds(2000)); }
  bool ok() const { return ok_; }
  int port() const { return server_->port(); }
  const std::string& ca_pem() const { return ca_pem_; }
  Seen& seen() { return seen_; }

 private:
  std::string dir_, ca_pem_;
  std::unique_ptr<server::HttpServer> server_;
  Seen seen_;
  bool ok_ = false;
};

std::string Manifest(const std::string& ip, int port, const std::string& ca_pem) {
  std::string p = std::to_string(port);
  return "apiVersion: v1\nkind: Service\nmetadata:\n  name: metrics\n  namespace: default\nspec:\n  ports:\n"
         "  - name: https\n    port: 443\n    targetPort: " + p + "\n---\n"
         "apiVersion: v1\nkind: Endpoints\nmetadata:\n  name: metrics\n  namespace: default\nsubsets:\n"
         "- addresses:\n  - ip: " + ip + "\n  ports:\n  - name: https\n    port: " + p + "\n---\n"
         "apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: v1beta1.metrics.example.com\n"
         "spec:\n  group: metrics.example.com\n  version: v1beta1\n  groupPriorityMinimum: 100\n"
         "  versionPriority: 100\n  service:\n    namespace: default\n    name: metrics\n    port: 443\n"
         "  caBundle: " + Base64Encode(ca_pem) + "\n";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

std::string RawGet(const std::string& path) {
  return "GET " + path + " HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\nConnection: close\r\n\r\n";
}

TEST(AggregatorE2E, ProxiesDiscoversAndTracksAvailability) {
  const std::string ip = LocalAddress();
  if (ip.empty()) GTEST_SKIP() << "no non-loopback IPv4 address for the backend's Endpoints";
  Backend backend(ip);
  ASSERT_TRUE(backend.ok());
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string k = "31";
  // What aggregated servers read to trust Capstan's clients (kube-apiserver publishes it at start).
  CommandResult auth_cm;
  ASSERT_TRUE(PollFor([&] {
    auth_cm = server.Kubectl({"get", "configmap", "-n", "kube-system", "extension-apiserver-authentication", "-o",
                              "jsonpath={.data.client-ca-file}"}, "", k);
    return auth_cm.out.find("-----BEGIN CERTIFICATE-----") == 0;
  })) << auth_cm.out << auth_cm.err;
  auto applied = server.Kubectl({"apply", "-f", "-"}, Manifest(ip, backend.port(), backend.ca_pem()), k);
  ASSERT_EQ(applied.exit_code, 0) << applied.err;

  CommandResult got;
  ASSERT_TRUE(PollFor([&] {
    got = server.Kubectl({"get", "apiservice", "v1beta1.metrics.example.com"}, "", k);
    return got.out.find("default/metrics   True") != std::string::npos;
  })) << got.out << got.err << server.log();

  auto resources = server.Kubectl({"api-resources"}, "", k);
  EXPECT_EQ(resources.exit_code, 0) << resources.err;
  EXPECT_NE(resources.out.find("widgets"), std::string::npos) << resources.out;
  EXPECT_NE(resources.out.find("metrics.example.com/v1beta1"), std::string::npos) << resources.out;

  auto groups = server.Kubectl({"get", "--raw", "/apis"}, "", k);
  // kube's order: the aggregator's own group first, then by groupPriorityMinimum (apps 17800, ...,
  // this APIService's 100 last).
  size_t own = groups.out.find(R"("name":"apiregistration.k8s.io")");
  size_t apps = groups.out.find(R"("name":"apps")");
  size_t remote = groups.out.find(R"("name":"metrics.example.com")");
  ASSERT_NE(remote, std::string::npos) << groups.out;
  EXPECT_LT(own, apps) << groups.out;
  EXPECT_LT(apps, remote) << groups.out;
  EXPECT_NE(groups.out.find(R"({"groupVersion":"metrics.example.com/v1beta1","version":"v1beta1"})"), std::string::npos)
      << groups.out;
  auto group = server.Kubectl({"get", "--raw", "/apis/metrics.example.com"}, "", k);
  EXPECT_NE(group.out.find(R"("preferredVersion":{"groupVersion":"metrics.example.com/v1beta1")"), std::string::npos)
      << group.out;

  auto widgets = server.Kubectl({"get", "--raw", "/apis/metrics.example.com/v1beta1/namespaces/default/widgets"}, "", k);
  EXPECT_EQ(widgets.exit_code, 0) << widgets.err;
  EXPECT_EQ(widgets.out, kWidgets);
  {
    std::lock_guard lock(backend.seen().mu);
    EXPECT_EQ(backend.seen().user, "kubernetes-admin");
    EXPECT_NE(std::find(backend.seen().groups.begin(), backend.seen().groups.end(), "system:masters"),
              backend.seen().groups.end());
    EXPECT_FALSE(backend.seen().authorization);
    EXPECT_EQ(backend.seen().forwarded_for, "127.0.0.1");  // kubectl's address as Capstan saw it
    EXPECT_TRUE(backend.seen().client_cert);
    // The generated front-proxy client certificate.
    EXPECT_EQ(backend.seen().client_cert_der, CertDerOf(ReadAll(server.data_dir() + "/pki/front-proxy-client.crt")));
  }

  // A watch comes through event by event: the backend sends the second event only after the test has
  // read the first one through Capstan.
  {
    std::string cmd = "/usr/lib/google-cloud-sdk/bin/kubectl.1.31 --kubeconfig " + server.kubeconfig() +
                      " get --raw '/apis/metrics.example.com/v1beta1/namespaces/default/widgets?watch=true'";
    FILE* f = popen(cmd.c_str(), "r");
    ASSERT_NE(f, nullptr);
    char line[4096];
    std::string first = fgets(line, sizeof line, f) ? line : "";
    backend.seen().first_event_seen->store(true);
    std::string rest;
    while (fgets(line, sizeof line, f)) rest += line;
    int rc = pclose(f);
    EXPECT_EQ(rc, 0);
    EXPECT_EQ(first, std::string(kEvent1) + "\n");
    EXPECT_EQ(rest, std::string(kEvent2) + "\n");
    EXPECT_TRUE(backend.seen().second_sent_after_first.load()) << "the first event did not arrive before the second was sent";
  }

  // Proxy overhead, one run: the same GET through Capstan and straight to the backend.
  const std::string pki = server.data_dir() + "/pki/";
  const std::string path = "/apis/metrics.example.com/v1beta1/namespaces/default/widgets";
  const int n = 50;
  auto time_it = [&](int port, bool admin) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) {
      auto r = admin ? RawHttps(port, {RawGet(path)}, pki + "admin.crt", pki + "admin.key") : RawHttps(port, {RawGet(path)});
      EXPECT_EQ(HttpStatusOf(r.response), 200);
    }
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / n;
  };
  double via = time_it(server.port(), true);
  double direct = time_it(backend.port(), false);
  std::printf("aggregator proxy GET widgets: %.2f ms via Capstan, %.2f ms direct (mean of %d, new TLS connection each)\n",
              via, direct, n);

  // Without endpoints: Available=False and requests get 503.
  auto deleted = server.Kubectl({"delete", "endpoints", "metrics"}, "", k);
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  ASSERT_TRUE(PollFor([&] {
    got = server.Kubectl({"get", "apiservice", "v1beta1.metrics.example.com"}, "", k);
    return got.out.find("default/metrics   False (EndpointsNotFound)") != std::string::npos;
  })) << got.out << got.err;
  auto yaml = server.Kubectl({"get", "apiservice", "v1beta1.metrics.example.com", "-o", "yaml"}, "", k);
  EXPECT_NE(yaml.out.find("cannot find endpoints for service/metrics in \"default\""), std::string::npos) << yaml.out;
  auto raw = RawHttps(server.port(), {RawGet(path)}, pki + "admin.crt", pki + "admin.key");
  EXPECT_EQ(HttpStatusOf(raw.response), 503) << raw.response;
  EXPECT_NE(raw.response.find("service unavailable"), std::string::npos) << raw.response;
  auto failed = server.Kubectl({"get", "--raw", path}, "", k);
  EXPECT_NE(failed.exit_code, 0);
  EXPECT_NE(failed.err.find("ServiceUnavailable"), std::string::npos) << failed.err;

  // Endpoints back: Available again. A caBundle that does not sign the backend's certificate fails the
  // discovery check; insecureSkipTLSVerify passes it.
  std::string manifest = Manifest(ip, backend.port(), backend.ca_pem());
  ASSERT_EQ(server.Kubectl({"apply", "-f", "-"}, manifest, k).exit_code, 0);
  ASSERT_TRUE(PollFor([&] {
    got = server.Kubectl({"get", "apiservice", "v1beta1.metrics.example.com"}, "", k);
    return got.out.find("default/metrics   True") != std::string::npos;
  })) << got.out << got.err;
  auto other_ca = cmd::CreateSelfSignedCa("some-other-ca", std::chrono::system_clock::now());
  std::string wrong = Base64Encode(cmd::CertificateToPem(*other_ca->cert));
  auto patched = server.Kubectl({"patch", "apiservice", "v1beta1.metrics.example.com", "--type=merge", "-p",
                                 R"({"spec":{"caBundle":")" + wrong + R"("}})"}, "", k);
  ASSERT_EQ(patched.exit_code, 0) << patched.err;
  ASSERT_TRUE(PollFor([&] {
    got = server.Kubectl({"get", "apiservice", "v1beta1.metrics.example.com"}, "", k);
    return got.out.find("default/metrics   False (FailedDiscoveryCheck)") != std::string::npos;
  })) << got.out << got.err;
  yaml = server.Kubectl({"get", "apiservice", "v1beta1.metrics.example.com", "-o", "yaml"}, "", k);
  EXPECT_NE(yaml.out.find("failing or missing response from https://" + ip + ":" + std::to_string(backend.port()) +
                          "/apis/metrics.example.com/v1beta1"),
            std::string::npos)
      << yaml.out;
  patched = server.Kubectl({"patch", "apiservice", "v1beta1.metrics.example.com", "--type=merge", "-p",
                            R"({"spec":{"caBundle":null,"insecureSkipTLSVerify":true}})"}, "", k);
  ASSERT_EQ(patched.exit_code, 0) << patched.err;
  ASSERT_TRUE(PollFor([&] {
    got = server.Kubectl({"get", "apiservice", "v1beta1.metrics.example.com"}, "", k);
    return got.out.find("default/metrics   True") != std::string::npos;
  })) << got.out << got.err;
  auto list = server.Kubectl({"get", "widgets"}, "", k);
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("w1"), std::string::npos) << list.out;
  auto rl = server.Kubectl({"get", "--raw", "/apis/metrics.example.com/v1beta1"}, "", k);
  EXPECT_EQ(rl.out, kResourceList);

  // Without the Service: ServiceNotFound.
  ASSERT_EQ(server.Kubectl({"delete", "service", "metrics"}, "", k).exit_code, 0);
  ASSERT_TRUE(PollFor([&] {
    got = server.Kubectl({"get", "apiservice", "v1beta1.metrics.example.com"}, "", k);
    return got.out.find("default/metrics   False (ServiceNotFound)") != std::string::npos;
  })) << got.out << got.err;
  yaml = server.Kubectl({"get", "apiservice", "v1beta1.metrics.example.com", "-o", "yaml"}, "", k);
  EXPECT_NE(yaml.out.find("service/metrics in \"default\" is not present"), std::string::npos) << yaml.out;
  auto metrics = server.Kubectl({"get", "--raw", "/metrics"}, "", k);
  EXPECT_NE(metrics.out.find(R"(aggregator_unavailable_apiservice{name="v1beta1.metrics.example.com"} 1)"),
            std::string::npos);
  EXPECT_NE(metrics.out.find(R"(aggregator_unavailable_apiservice_total{name="v1beta1.metrics.example.com",reason="EndpointsNotFound"} 1)"),
            std::string::npos);
  EXPECT_EQ(server.Stop(), 0) << server.log();
}

}  // namespace
}  // namespace capstan::e2e

namespace capstan::e2e {
namespace {

// --proxy-client-cert-file/--proxy-client-key-file replace the generated front-proxy client.
TEST(AggregatorE2E, PresentsTheConfiguredProxyClientCertificate) {
  const std::string ip = LocalAddress();
  if (ip.empty()) GTEST_SKIP() << "no non-loopback IPv4 address for the backend's Endpoints";
  Backend backend(ip);
  ASSERT_TRUE(backend.ok());
  std::string dir = MakeTempDir("capstan-agg-proxy-cert");
  std::string cert_pem = WriteClientCertificate(dir, "my-proxy-client", {});
  ServerProcess server({"--proxy-client-cert-file=" + dir + "/client.crt", "--proxy-client-key-file=" + dir + "/client.key"});
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string k = "31";
  ASSERT_EQ(server.Kubectl({"apply", "-f", "-"}, Manifest(ip, backend.port(), backend.ca_pem()), k).exit_code, 0);
  CommandResult got;
  ASSERT_TRUE(PollFor([&] {
    got = server.Kubectl({"get", "--raw", "/apis/metrics.example.com/v1beta1/namespaces/default/widgets"}, "", k);
    return got.exit_code == 0;
  })) << got.out << got.err;
  std::lock_guard lock(backend.seen().mu);
  EXPECT_EQ(backend.seen().client_cert_der, CertDerOf(cert_pem));
  EXPECT_EQ(server.log().find("proxy-client-cert-file"), std::string::npos) << "logged as ignored";
}

}  // namespace
}  // namespace capstan::e2e
