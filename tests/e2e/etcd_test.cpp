// End-to-end: Capstan on a real etcd (the machine's etcd-server, started on free loopback ports by
// tests/storage/etcd3/etcd_test_cluster.h), driven with kubectl and raw HTTPS:
//  - objects land under kube's keys in etcd, secrets encrypted at rest (read back with etcdctl:
//    k8s:enc:aescbc:v1:<key>: ciphertext for secrets, plain JSON for configmaps);
//  - etcd killed: /readyz turns red, reads and writes answer a 5xx Status promptly (never hang);
//    etcd back: readiness and requests recover, and a watch opened before the outage goes on.
#include <gtest/gtest.h>

#include <filesystem>
#include <thread>

#include "e2e_util.h"
#include "etcd_e2e_helpers.h"
#include "storage/etcd3/etcd_test_cluster.h"

namespace capstan::e2e {
namespace {

using namespace etcd_e2e;
using capstan::testing::EtcdCluster;
using capstan::testing::EtcdClusterOptions;
using Clock = std::chrono::steady_clock;

// A 32-byte AES key, base64 (any fixed value: the test only needs the prefix and a round trip).
constexpr char kAesKey[] = "c2VjcmV0IGlzIHNlY3VyZSwgb3IgaXMgaXQ/IDMyYnk=";

class EtcdE2E : public EtcdTest {
 protected:
  EtcdE2E() : EtcdTest("capstan-etcd-e2e") {}
  void StartServer(std::vector<std::string> extra = {}) {
    std::vector<std::string> flags = {"--etcd-servers", etcd_->Endpoints()};
    flags.insert(flags.end(), extra.begin(), extra.end());
    std::filesystem::create_directories(dir_ + "/capstan");
    server_ = std::make_unique<ServerProcess>(flags, dir_ + "/capstan");
    ASSERT_TRUE(server_->ok()) << server_->error() << "\n" << server_->log();
  }
  std::string Req(const std::string& method, const std::string& path, const std::string& body = "",
                  const std::string& type = "application/json") {
    return Raw(server_->port(), server_->data_dir(), method, path, body, type);
  }
  // The raw value etcd holds under `key`.
  std::string EtcdValue(const std::string& key) {
    bool ok = true;
    std::string out = etcd_->Etcdctl({"get", key, "--print-value-only"}, &ok);
    EXPECT_TRUE(ok) << "etcdctl get " << key;
    return out;
  }
  int ReadyzStatus() {
    auto r = RawHttps(server_->port(), {"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"}, "", "",
                      std::chrono::milliseconds(0), std::chrono::seconds(15));
    return HttpStatusOf(r.response);
  }

};

TEST_F(EtcdE2E, KubectlOnEtcdStoresKubeKeysAndEncryptsSecretsAtRest) {
  std::string config = dir_ + "/encryption.yaml";
  WriteFile(config, std::string(R"(apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources:
      - secrets
    providers:
      - aescbc:
          keys:
            - name: key1
              secret: )") + kAesKey + R"(
      - identity: {}
)");
  ASSERT_NO_FATAL_FAILURE(StartServer({"--encryption-provider-config", config}));

  ASSERT_EQ(server_->Kubectl({"create", "namespace", "enc"}).exit_code, 0);
  auto cm = server_->Kubectl({"create", "configmap", "plain", "-n", "enc", "--from-literal=colour=turquoise"});
  ASSERT_EQ(cm.exit_code, 0) << cm.err;
  auto sec = server_->Kubectl({"create", "secret", "generic", "hidden", "-n", "enc", "--from-literal=password=hunter2"});
  ASSERT_EQ(sec.exit_code, 0) << sec.err;

  // kube's keys under --etcd-prefix (default /registry).
  bool ok = true;
  std::string keys = etcd_->Etcdctl({"get", "/registry/", "--prefix", "--keys-only"}, &ok);
  ASSERT_TRUE(ok);
  EXPECT_NE(keys.find("/registry/namespaces/enc"), std::string::npos) << keys;
  EXPECT_NE(keys.find("/registry/configmaps/enc/plain"), std::string::npos) << keys;
  EXPECT_NE(keys.find("/registry/secrets/enc/hidden"), std::string::npos) << keys;

  // The secret is ciphertext in etcd with kube's prefix; neither its value nor its base64 shows.
  std::string raw_secret = EtcdValue("/registry/secrets/enc/hidden");
  EXPECT_EQ(raw_secret.rfind("k8s:enc:aescbc:v1:key1:", 0), 0u) << raw_secret.substr(0, 80);
  EXPECT_EQ(raw_secret.find("hunter2"), std::string::npos);
  EXPECT_EQ(raw_secret.find("aHVudGVyMg=="), std::string::npos);
  EXPECT_EQ(raw_secret.find("hidden"), std::string::npos);
  // What the config leaves alone is stored as it is.
  std::string raw_cm = EtcdValue("/registry/configmaps/enc/plain");
  EXPECT_EQ(raw_cm.rfind("k8s:enc:", 0), std::string::npos);
  EXPECT_NE(raw_cm.find("turquoise"), std::string::npos) << raw_cm;

  // Reads decrypt.
  auto got = server_->Kubectl({"get", "secret", "hidden", "-n", "enc", "-o", "jsonpath={.data.password}"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(got.out, "aHVudGVyMg==");
  // An update is encrypted again (a fresh IV: the stored bytes change, the prefix stays).
  auto patch = server_->Kubectl({"patch", "secret", "hidden", "-n", "enc", "-p", R"({"stringData":{"password":"hunter3"}})"});
  ASSERT_EQ(patch.exit_code, 0) << patch.err;
  std::string raw2 = EtcdValue("/registry/secrets/enc/hidden");
  EXPECT_EQ(raw2.rfind("k8s:enc:aescbc:v1:key1:", 0), 0u);
  EXPECT_NE(raw2, raw_secret);
  got = server_->Kubectl({"get", "secret", "hidden", "-n", "enc", "-o", "jsonpath={.data.password}"});
  EXPECT_EQ(got.out, "aHVudGVyMw==");

  // A value that does not decrypt (damaged ciphertext; a key the config does not hold) is a clear error
  // for that object only, not a crash.
  etcd_->Etcdctl({"put", "/registry/secrets/enc/hidden", "k8s:enc:aescbc:v1:key1:0123456789abcdef0123456789abcdef"}, &ok);
  ASSERT_TRUE(ok);
  auto bad = Req("GET", "/api/v1/namespaces/enc/secrets/hidden");
  EXPECT_EQ(HttpStatusOf(bad), 500) << bad;
  EXPECT_EQ(StringAt(JsonOf(bad), {"kind"}), "Status") << bad;
  etcd_->Etcdctl({"put", "/registry/secrets/enc/hidden", "k8s:enc:aescbc:v1:key9:0123456789abcdef0123456789abcdef"}, &ok);
  ASSERT_TRUE(ok);
  bad = Req("GET", "/api/v1/namespaces/enc/secrets/hidden");
  EXPECT_EQ(HttpStatusOf(bad), 500) << bad;
  std::printf("a secret stored under a key the config lacks: %s\n", StringAt(JsonOf(bad), {"message"}).c_str());
  EXPECT_EQ(HttpStatusOf(Req("GET", "/api/v1/namespaces/enc/configmaps/plain")), 200);
  EXPECT_EQ(ReadyzStatus(), 200);
}

TEST_F(EtcdE2E, EtcdDownTurnsReadyzRedAndRequestsIntoPrompt5xxThenRecovers) {
  ASSERT_NO_FATAL_FAILURE(StartServer({"--etcd-healthcheck-timeout", "2s", "--etcd-readycheck-timeout", "2s"}));
  ASSERT_EQ(server_->Kubectl({"create", "namespace", "down"}).exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "configmap", "before", "-n", "down"}).exit_code, 0);
  // A watch that must survive the outage.
  std::string watch_out = dir_ + "/watch.out";
  Background watch({KubectlPath(), "--kubeconfig", server_->kubeconfig(), "get", "configmaps", "-n", "down", "-w",
                    "--output-watch-events", "-o", "name"},
                   watch_out);
  for (int i = 0; i < 100 && ReadFile(watch_out).find("configmap/before") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_NE(ReadFile(watch_out).find("configmap/before"), std::string::npos);

  etcd_->Kill(0);
  // Readiness turns red within a few health-check timeouts.
  auto t0 = Clock::now();
  int ready = 200;
  while (Clock::now() - t0 < std::chrono::seconds(20) && (ready = ReadyzStatus()) == 200) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_NE(ready, 200);
  std::printf("readyz red %lld ms after etcd was killed\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count()));
  // Reads and writes answer a 5xx Status, well within the client's 20 s (no hang).
  for (auto [method, path, body] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"GET", "/api/v1/namespaces/down/configmaps/before", ""},
           {"GET", "/api/v1/namespaces/down/configmaps", ""},
           {"POST", "/api/v1/namespaces/down/configmaps", R"({"metadata":{"name":"during"}})"},
           {"DELETE", "/api/v1/namespaces/down/configmaps/before", ""}}) {
    auto t = Clock::now();
    std::string r = Req(method, path, body);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
    int code = HttpStatusOf(r);
    EXPECT_GE(code, 500) << method << " " << path << ": " << r;
    EXPECT_LT(code, 600) << method << " " << path << ": " << r;
    EXPECT_EQ(StringAt(JsonOf(r), {"kind"}), "Status") << r;
    EXPECT_LT(ms, 15000) << method << " " << path;
    std::printf("%s %s with etcd down: %d %s in %lld ms\n", method.c_str(), path.c_str(), code,
                StringAt(JsonOf(r), {"reason"}).c_str(), static_cast<long long>(ms));
  }

  std::string err;
  ASSERT_TRUE(etcd_->Restart(0, &err)) << err;
  t0 = Clock::now();
  while (Clock::now() - t0 < std::chrono::seconds(30) && (ready = ReadyzStatus()) != 200) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(ready, 200);
  std::printf("readyz green %lld ms after etcd was back\n",
              static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count()));
  std::string after;
  for (int i = 0; i < 50; ++i) {
    after = Req("POST", "/api/v1/namespaces/down/configmaps", R"({"metadata":{"name":"after"}})");
    if (HttpStatusOf(after) == 201) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(HttpStatusOf(after), 201) << after;
  EXPECT_EQ(HttpStatusOf(Req("GET", "/api/v1/namespaces/down/configmaps/before")), 200);
  // Nothing written during the outage exists; the watch resumed and saw the new object.
  EXPECT_EQ(HttpStatusOf(Req("GET", "/api/v1/namespaces/down/configmaps/during")), 404);
  for (int i = 0; i < 100 && ReadFile(watch_out).find("configmap/after") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // `-o name` prints names only; the watch went on (no relist: "before" is printed once).
  std::string seen = ReadFile(watch_out);
  EXPECT_NE(seen.find("configmap/after"), std::string::npos) << seen << ReadFile(watch_out + ".err");
  EXPECT_EQ(seen.find("configmap/before"), seen.rfind("configmap/before")) << seen;
  EXPECT_EQ(seen.find("configmap/during"), std::string::npos) << seen;
}

}  // namespace
}  // namespace capstan::e2e
