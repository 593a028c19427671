// End-to-end KMS v2 encryption at rest on a real etcd with the test KMS plugin (a C++ gRPC server on
// a unix socket, tests/storage/transformers/kms/test_kms_plugin.cpp): secrets are stored as kube
// stores them ("k8s:enc:kms:v2:<name>:" and the EncryptedObject, no plaintext in etcd), kms-providers
// is in /healthz; a key ID rotated in the plugin reaches new writes; with the plugin down a restarted
// server (no watch cache) cannot read a secret whose DEK source it has not cached (500 for that object, kms-providers
// failing) and recovers when the plugin is back.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
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

class KmsE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("capstan-kms-e2e");
    EtcdClusterOptions eo;
    eo.dir = dir_ + "/etcd";
    std::string err;
    etcd_ = EtcdCluster::Start(eo, &err);
    ASSERT_TRUE(etcd_) << err;
    WriteFile(dir_ + "/key-id", "key-1\n");
    WriteFile(dir_ + "/encryption.yaml",
              "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
              "- resources: [secrets]\n  providers:\n  - kms:\n      apiVersion: v2\n      name: testkms\n"
              "      endpoint: unix://" + dir_ + "/kms.sock\n      timeout: 2s\n  - identity: {}\n");
  }
  void TearDown() override {
    server_.reset();
    StopPlugin();
    etcd_.reset();
    std::filesystem::remove_all(dir_);
  }
  // `delay_ms`: how long each of the plugin's calls takes.
  void StartPlugin(int delay_ms = 0) {
    std::string sock = dir_ + "/kms.sock", keys = dir_ + "/key-id", delay = std::to_string(delay_ms);
    plugin_ = fork();
    if (plugin_ == 0) {
      execl(TEST_KMS_PLUGIN, TEST_KMS_PLUGIN, sock.c_str(), keys.c_str(), "--delay-ms", delay.c_str(), nullptr);
      _exit(127);
    }
    for (int i = 0; i < 500 && !std::filesystem::exists(sock); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  void StopPlugin() {
    if (plugin_ <= 0) return;
    kill(plugin_, SIGKILL);
    waitpid(plugin_, nullptr, 0);
    plugin_ = -1;
    std::filesystem::remove(dir_ + "/kms.sock");
  }
  void StartServer(std::vector<std::string> extra = {}) {
    std::filesystem::create_directories(dir_ + "/capstan");
    std::vector<std::string> flags{"--etcd-servers", etcd_->Endpoints(), "--encryption-provider-config",
                                   dir_ + "/encryption.yaml"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    server_ = std::make_unique<ServerProcess>(flags, dir_ + "/capstan");
  }
  std::string Raw(const std::string& key) {
    bool ok = true;
    return etcd_->Etcdctl({"get", key, "--print-value-only"}, &ok);
  }
  std::string Get(const std::string& path) { return etcd_e2e::Raw(server_->port(), server_->data_dir(), "GET", path); }
  // Retries while the plugin's channel reconnects.
  std::string GetUntil(const std::string& path, int code, int attempts = 100) {
    std::string r = Get(path);
    for (int i = 0; i < attempts && HttpStatusOf(r) != code; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      r = Get(path);
    }
    return r;
  }

  std::string dir_;
  std::unique_ptr<EtcdCluster> etcd_;
  std::unique_ptr<ServerProcess> server_;
  pid_t plugin_ = -1;
};

TEST_F(KmsE2E, SecretsAreEnvelopeEncryptedAndReadsFailClosedWithoutThePlugin) {
  StartPlugin();
  StartServer();
  ASSERT_TRUE(server_->ok()) << server_->error() << server_->log();
  auto created = server_->Kubectl({"create", "secret", "generic", "hidden", "--from-literal=password=hunter2"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::string raw = Raw("/registry/secrets/default/hidden");
  EXPECT_EQ(raw.rfind("k8s:enc:kms:v2:testkms:", 0), 0u) << raw.substr(0, 40);
  EXPECT_NE(raw.find("key-1"), std::string::npos);  // the EncryptedObject's keyID
  EXPECT_EQ(raw.find("hunter2"), std::string::npos);
  EXPECT_EQ(raw.find("aHVudGVyMg=="), std::string::npos);
  EXPECT_EQ(raw.find("hidden"), std::string::npos);
  auto got = server_->Kubectl({"get", "secret", "hidden", "-o", "jsonpath={.data.password}"});
  EXPECT_EQ(got.out, "aHVudGVyMg==") << got.err;
  std::string healthz = BodyOf(Get("/healthz?verbose"));
  EXPECT_NE(healthz.find("[+]kms-providers ok"), std::string::npos) << healthz;

  // The plugin moves to a new key: the next health check that calls the plugin (its healthy result
  // is kept 20 s, as kube's) sees the new key ID, and new writes use it.
  WriteFile(dir_ + "/key-id", "key-2\n");
  bool rotated = false;
  for (int i = 0; i < 60 && !rotated; ++i) {
    EXPECT_EQ(HttpStatusOf(Get("/healthz/kms-providers")), 200);
    ASSERT_EQ(server_->Kubectl({"create", "secret", "generic", "later", "--from-literal=a=b"}).exit_code, 0);
    rotated = Raw("/registry/secrets/default/later").find("key-2") != std::string::npos;
    if (!rotated) {
      server_->Kubectl({"delete", "secret", "later"});
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
  }
  EXPECT_TRUE(rotated) << "new writes never used key-2";
  EXPECT_EQ(server_->Kubectl({"get", "secret", "hidden", "-o", "jsonpath={.data.password}"}).out, "aHVudGVyMg==");

  // A restarted server without the watch cache (so it decrypted nothing at start: the secret's DEK
  // source is not cached), then the plugin goes away: it cannot decrypt the secret.
  server_.reset();
  StartServer({"--watch-cache=false"});
  ASSERT_TRUE(server_->ok()) << server_->error() << server_->log();
  StopPlugin();
  std::string failed = Get("/api/v1/namespaces/default/secrets/hidden");
  EXPECT_EQ(HttpStatusOf(failed), 500) << failed;
  EXPECT_NE(BodyOf(failed).find("failed to decrypt DEK"), std::string::npos) << failed;
  EXPECT_EQ(HttpStatusOf(Get("/api/v1/namespaces/default/configmaps")), 200);  // the rest is served
  // The check's last healthy result is kept 20 s (kube's kmsPluginHealthzPositiveTTL).
  EXPECT_EQ(HttpStatusOf(GetUntil("/healthz/kms-providers", 500, 300)), 500);
  // Back: reads recover.
  StartPlugin();
  std::string back = GetUntil("/api/v1/namespaces/default/secrets/hidden", 200);
  EXPECT_EQ(HttpStatusOf(back), 200) << back;
  EXPECT_NE(back.find("aHVudGVyMg=="), std::string::npos);
  EXPECT_EQ(HttpStatusOf(GetUntil("/healthz/kms-providers", 200)), 200);
}

// --encryption-provider-config-automatic-reload with KMS: a file that adds a KMS provider while the
// server runs builds it (new secrets are envelope-encrypted, kms-providers checks the new plugin); a
// file whose new provider never becomes healthy is not taken (a failure in the reload metric after
// kube's grace period of at least 10 s), and the configuration in effect stays.
TEST_F(KmsE2E, AReloadedConfigurationBuildsItsKmsProviders) {
  const std::string head = "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
                           "- resources: [secrets]\n  providers:\n";
  auto kms = [&](const std::string& name) {
    return "  - kms:\n      apiVersion: v2\n      name: " + name + "\n      endpoint: unix://" + dir_ + "/" + name +
           ".sock\n      timeout: 1s\n";
  };
  WriteFile(dir_ + "/encryption.yaml", head + "  - identity: {}\n");
  StartPlugin();  // serves dir_/kms.sock: the provider named "kms"
  StartServer({"--encryption-provider-config-automatic-reload"});
  ASSERT_TRUE(server_->ok()) << server_->error() << server_->log();
  auto reloads = [&](const std::string& status) {
    return MetricSample(BodyOf(Get("/metrics")), "apiserver_encryption_config_controller_automatic_reloads_total",
                        {"status=\"" + status + "\""})
        .value_or(0);
  };
  auto wait_reloads = [&](const std::string& status) {
    for (int i = 0; i < 300 && reloads(status) < 1; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return reloads(status);
  };
  ASSERT_EQ(server_->Kubectl({"create", "secret", "generic", "before", "--from-literal=v=plain1"}).exit_code, 0);
  EXPECT_NE(Raw("/registry/secrets/default/before").find("plain1"), std::string::npos);

  WriteFile(dir_ + "/encryption.yaml", head + kms("kms") + "  - identity: {}\n");
  ASSERT_EQ(wait_reloads("success"), 1) << server_->log();
  ASSERT_EQ(server_->Kubectl({"create", "secret", "generic", "after", "--from-literal=v=plain2"}).exit_code, 0);
  std::string raw = Raw("/registry/secrets/default/after");
  EXPECT_EQ(raw.rfind("k8s:enc:kms:v2:kms:", 0), 0u) << raw.substr(0, 40);
  EXPECT_EQ(raw.find("plain2"), std::string::npos);
  EXPECT_EQ(server_->Kubectl({"get", "secret", "before", "-o", "jsonpath={.data.v}"}).out, "cGxhaW4x");
  EXPECT_EQ(server_->Kubectl({"get", "secret", "after", "-o", "jsonpath={.data.v}"}).out, "cGxhaW4y");

  // A provider with no plugin behind it: the file is not taken.
  WriteFile(dir_ + "/encryption.yaml", head + kms("absent") + kms("kms") + "  - identity: {}\n");
  ASSERT_EQ(wait_reloads("failure"), 1) << server_->log();
  EXPECT_NE(server_->log().find("health check for new transformers failed"), std::string::npos) << server_->log();
  ASSERT_EQ(server_->Kubectl({"create", "secret", "generic", "later", "--from-literal=v=plain3"}).exit_code, 0);
  EXPECT_EQ(Raw("/registry/secrets/default/later").rfind("k8s:enc:kms:v2:kms:", 0), 0u);
  EXPECT_EQ(HttpStatusOf(Get("/healthz/kms-providers")), 200);

  // kms-providers checks the plugin of the configuration in effect: without it, the check fails once
  // its last healthy result (kept 20 s) has expired.
  StopPlugin();
  EXPECT_EQ(HttpStatusOf(GetUntil("/healthz/kms-providers", 500, 300)), 500);
}

// Plugin calls do not hold up the I/O threads: with a plugin that takes 1.5 s per call and no DEK
// cache (KMS v1, cachesize -1, no watch cache: every read decrypts), a configmap read made while more
// slow secret reads (GETs and LISTs) are in flight than the server has I/O threads returns before any
// of them.
TEST_F(KmsE2E, ASlowPluginDoesNotHoldUpOtherRequests) {
  WriteFile(dir_ + "/encryption.yaml",
            "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
            "- resources: [secrets]\n  providers:\n  - kms:\n      apiVersion: v1\n      name: slow\n"
            "      cachesize: -1\n      endpoint: unix://" + dir_ + "/kms.sock\n      timeout: 20s\n");
  StartPlugin(1500);
  StartServer({"--feature-gates=KMSv1=true", "--watch-cache=false"});  // every read decodes
  ASSERT_TRUE(server_->ok()) << server_->error() << server_->log();
  ASSERT_EQ(server_->Kubectl({"create", "secret", "generic", "slow", "--from-literal=a=b"}).exit_code, 0);
  const int readers = 2 * static_cast<int>(std::thread::hardware_concurrency()) + 2;
  std::atomic<int> secrets_done{0}, secrets_ok{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < readers; ++i) {
    threads.emplace_back([&, i] {
      bool ok = HttpStatusOf(Get(i % 2 ? "/api/v1/namespaces/default/secrets?fieldSelector=metadata.name%3Dslow"
                                       : "/api/v1/namespaces/default/secrets/slow")) == 200;
      secrets_ok += ok;
      ++secrets_done;
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the reads reach the plugin
  std::string configmaps = Get("/api/v1/namespaces/default/configmaps");
  const int done_before = secrets_done.load();
  for (auto& t : threads) t.join();
  EXPECT_EQ(HttpStatusOf(configmaps), 200) << configmaps;
  EXPECT_EQ(done_before, 0) << "the configmap read waited for the plugin";
  EXPECT_EQ(secrets_ok.load(), readers);
}

// KMS v1 (deprecated): refused without its gate, with kube's text; with --feature-gates=KMSv1=true,
// secrets are stored in kube's v1 layout under "k8s:enc:kms:v1:<name>:" and the provider has its own
// kms-provider-0 check, as kube names it when a v1 provider is in use.
TEST_F(KmsE2E, KmsV1ActsBehindItsGate) {
  WriteFile(dir_ + "/encryption.yaml",
            "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
            "- resources: [secrets]\n  providers:\n  - kms:\n      apiVersion: v1\n      name: legacy\n"
            "      cachesize: 100\n      endpoint: unix://" + dir_ + "/kms.sock\n      timeout: 2s\n  - identity: {}\n");
  StartPlugin();
  StartServer();
  EXPECT_FALSE(server_->ok());
  EXPECT_NE(server_->log().find("KMSv1 is deprecated and will only receive security updates going forward. Use KMSv2 "
                                "instead.  Set --feature-gates=KMSv1=true to use the deprecated KMSv1 feature."),
            std::string::npos)
      << server_->log();
  server_.reset();

  StartServer({"--feature-gates=KMSv1=true"});
  ASSERT_TRUE(server_->ok()) << server_->error() << server_->log();
  auto created = server_->Kubectl({"create", "secret", "generic", "old-style", "--from-literal=password=hunter2"});
  ASSERT_EQ(created.exit_code, 0) << created.err;
  std::string raw = Raw("/registry/secrets/default/old-style");
  EXPECT_EQ(raw.rfind("k8s:enc:kms:v1:legacy:", 0), 0u) << raw.substr(0, 40);
  EXPECT_EQ(raw.substr(24, 6), "key-1:") << "the DEK as the plugin encrypted it follows the length";
  EXPECT_EQ(raw.find("hunter2"), std::string::npos);
  EXPECT_EQ(raw.find("aHVudGVyMg=="), std::string::npos);
  EXPECT_EQ(server_->Kubectl({"get", "secret", "old-style", "-o", "jsonpath={.data.password}"}).out, "aHVudGVyMg==");
  std::string healthz = BodyOf(Get("/healthz?verbose"));
  EXPECT_NE(healthz.find("[+]kms-provider-0 ok"), std::string::npos) << healthz;
  EXPECT_EQ(healthz.find("kms-providers"), std::string::npos) << healthz;
}

}  // namespace
}  // namespace capstan::e2e
