// KMS v2 envelope encryption against a real plugin process (test_kms_plugin, gRPC on a unix socket):
// kube's EncryptedObject layout with a KDF seed, the DEK source cache (one Decrypt per seed), key ID
// rotation from Status (old values read, as stale), reads failing closed while the plugin is down for
// a source that is not cached, and recovering when it is back.
#include "storage/transformers/kms/kms_v2_envelope.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "plugin_process.h"
#include "storage/transformers/kms/proto/kms_v2_encrypted_object.pb.h"

namespace capstan::storage::kms {
namespace {

class KmsV2EnvelopeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capstan-kms-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    SetKeyId("k1");
    StartPlugin();
  }
  void TearDown() override {
    plugin_.reset();
    std::filesystem::remove_all(dir_);
  }
  void StartPlugin() { plugin_ = std::make_unique<Plugin>(dir_ + "/kms.sock", dir_ + "/key-id", dir_ + "/calls.log"); }
  void SetKeyId(const std::string& id) { std::ofstream(dir_ + "/key-id", std::ios::trunc) << id << "\n"; }
  std::unique_ptr<KmsV2Envelope> Envelope(KmsV2Envelope::Ttls ttls = {}) {
    return std::make_unique<KmsV2Envelope>("test", NewKmsV2Client("unix://" + dir_ + "/kms.sock", std::chrono::seconds(2)),
                                           nullptr, ttls);
  }
  int Calls(const std::string& prefix) { return CallCount(dir_ + "/calls.log", prefix); }

  std::string dir_;
  std::unique_ptr<Plugin> plugin_;
};

TEST_F(KmsV2EnvelopeTest, WritesKubesEncryptedObjectWithASeedAndReadsItBack) {
  auto env = Envelope();
  EXPECT_TRUE(env->Check().ok());
  const std::string plain = R"({"kind":"Secret","data":{"password":"aHVudGVyMg=="}})";
  auto stored = env->ToStorage(plain, "/registry/secrets/default/s");
  ASSERT_TRUE(stored.ok()) << stored.status().message();
  v2::EncryptedObject o;
  ASSERT_TRUE(o.ParseFromString(*stored));
  EXPECT_EQ(o.keyid(), "k1");
  EXPECT_EQ(o.encrypteddeksourcetype(), v2::HKDF_SHA256_XNONCE_AES_GCM_SEED);
  EXPECT_EQ(o.annotations().at("key-id.kms.capstan.test"), "k1");
  EXPECT_EQ(o.encrypteddata().size(), 32 + 12 + plain.size() + 16);  // info, nonce, ciphertext, tag
  EXPECT_EQ(stored->find("aHVudGVyMg=="), std::string::npos);
  EXPECT_EQ(stored->find("password"), std::string::npos);
  bool stale = true;
  auto back = env->FromStorage(*stored, "/registry/secrets/default/s", &stale);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, plain);
  EXPECT_FALSE(stale);
  // The storage key is authenticated: the value does not read under another key.
  EXPECT_FALSE(env->FromStorage(*stored, "/registry/secrets/default/other", &stale).ok());
  // Two writes with one seed differ (fresh info and nonce).
  EXPECT_NE(*env->ToStorage(plain, "/registry/secrets/default/s"), *stored);
}

TEST_F(KmsV2EnvelopeTest, KubesMetricsCountCallsKeyIdsAndTheCache) {
  MetricsRegistry reg;
  KmsMetrics metrics(reg, "apiserver-x");
  KmsV2Envelope env("test", NewKmsV2Client("unix://" + dir_ + "/kms.sock", std::chrono::seconds(2), &metrics, "test"),
                    &metrics);
  std::string stored = *env.ToStorage("v", "/k");
  ASSERT_TRUE(env.FromStorage(stored, "/k", nullptr).ok());
  std::string text = reg.Expose();
  const std::string key = transformers::Sha256Label("k1"), server = transformers::Sha256Label("apiserver-x");
  EXPECT_NE(text.find("apiserver_envelope_encryption_kms_operations_latency_seconds_count{grpc_status_code=\"OK\","
                      "method_name=\"/v2.KeyManagementService/Encrypt\",provider_name=\"test\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("apiserver_envelope_encryption_key_id_hash_total{apiserver_id_hash=\"" + server + "\",key_id_hash=\"" + key +
                      "\",provider_name=\"test\",transformation_type=\"to_storage\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\",provider_name=\"test\",transformation_type=\"from_storage\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("apiserver_envelope_encryption_dek_source_cache_size{provider_name=\"test\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("apiserver_envelope_encryption_key_id_hash_last_timestamp_seconds{apiserver_id_hash=\"" + server +
                      "\",key_id_hash=\"" + key + "\",provider_name=\"test\",transformation_type=\"to_storage\"} "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("apiserver_envelope_encryption_key_id_hash_status_last_timestamp_seconds{apiserver_id_hash=\"" +
                      server + "\",key_id_hash=\"" + key + "\",provider_name=\"test\"} "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("apiserver_storage_data_key_generation_duration_seconds_count 1\n"), std::string::npos) << text;
  // The writer's own seed was cached when generated: the read needed no plugin call.
  EXPECT_NE(text.find("apiserver_storage_envelope_transformation_cache_misses_total 0\n"), std::string::npos) << text;
  KmsV2Envelope reader("test", NewKmsV2Client("unix://" + dir_ + "/kms.sock", std::chrono::seconds(2), &metrics, "test"),
                       &metrics);
  ASSERT_TRUE(reader.FromStorage(stored, "/k", nullptr).ok());
  EXPECT_NE(reg.Expose().find("apiserver_storage_envelope_transformation_cache_misses_total 1\n"), std::string::npos);
  plugin_->Stop();
  EXPECT_FALSE(env.Check().ok());
  EXPECT_NE(reg.Expose().find("{grpc_status_code=\"Unavailable\",method_name=\"/v2.KeyManagementService/Status\","),
            std::string::npos);
}

// Writes use the seed the health check made (no call); a read may call the plugin only for a seed
// not cached.
TEST_F(KmsV2EnvelopeTest, MayBlockOnlyForReadsOfSeedsNotCached) {
  using D = Transformer::Direction;
  auto writer = Envelope();
  EXPECT_FALSE(writer->MayBlock("/k", D::kToStorage, ""));
  std::string stored = *writer->ToStorage("v", "/k");
  EXPECT_FALSE(writer->MayBlock("/k", D::kFromStorage, stored));
  auto reader = Envelope();
  EXPECT_TRUE(reader->MayBlock("/k", D::kFromStorage, stored));
  ASSERT_TRUE(reader->FromStorage(stored, "/k", nullptr).ok());
  EXPECT_FALSE(reader->MayBlock("/k", D::kFromStorage, stored));
}

TEST_F(KmsV2EnvelopeTest, OneDecryptPerSeedThenTheCacheServes) {
  auto writer = Envelope();
  std::vector<std::string> values;
  for (int i = 0; i < 10; ++i) values.push_back(*writer->ToStorage("v" + std::to_string(i), "/k/" + std::to_string(i)));
  auto reader = Envelope();  // another server: its cache does not hold the writer's seed
  int before = Calls("Decrypt");
  for (int i = 0; i < 10; ++i) {
    auto v = reader->FromStorage(values[i], "/k/" + std::to_string(i), nullptr);
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_EQ(*v, "v" + std::to_string(i));
  }
  EXPECT_EQ(Calls("Decrypt") - before, 1);
  EXPECT_EQ(Calls("Decrypt k1"), 1);
}

TEST_F(KmsV2EnvelopeTest, AKeyIdRotationMakesANewSeedAndOldValuesReadAsStale) {
  auto env = Envelope();
  std::string old = *env->ToStorage("old", "/k/old");
  SetKeyId("k2");
  ASSERT_TRUE(env->Refresh().ok());
  EXPECT_EQ(env->current_key_id(), "k2");
  std::string fresh = *env->ToStorage("new", "/k/new");
  v2::EncryptedObject o;
  ASSERT_TRUE(o.ParseFromString(fresh));
  EXPECT_EQ(o.keyid(), "k2");
  bool stale = false;
  EXPECT_EQ(*env->FromStorage(old, "/k/old", &stale), "old");
  EXPECT_TRUE(stale);
  EXPECT_EQ(*env->FromStorage(fresh, "/k/new", &stale), "new");
  EXPECT_FALSE(stale);
  EXPECT_EQ(Calls("Encrypt k2"), 1);
}

TEST_F(KmsV2EnvelopeTest, WithThePluginDownUncachedReadsFailClosedAndRecover) {
  auto writer = Envelope();
  std::string value = *writer->ToStorage("secret", "/k/s");
  plugin_->Stop();
  EXPECT_FALSE(writer->Check().ok());
  // The writer holds the seed: its reads go on. A fresh server cannot decrypt the source: 500.
  EXPECT_EQ(*writer->FromStorage(value, "/k/s", nullptr), "secret");
  auto fresh = Envelope();
  auto failed = fresh->FromStorage(value, "/k/s", nullptr);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), 500);
  EXPECT_EQ(failed.status().message().rfind("failed to decrypt DEK, error: kms Decrypt failed: rpc error: code = Unavailable", 0),
            0u)
      << failed.status().message();
  EXPECT_FALSE(fresh->ToStorage("x", "/k/x").ok());  // no seed without the plugin
  StartPlugin();
  auto back = fresh->FromStorage(value, "/k/s", nullptr);
  for (int i = 0; i < 200 && !back.ok(); ++i) {  // until the channel has reconnected
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    back = fresh->FromStorage(value, "/k/s", nullptr);
  }
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, "secret");
  EXPECT_TRUE(fresh->Check().ok());
  EXPECT_TRUE(fresh->ToStorage("x", "/k/x").ok());
}

// A Status whose key ID kube's ValidateKeyID refuses makes the provider unhealthy, in kube's words,
// and is counted by its error.
TEST_F(KmsV2EnvelopeTest, AnInvalidKeyIdFromStatusIsUnhealthyAndCounted) {
  MetricsRegistry reg;
  KmsMetrics metrics(reg, "apiserver-x");
  for (const auto& [id, error] : {std::pair<std::string, std::string>{"", "empty"}, {std::string(1025, 'k'), "too_long"}}) {
    SetKeyId(id);
    KmsV2Envelope env("test", NewKmsV2Client("unix://" + dir_ + "/kms.sock", std::chrono::seconds(2)), &metrics,
                      {.healthy_check = std::chrono::milliseconds(0), .unhealthy_check = std::chrono::milliseconds(0)});
    capstan::Status st = env.Check();
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.message().rfind("kmsv2 Provider test is not healthy, error: got invalid KMSv2 KeyID hash \"", 0), 0u)
        << st.message();
    EXPECT_NE(reg.Expose().find("apiserver_envelope_encryption_invalid_key_id_from_status_total{error=\"" + error +
                                "\",provider_name=\"test\"} "),
              std::string::npos)
        << reg.Expose();
  }
  EXPECT_EQ(reg.Expose().find("key_id_hash_status_last_timestamp_seconds{"), std::string::npos);
}

TEST_F(KmsV2EnvelopeTest, AHealthCheckResultIsKeptForItsTtl) {
  using std::chrono::milliseconds;
  auto env = Envelope({.healthy_check = milliseconds(600), .unhealthy_check = milliseconds(300)});
  ASSERT_TRUE(env->Check().ok());
  const int status_calls = Calls("Status");
  EXPECT_TRUE(env->Check().ok());
  EXPECT_EQ(Calls("Status"), status_calls) << "a healthy result is reused: no call to the plugin";
  plugin_->Stop();
  EXPECT_TRUE(env->Check().ok()) << "still within the healthy TTL";
  std::this_thread::sleep_for(milliseconds(700));
  capstan::Status down = env->Check();
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.message().rfind("failed to perform status section of the healthz check for KMS Provider test", 0), 0u)
      << down.message();
  StartPlugin();
  EXPECT_FALSE(env->Check().ok()) << "the unhealthy result is kept for its TTL too";
  capstan::Status up = env->Check();
  for (int i = 0; i < 100 && !up.ok(); ++i) {  // past the TTL, until the channel has reconnected
    std::this_thread::sleep_for(milliseconds(50));
    up = env->Check();
  }
  EXPECT_TRUE(up.ok()) << up.message();
}

TEST_F(KmsV2EnvelopeTest, CachedDekSourcesExpireAfterTheCacheTtl) {
  std::string value = *Envelope()->ToStorage("v", "/k");
  auto reader = Envelope({.source_cache = std::chrono::milliseconds(300)});
  const int before = Calls("Decrypt");
  ASSERT_EQ(*reader->FromStorage(value, "/k", nullptr), "v");
  ASSERT_EQ(*reader->FromStorage(value, "/k", nullptr), "v");
  EXPECT_EQ(Calls("Decrypt") - before, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  ASSERT_EQ(*reader->FromStorage(value, "/k", nullptr), "v");
  EXPECT_EQ(Calls("Decrypt") - before, 2) << "an expired source is asked for again";
}

TEST_F(KmsV2EnvelopeTest, DamagedObjectsAreRefusedWithKubesReasons) {
  auto env = Envelope();
  EXPECT_FALSE(env->FromStorage("not protobuf \xff\xff", "/k", nullptr).ok());
  v2::EncryptedObject o;
  o.set_encrypteddata("x");
  o.set_encrypteddeksource("y");
  o.set_encrypteddeksourcetype(v2::HKDF_SHA256_XNONCE_AES_GCM_SEED);
  EXPECT_EQ(env->FromStorage(o.SerializeAsString(), "/k", nullptr).status().message(),
            "failed to validate key id: keyID is empty");
}

}  // namespace
}  // namespace capstan::storage::kms
