// KMS v1 envelope encryption (kube's deprecated kms apiVersion v1) against a real plugin process
// (test_kms_plugin's v1beta1 service): kube's layout (uint16 length, the encrypted DEK, AES-CBC data),
// a new DEK per write, the LRU DEK cache (one Decrypt per DEK, eviction at cachesize, no cache when
// negative), the Version check, and the health check (an Encrypt, its result kept for its TTL).
#include "storage/transformers/kms/kms_v1_envelope.h"

#include "storage/transformers/kms/kms_metrics.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "plugin_process.h"
#include "storage/transformers/aes.h"

namespace capstan::storage::kms {
namespace {

class KmsV1EnvelopeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capstan-kms1-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::ofstream(dir_ + "/key-id") << "k1\n";
    StartPlugin();
  }
  void TearDown() override {
    plugin_.reset();
    std::filesystem::remove_all(dir_);
  }
  void StartPlugin(const std::string& version = "v1beta1") {
    plugin_ = std::make_unique<Plugin>(dir_ + "/kms.sock", dir_ + "/key-id", dir_ + "/calls.log", version);
  }
  transformers::KmsConfig Config(int cache_size = 1000) {
    transformers::KmsConfig c;
    c.name = "legacy";
    c.api_version = "v1";
    c.endpoint = "unix://" + dir_ + "/kms.sock";
    c.timeout = std::chrono::seconds(2);
    c.cache_size = cache_size;
    return c;
  }
  int Calls(const std::string& prefix) { return CallCount(dir_ + "/calls.log", prefix); }

  std::string dir_;
  std::unique_ptr<Plugin> plugin_;
};

TEST_F(KmsV1EnvelopeTest, StoresKubesLayoutWithANewDekPerWrite) {
  KmsV1Envelope env(Config());
  auto a = env.ToStorage("secret value", "/registry/secrets/default/a");
  ASSERT_TRUE(a.ok()) << a.status().message();
  // uint16 big-endian length, the plugin's ciphertext of the DEK ("k1:" + sealed), then AES-CBC.
  size_t n = (static_cast<unsigned char>((*a)[0]) << 8) | static_cast<unsigned char>((*a)[1]);
  ASSERT_GT(a->size(), 2 + n);
  EXPECT_EQ(a->substr(2, 3), "k1:");
  EXPECT_EQ((a->size() - 2 - n) % 16, 0u) << "IV and CBC blocks";
  EXPECT_EQ(a->find("secret value"), std::string::npos);
  EXPECT_EQ(*env.FromStorage(*a, "/registry/secrets/default/a", nullptr), "secret value");
  auto b = env.ToStorage("secret value", "/registry/secrets/default/a");
  EXPECT_NE(a->substr(2, n), b->substr(2, n)) << "each write encrypts a new DEK";
  EXPECT_EQ(Calls("Version"), 1) << "the version is checked once";
  EXPECT_EQ(Calls("V1Encrypt k1"), 2);
}

TEST_F(KmsV1EnvelopeTest, TheDekCacheIsLruOfCachesize) {
  std::vector<std::string> values;
  {
    KmsV1Envelope writer(Config());
    for (int i = 0; i < 3; ++i) values.push_back(*writer.ToStorage("v" + std::to_string(i), "/k"));
  }
  KmsV1Envelope reader(Config(2));
  const int before = Calls("V1Decrypt");
  EXPECT_EQ(*reader.FromStorage(values[0], "/k", nullptr), "v0");
  EXPECT_EQ(*reader.FromStorage(values[1], "/k", nullptr), "v1");
  EXPECT_EQ(*reader.FromStorage(values[0], "/k", nullptr), "v0");  // cached, now the most recent
  EXPECT_EQ(Calls("V1Decrypt") - before, 2);
  EXPECT_EQ(*reader.FromStorage(values[2], "/k", nullptr), "v2");  // evicts v1's DEK, the least recent
  EXPECT_EQ(reader.cached_keys(), 2u);
  EXPECT_EQ(*reader.FromStorage(values[0], "/k", nullptr), "v0");
  EXPECT_EQ(Calls("V1Decrypt") - before, 3);
  EXPECT_EQ(*reader.FromStorage(values[1], "/k", nullptr), "v1");
  EXPECT_EQ(Calls("V1Decrypt") - before, 4);
  // A negative cachesize turns the cache off: every read asks the plugin.
  KmsV1Envelope uncached(Config(-1));
  const int again = Calls("V1Decrypt");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(*uncached.FromStorage(values[0], "/k", nullptr), "v0");
  EXPECT_EQ(Calls("V1Decrypt") - again, 3);
  EXPECT_EQ(uncached.cached_keys(), 0u);
}

TEST_F(KmsV1EnvelopeTest, AnotherApiVersionIsRefusedAsKubeRefusesIt) {
  plugin_.reset();
  StartPlugin("v2alpha9");
  KmsV1Envelope env(Config());
  auto r = env.ToStorage("x", "/k");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "KMS provider api version v2alpha9 is not supported, only v1beta1 is supported now");
}

TEST_F(KmsV1EnvelopeTest, DamagedValuesAndAMissingPluginFailClosed) {
  KmsV1Envelope env(Config(), nullptr, std::chrono::milliseconds(0), std::chrono::milliseconds(0));
  EXPECT_EQ(env.FromStorage("\x01", "/k", nullptr).status().message(),
            "invalid data encountered by envelope transformer: failed to read uint16 length prefixed data");
  EXPECT_EQ(env.FromStorage(std::string("\x00\x09k1", 4), "/k", nullptr).status().message(),
            "invalid data encountered by envelope transformer: failed to read uint16 length prefixed data");
  ASSERT_TRUE(env.Check().ok());
  plugin_->Stop();
  capstan::Status down = env.Check();
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.message().rfind("failed to perform encrypt section of the healthz check for KMS Provider legacy, error: "
                                 "kms Encrypt failed: rpc error: code = Unavailable",
                                 0),
            0u)
      << down.message();
}

TEST_F(KmsV1EnvelopeTest, KubesMetricsCountDekGenerationCacheMissesAndArrivals) {
  MetricsRegistry reg;
  KmsMetrics metrics(reg, "apiserver-x");
  KmsV1Envelope writer(Config(), &metrics);
  std::string stored = *writer.ToStorage("v", "/k");
  ASSERT_TRUE(writer.FromStorage(stored, "/k", nullptr).ok());  // its own DEK is cached
  std::string text = reg.Expose();
  EXPECT_NE(text.find("apiserver_storage_data_key_generation_duration_seconds_count 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("apiserver_storage_envelope_transformation_cache_misses_total 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("apiserver_envelope_encryption_dek_cache_inter_arrival_time_seconds_count{transformation_type="
                      "\"to_storage\"} 1\n"),
            std::string::npos)
      << text;
  KmsV1Envelope reader(Config(), &metrics);
  ASSERT_TRUE(reader.FromStorage(stored, "/k", nullptr).ok());
  text = reg.Expose();
  EXPECT_NE(text.find("apiserver_storage_envelope_transformation_cache_misses_total 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("apiserver_envelope_encryption_dek_cache_inter_arrival_time_seconds_count{transformation_type="
                      "\"from_storage\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("apiserver_envelope_encryption_kms_operations_latency_seconds_count{grpc_status_code=\"OK\","
                      "method_name=\"/v1beta1.KeyManagementService/Decrypt\",provider_name=\"legacy\"} 1\n"),
            std::string::npos)
      << text;
}

// What may call the plugin is transformed off the I/O thread: every write, and reads of a DEK not cached.
TEST_F(KmsV1EnvelopeTest, MayBlockForWritesAndForReadsOfDeksNotCached) {
  using D = Transformer::Direction;
  KmsV1Envelope writer(Config()), reader(Config());
  EXPECT_TRUE(writer.UsesPlugin("/k"));
  EXPECT_TRUE(writer.MayBlock("/k", D::kToStorage, ""));
  std::string stored = *writer.ToStorage("v", "/k");
  EXPECT_FALSE(writer.MayBlock("/k", D::kFromStorage, stored));
  EXPECT_TRUE(reader.MayBlock("/k", D::kFromStorage, stored));
  ASSERT_TRUE(reader.FromStorage(stored, "/k", nullptr).ok());
  EXPECT_FALSE(reader.MayBlock("/k", D::kFromStorage, stored));
  EXPECT_FALSE(reader.MayBlock("/k", D::kFromStorage, "\x01"));  // refused without a call
}

TEST_F(KmsV1EnvelopeTest, AHealthyCheckIsKeptForItsTtl) {
  KmsV1Envelope env(Config(), nullptr, std::chrono::seconds(60), std::chrono::seconds(60));
  const int decrypts = Calls("V1Decrypt");
  ASSERT_TRUE(env.Check().ok());
  EXPECT_EQ(Calls("V1Decrypt") - decrypts, 1);  // kube's probe decrypts what its ping encrypted
  const int encrypts = Calls("V1Encrypt");
  plugin_->Stop();
  EXPECT_TRUE(env.Check().ok());
  EXPECT_EQ(Calls("V1Encrypt"), encrypts);
}

}  // namespace
}  // namespace capstan::storage::kms
