// End-to-end --encryption-provider-config-automatic-reload on a real etcd (raw values read back with
// etcdctl): a key rotated by editing the file while the server runs takes effect for new writes
// without a restart, reads keep working for every key still listed, an invalid file keeps the
// configuration in effect (counted in kube's reload metric, /healthz stays green as in kube), and a
// value whose key was dropped fails closed (500 for that object).
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

constexpr char kKey1[] = "MTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTE=";  // 32 x '1'
constexpr char kKey2[] = "MjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjI=";  // 32 x '2'

std::string Config(const std::vector<std::string>& keys) {
  std::string out = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
                    "- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n";
  for (const auto& k : keys) out += "      - name: " + k + "\n        secret: " + (k == "key1" ? kKey1 : kKey2) + "\n";
  return out + "  - identity: {}\n";
}

class EncryptionReloadE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("capstan-reload-e2e");
    EtcdClusterOptions eo;
    eo.dir = dir_ + "/etcd";
    std::string err;
    etcd_ = EtcdCluster::Start(eo, &err);
    ASSERT_TRUE(etcd_) << err;
  }
  void TearDown() override {
    server_.reset();
    etcd_.reset();
    std::filesystem::remove_all(dir_);
  }
  std::string Raw(const std::string& key) {
    bool ok = true;
    std::string out = etcd_->Etcdctl({"get", key, "--print-value-only"}, &ok);
    EXPECT_TRUE(ok);
    return out;
  }
  std::string Get(const std::string& path) { return etcd_e2e::Raw(server_->port(), server_->data_dir(), "GET", path); }
  // automatic_reloads_total{status=...}: 0 until the first one.
  double Reloads(const std::string& status) {
    std::string body = BodyOf(Get("/metrics"));
    return MetricSample(body, "apiserver_encryption_config_controller_automatic_reloads_total",
                        {"status=\"" + status + "\""})
        .value_or(0);
  }
  // Waits (at most 60 s) until the metric reaches `n`.
  void WaitReloads(const std::string& status, double n) {
    for (int i = 0; i < 600 && Reloads(status) < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_GE(Reloads(status), n) << status;
  }
  void CreateSecret(const std::string& name, const std::string& value) {
    auto r = server_->Kubectl({"create", "secret", "generic", name, "--from-literal=v=" + value});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::string SecretValue(const std::string& name) {
    auto r = server_->Kubectl({"get", "secret", name, "-o", "jsonpath={.data.v}"});
    return r.exit_code == 0 ? r.out : "error: " + r.err;
  }

  std::string dir_;
  std::unique_ptr<EtcdCluster> etcd_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(EncryptionReloadE2E, RotatingAKeyByEditingTheFileWhileTheServerRuns) {
  std::string config = dir_ + "/encryption.yaml";
  WriteFile(config, Config({"key1"}));
  std::filesystem::create_directories(dir_ + "/capstan");
  server_ = std::make_unique<ServerProcess>(
      std::vector<std::string>{"--etcd-servers", etcd_->Endpoints(), "--encryption-provider-config", config,
                               "--encryption-provider-config-automatic-reload"},
      dir_ + "/capstan");
  ASSERT_TRUE(server_->ok()) << server_->error() << server_->log();

  // kube's checks with reload: kms-providers in /healthz and /readyz (not /livez), and the hook.
  std::string healthz = BodyOf(Get("/healthz?verbose"));
  EXPECT_NE(healthz.find("[+]kms-providers ok"), std::string::npos) << healthz;
  EXPECT_NE(healthz.find("[+]poststarthook/start-encryption-provider-config-automatic-reload ok"), std::string::npos);
  EXPECT_NE(BodyOf(Get("/readyz?verbose")).find("[+]kms-providers ok"), std::string::npos);
  EXPECT_EQ(BodyOf(Get("/livez?verbose")).find("kms-providers"), std::string::npos);

  CreateSecret("old", "old-value");
  CreateSecret("kept", "kept-value");
  EXPECT_EQ(Raw("/registry/secrets/default/old").rfind("k8s:enc:aesgcm:v1:key1:", 0), 0u);

  // Step 1: the new key first, the old one still listed.
  WriteFile(config, Config({"key2", "key1"}));
  ASSERT_NO_FATAL_FAILURE(WaitReloads("success", 1));
  CreateSecret("new", "new-value");
  EXPECT_EQ(Raw("/registry/secrets/default/new").rfind("k8s:enc:aesgcm:v1:key2:", 0), 0u);
  EXPECT_EQ(SecretValue("old"), "b2xkLXZhbHVl");  // written with key1, still read

  // An invalid file changes nothing and is counted; the server stays healthy, as kube's.
  WriteFile(config, "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
                    "- resources: [secrets]\n  providers:\n  - aesgcm:\n      keys:\n      - name: short\n"
                    "        secret: c2hvcnQ=\n");
  ASSERT_NO_FATAL_FAILURE(WaitReloads("failure", 1));
  CreateSecret("during-invalid", "x");
  EXPECT_EQ(Raw("/registry/secrets/default/during-invalid").rfind("k8s:enc:aesgcm:v1:key2:", 0), 0u);
  EXPECT_EQ(HttpStatusOf(Get("/healthz")), 200);
  EXPECT_EQ(Reloads("success"), 1);

  // Step 2: rewrite what key1 holds (kube's storage migration: read and replace), then drop key1.
  auto obj = server_->Kubectl({"get", "secret", "kept", "-o", "json"});
  ASSERT_EQ(obj.exit_code, 0) << obj.err;
  auto replaced = server_->Kubectl({"replace", "-f", "-"}, obj.out);
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_EQ(Raw("/registry/secrets/default/kept").rfind("k8s:enc:aesgcm:v1:key2:", 0), 0u);
  WriteFile(config, Config({"key2"}));
  ASSERT_NO_FATAL_FAILURE(WaitReloads("success", 2));
  EXPECT_EQ(SecretValue("kept"), "a2VwdC12YWx1ZQ==");
  EXPECT_EQ(SecretValue("new"), "bmV3LXZhbHVl");
  // What was left under the dropped key fails closed, for that object only.
  std::string old = Get("/api/v1/namespaces/default/secrets/old");
  EXPECT_EQ(HttpStatusOf(old), 500) << old;
  EXPECT_EQ(Raw("/registry/secrets/default/old").find("old-value"), std::string::npos);
}

TEST(EncryptionReloadFlagsE2E, ReloadWithoutAConfigFileIsRefused) {
  ServerProcess server({"--encryption-provider-config-automatic-reload"});
  EXPECT_FALSE(server.ok());
  EXPECT_NE(server.log().find("--encryption-provider-config-automatic-reload must be set with "
                              "--encryption-provider-config"),
            std::string::npos)
      << server.log();
}

}  // namespace
}  // namespace capstan::e2e
