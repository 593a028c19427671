// --encryption-provider-config-automatic-reload: a changed file takes effect for new writes, reads
// keep working for the keys still listed, and a file that does not load keeps the configuration in
// effect; kube's reload metrics count each outcome.
#include "storage/transformers/config_reloader.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "storage/transformers/aes.h"
#include "util/strings.h"

namespace capstan::storage::transformers {
namespace {

const char kKeyA[] = "YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE=";  // 32 x 'a'
const char kKeyB[] = "YmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmI=";  // 32 x 'b'

// secrets encrypted with aesgcm keys named `names` (first writes).
std::string Config(const std::vector<std::string>& names) {
  std::string out =
      "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n"
      "  providers:\n  - aesgcm:\n      keys:\n";
  for (const auto& n : names) out += "      - name: " + n + "\n        secret: " + (n == "keyA" ? kKeyA : kKeyB) + "\n";
  return out;
}

class ConfigReloaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capstan-reload-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/encryption.yaml";
    Write(Config({"keyA"}));
    std::string hash;
    auto c = LoadEncryptionConfig(path_, &hash);
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto built = BuildTransformers(*c);
    ASSERT_TRUE(built.ok());
    transformers_ = std::make_unique<ResourceTransformers>(std::move(*built), "/registry");
    hash_ = hash;
    StartReloader({});
  }
  void StartReloader(ConfigReloaderOptions options) {
    options.poll_interval = std::chrono::milliseconds(5);
    reloader_ = std::make_unique<ConfigReloader>(*transformers_, path_, hash_, "apiserver-abc", metrics_,
                                                 std::move(options));
  }
  // A builder whose KMS providers are AES-GCM under a fixed key and whose health check answers
  // `health` (counting its calls in health_calls_); activations are counted in activations_.
  ReloadBuilder KmsBuilder(std::function<Status()> health) {
    return [this, health](const EncryptionConfig& c) -> StatusOr<ReloadCandidate> {
      KmsFactory kms = [](const KmsConfig&) -> StatusOr<std::shared_ptr<const Transformer>> {
        return std::shared_ptr<const Transformer>(NewAesGcmTransformer(std::string(32, 'k')));
      };
      auto built = BuildTransformers(c, kms);
      if (!built.ok()) return built.TakeStatus();
      return ReloadCandidate{std::move(*built),
                             [this, health] {
                               ++health_calls_;
                               return health();
                             },
                             [this] { ++activations_; }};
    };
  }
  void TearDown() override {
    reloader_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Write(const std::string& text) { std::ofstream(path_, std::ios::trunc) << text; }
  std::string Encrypt(const std::string& plain) {
    auto out = transformers_->ToStorage(plain, "/registry/secrets/ns/s");
    EXPECT_TRUE(out.ok()) << out.status().message();
    return out.ok() ? *out : "";
  }
  StatusOr<std::string> Decrypt(const std::string& stored) {
    bool stale = false;
    return transformers_->FromStorage(stored, "/registry/secrets/ns/s", &stale);
  }
  double Reloads(const std::string& status) {
    double n = reloader_->reloads(status);
    EXPECT_NE(metrics_.Expose().find("apiserver_encryption_config_controller_automatic_reloads_total{apiserver_id_hash=\"" +
                                     ApiServerIdHash("apiserver-abc") + "\",status=\"" + status + "\"} " +
                                     FormatMetricValue(n) + "\n"),
              std::string::npos)
        << metrics_.Expose();
    return n;
  }

  std::string dir_, path_, hash_;
  int health_calls_ = 0, activations_ = 0;
  MetricsRegistry metrics_;
  std::unique_ptr<ResourceTransformers> transformers_;
  std::unique_ptr<ConfigReloader> reloader_;
};

TEST_F(ConfigReloaderTest, AnUnchangedFileIsNotReloaded) {
  EXPECT_EQ(reloader_->CheckOnce(), ConfigReloader::Outcome::kUnchanged);
  EXPECT_EQ(reloader_->reloads("success"), 0);
  EXPECT_EQ(reloader_->reloads("failure"), 0);
}

TEST_F(ConfigReloaderTest, KeyRotationStepsTakeEffectWithoutARestart) {
  std::string with_a = Encrypt("one");
  EXPECT_TRUE(StartsWith(with_a, "k8s:enc:aesgcm:v1:keyA:"));

  Write(Config({"keyB", "keyA"}));  // the new key writes; the old one still reads
  EXPECT_EQ(reloader_->CheckOnce(), ConfigReloader::Outcome::kReloaded);
  std::string with_b = Encrypt("two");
  EXPECT_TRUE(StartsWith(with_b, "k8s:enc:aesgcm:v1:keyB:")) << with_b;
  auto old = Decrypt(with_a);
  ASSERT_TRUE(old.ok()) << old.status().message();
  EXPECT_EQ(*old, "one");

  Write(Config({"keyB"}));  // the old key dropped: its values no longer read, the new ones do
  EXPECT_EQ(reloader_->CheckOnce(), ConfigReloader::Outcome::kReloaded);
  EXPECT_FALSE(Decrypt(with_a).ok());
  EXPECT_EQ(*Decrypt(with_b), "two");
  EXPECT_EQ(Reloads("success"), 2);
  EXPECT_EQ(reloader_->CheckOnce(), ConfigReloader::Outcome::kUnchanged);
}

TEST_F(ConfigReloaderTest, AFileThatDoesNotLoadKeepsTheConfigurationInEffect) {
  for (const std::string& bad : {std::string("kind: EncryptionConfiguration\nresources: [{resources: [secrets], "
                                             "providers: [{aesgcm: {keys: [{name: k, secret: c2hvcnQ=}]}}]}]\n"),
                                 std::string(""), std::string("{not yaml")}) {
    Write(bad);
    EXPECT_EQ(reloader_->CheckOnce(), ConfigReloader::Outcome::kFailed) << bad;
    EXPECT_TRUE(StartsWith(Encrypt("x"), "k8s:enc:aesgcm:v1:keyA:"));
  }
  std::filesystem::remove(path_);
  EXPECT_EQ(reloader_->CheckOnce(), ConfigReloader::Outcome::kFailed);
  EXPECT_EQ(Reloads("failure"), 4);
  EXPECT_EQ(reloader_->reloads("success"), 0);
  Write(Config({"keyB", "keyA"}));  // fixed: loads at the next check
  EXPECT_EQ(reloader_->CheckOnce(), ConfigReloader::Outcome::kReloaded);
  EXPECT_TRUE(StartsWith(Encrypt("y"), "k8s:enc:aesgcm:v1:keyB:"));
}

std::string KmsConfigText(const std::string& timeout) {
  return "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n"
         "  providers:\n  - kms:\n      apiVersion: v2\n      name: plugin\n      endpoint: unix:///tmp/none.sock\n"
         "      timeout: " + timeout + "\n  - aesgcm:\n      keys:\n      - name: keyA\n        secret: " + kKeyA + "\n";
}

TEST_F(ConfigReloaderTest, ANewKmsProviderTakesEffectOnceItsHealthCheckPasses) {
  int failures = 2;
  StartReloader({.build = KmsBuilder([&] {
    return failures-- > 0 ? Status(500, "InternalError", "not yet") : Status();
  })});
  Write(KmsConfigText("1s"));
  EXPECT_EQ(reloader_->CheckOnce(), ConfigReloader::Outcome::kReloaded);
  EXPECT_EQ(health_calls_, 3);  // polled until it passed
  EXPECT_EQ(activations_, 1);
  EXPECT_TRUE(StartsWith(Encrypt("x"), "k8s:enc:kms:v2:plugin:"));
  EXPECT_EQ(Reloads("success"), 1);
}

TEST_F(ConfigReloaderTest, ANewKmsProviderThatStaysUnhealthyLeavesTheConfigurationInEffect) {
  StartReloader({.min_kms_grace = std::chrono::milliseconds(300),
                 .build = KmsBuilder([] { return Status(500, "InternalError", "plugin down"); })});
  Write(KmsConfigText("10ms"));  // grace: max(2 x 10 ms, 300 ms)
  EXPECT_EQ(reloader_->CheckOnce(), ConfigReloader::Outcome::kFailed);
  EXPECT_GE(health_calls_, 2);  // polled, not asked once
  EXPECT_EQ(activations_, 0);
  EXPECT_TRUE(StartsWith(Encrypt("x"), "k8s:enc:aesgcm:v1:keyA:"));
  EXPECT_EQ(Reloads("failure"), 1);
}

TEST_F(ConfigReloaderTest, WithoutABuilderAKmsProviderFailsTheReload) {
  Write(KmsConfigText("1s"));
  EXPECT_EQ(reloader_->CheckOnce(), ConfigReloader::Outcome::kFailed);
  EXPECT_TRUE(StartsWith(Encrypt("x"), "k8s:enc:aesgcm:v1:keyA:"));
}

TEST(KmsGracePeriodTest, IsTwiceTheSumOfTheKmsTimeoutsWithV1CountedTwice) {
  auto c = ParseEncryptionConfig(
      "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n"
      "- resources: [secrets]\n  providers:\n  - kms: {apiVersion: v2, name: a, endpoint: unix:///a, timeout: 5s}\n"
      "  - kms: {name: b, endpoint: unix:///b, timeout: 3s}\n"
      "- resources: [configmaps]\n  providers:\n  - identity: {}\n");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(KmsGracePeriod(*c), std::chrono::seconds(22));
}

TEST_F(ConfigReloaderTest, TheThreadPicksUpAChange) {
  reloader_->Start();
  EXPECT_TRUE(reloader_->started());
  Write(Config({"keyB"}));
  while (reloader_->reloads("success") < 1) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  EXPECT_TRUE(StartsWith(Encrypt("z"), "k8s:enc:aesgcm:v1:keyB:"));
  reloader_->Stop();
}

TEST(ApiServerIdHashTest, IsKubesSha256Label) {
  EXPECT_EQ(ApiServerIdHash(""), "");
  EXPECT_EQ(ApiServerIdHash("abc"), "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace capstan::storage::transformers
