// Encryption at rest end to end through BackendObjectStore over the embedded store: the raw store
// holds ciphertext for what the config encrypts and plain JSON for the rest; rotation by reordering;
// a wrong key fails that object only.
#include "storage/transformers/resource_transformers.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>

#include "storage/backend_object_store.h"
#include "storage/embedded/embedded_backend.h"
#include "util/strings.h"

namespace capstan::storage::transformers {
namespace {

const char kKeyA[] = "YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE=";  // 32 x 'a'
const char kKeyB[] = "YmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmI=";  // 32 x 'b'

std::unique_ptr<ResourceTransformers> Build(const std::string& yaml) {
  auto c = ParseEncryptionConfig(yaml);
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return nullptr;
  auto t = BuildTransformers(*c);
  EXPECT_TRUE(t.ok()) << t.status().message();
  if (!t.ok()) return nullptr;
  return std::make_unique<ResourceTransformers>(std::move(*t), "/registry");
}

std::string Providers(const std::vector<std::pair<std::string, std::string>>& providers) {
  std::string out;
  for (const auto& [type, key] : providers) {
    if (type == "identity") {
      out += "  - identity: {}\n";
    } else {
      out += "  - " + type + ":\n      keys:\n      - name: " + key + "\n        secret: " +
             (key == "keyA" ? kKeyA : kKeyB) + "\n";
    }
  }
  return out;
}

std::string Config(const std::string& resources, const std::vector<std::pair<std::string, std::string>>& providers) {
  return "apiVersion: apiserver.config.k8s.io/v1\nkind: EncryptionConfiguration\nresources:\n- resources: " + resources +
         "\n  providers:\n" + Providers(providers);
}

class EncryptedStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capstan-encrypt-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    EmbeddedOptions o;
    o.dir = dir_;
    auto b = OpenEmbeddedBackend(o);
    ASSERT_TRUE(b.ok());
    backend_ = std::move(*b);
  }
  void TearDown() override {
    backend_.reset();
    std::filesystem::remove_all(dir_);
  }

  static Object Obj(const std::string& kind, const std::string& name, const std::string& secret_value) {
    Object o;
    o["kind"] = kind;
    o["metadata"] = boost::json::object{{"name", name}, {"namespace", "default"}};
    o["data"] = boost::json::object{{"token", secret_value}};
    return o;
  }
  std::string Raw(const std::string& key) {
    auto kv = SyncWait(backend_->Get(key));
    EXPECT_TRUE(kv.ok() && kv->has_value()) << key;
    return kv.ok() && kv->has_value() ? (*kv)->value : "";
  }

  std::string dir_;
  std::unique_ptr<Backend> backend_;
};

TEST_F(EncryptedStoreTest, SecretsAreCiphertextAndWhatTheConfigLeavesAloneIsPlain) {
  for (const std::string provider : {"aescbc", "aesgcm", "secretbox"}) {
    auto t = Build(Config("[secrets]", {{provider, "keyA"}, {"identity", ""}}));
    ASSERT_TRUE(t);
    BackendObjectStore store(*backend_, t.get());
    const std::string skey = "/registry/secrets/default/s-" + provider;
    const std::string ckey = "/registry/configmaps/default/c-" + provider;
    ASSERT_TRUE(SyncWait(store.Create(skey, Obj("Secret", "s", "c2VjcmV0LXRva2Vu"), 0)).ok());
    ASSERT_TRUE(SyncWait(store.Create(ckey, Obj("ConfigMap", "c", "plain-value"), 0)).ok());
    std::string raw_secret = Raw(skey);
    EXPECT_TRUE(StartsWith(raw_secret, "k8s:enc:" + provider + ":v1:keyA:")) << raw_secret.substr(0, 40);
    EXPECT_EQ(raw_secret.find("c2VjcmV0LXRva2Vu"), std::string::npos);
    EXPECT_EQ(raw_secret.find("Secret"), std::string::npos);
    std::string raw_cm = Raw(ckey);
    EXPECT_EQ(raw_cm.front(), '{');
    EXPECT_NE(raw_cm.find("plain-value"), std::string::npos);
    auto back = SyncWait(store.Get(skey, {}));
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(boost::json::value_to<std::string>(back->at("data").at("token")), "c2VjcmV0LXRva2Vu");
  }
}

TEST_F(EncryptedStoreTest, AValueCannotBeMovedToAnotherKey) {
  auto t = Build(Config("[secrets]", {{"aesgcm", "keyA"}}));
  BackendObjectStore store(*backend_, t.get());
  ASSERT_TRUE(SyncWait(store.Create("/registry/secrets/default/a", Obj("Secret", "a", "x"), 0)).ok());
  ASSERT_TRUE(SyncWait(backend_->Put("/registry/secrets/default/b", Raw("/registry/secrets/default/a"))).ok());
  auto moved = SyncWait(store.Get("/registry/secrets/default/b", {}));
  ASSERT_FALSE(moved.ok());
  EXPECT_EQ(moved.status().code(), 500);
  EXPECT_EQ(moved.status().message(), "Internal error occurred: cipher: message authentication failed");
}

TEST_F(EncryptedStoreTest, AWrongKeyFailsThatObjectOnlyAndClearly) {
  auto a = Build(Config("[secrets]", {{"aescbc", "keyA"}}));
  BackendObjectStore writer(*backend_, a.get());
  ASSERT_TRUE(SyncWait(writer.Create("/registry/secrets/default/s", Obj("Secret", "s", "x"), 0)).ok());
  ASSERT_TRUE(SyncWait(writer.Create("/registry/configmaps/default/c", Obj("ConfigMap", "c", "y"), 0)).ok());
  // Same key name, different secret: the key is found but does not decrypt.
  std::string wrong_cfg = Config("[secrets]", {{"aescbc", "keyA"}});
  wrong_cfg.replace(wrong_cfg.find(kKeyA), sizeof(kKeyA) - 1, kKeyB);
  auto wrong = Build(wrong_cfg);
  BackendObjectStore reader(*backend_, wrong.get());
  auto s = SyncWait(reader.Get("/registry/secrets/default/s", {}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), 500);
  EXPECT_EQ(s.status().reason(), "InternalError");
  EXPECT_TRUE(StartsWith(s.status().message(), "Internal error occurred: ")) << s.status().message();
  EXPECT_TRUE(SyncWait(reader.Get("/registry/configmaps/default/c", {})).ok());
  // A config without that key name at all says so.
  auto other = Build(Config("[secrets]", {{"aescbc", "keyB"}}));
  BackendObjectStore other_reader(*backend_, other.get());
  EXPECT_EQ(SyncWait(other_reader.Get("/registry/secrets/default/s", {})).status().message(),
            "Internal error occurred: no matching key was found for the provided AES transformer");
  // Identity alone refuses to hand out ciphertext as an object.
  auto identity = Build(Config("[secrets]", {{"identity", ""}}));
  BackendObjectStore plain_reader(*backend_, identity.get());
  EXPECT_EQ(SyncWait(plain_reader.Get("/registry/secrets/default/s", {})).status().message(),
            "Internal error occurred: no matching prefix found");
}

TEST_F(EncryptedStoreTest, KeyRotationByReordering) {
  const std::string key = "/registry/secrets/default/r";
  auto v1 = Build(Config("[secrets]", {{"aesgcm", "keyA"}}));
  ASSERT_TRUE(SyncWait(BackendObjectStore(*backend_, v1.get()).Create(key, Obj("Secret", "r", "x"), 0)).ok());
  // Step 1: the new key is added second: old values read, new writes still use keyA.
  auto v2 = Build(Config("[secrets]", {{"aesgcm", "keyA"}, {"secretbox", "keyB"}}));
  bool stale = true;
  auto plain = v2->FromStorage(Raw(key), key, &stale);
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(stale);
  // Step 2: the new key moves first: old values still read (marked stale), writes use keyB.
  auto v3 = Build(Config("[secrets]", {{"secretbox", "keyB"}, {"aesgcm", "keyA"}}));
  plain = v3->FromStorage(Raw(key), key, &stale);
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(stale);
  BackendObjectStore store(*backend_, v3.get());
  auto updated = SyncWait(store.GuaranteedUpdate(key, {}, false, [](const Object* cur) -> Task<StatusOr<UpdateResult>> {
    Object o = *cur;
    o["data"] = boost::json::object{{"token", "rewritten"}};
    co_return UpdateResult{o, 0};
  }));
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_TRUE(StartsWith(Raw(key), "k8s:enc:secretbox:v1:keyB:"));
  // Step 3: the old key is dropped; everything rewritten still reads.
  auto v4 = Build(Config("[secrets]", {{"secretbox", "keyB"}}));
  EXPECT_TRUE(SyncWait(BackendObjectStore(*backend_, v4.get()).Get(key, {})).ok());
}

// kube's storage migration (read and replace every object): an unchanged update of a value written
// with an old key is still written, with the current key; one already current is not.
TEST_F(EncryptedStoreTest, AnUnchangedUpdateRewritesAStaleValue) {
  const std::string key = "/registry/secrets/default/m";
  auto v1 = Build(Config("[secrets]", {{"aesgcm", "keyA"}}));
  ASSERT_TRUE(SyncWait(BackendObjectStore(*backend_, v1.get()).Create(key, Obj("Secret", "m", "x"), 0)).ok());
  auto v2 = Build(Config("[secrets]", {{"secretbox", "keyB"}, {"aesgcm", "keyA"}}));
  BackendObjectStore store(*backend_, v2.get());
  auto same = [](const Object* cur) -> Task<StatusOr<UpdateResult>> { co_return UpdateResult{*cur, 0}; };
  auto first = SyncWait(store.GuaranteedUpdate(key, {}, false, same));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(StartsWith(Raw(key), "k8s:enc:secretbox:v1:keyB:"));
  auto rev = SyncWait(backend_->Get(key));
  ASSERT_TRUE(rev.ok() && rev->has_value());
  auto second = SyncWait(store.GuaranteedUpdate(key, {}, false, same));
  ASSERT_TRUE(second.ok());
  auto rev2 = SyncWait(backend_->Get(key));
  EXPECT_EQ((*rev2)->mod_revision, (*rev)->mod_revision);  // current: no write
}

// kube's apiserver_storage_transformation_* for the configured resources only, labelled with the whole
// prefix of the provider used ("identity" for a plain read, "unknown" when no provider matches).
TEST(ResourceTransformers, RecordKubesTransformationMetrics) {
  auto t = Build(Config("[secrets]", {{"aescbc", "keyA"}, {"identity", ""}}));
  ASSERT_TRUE(t);
  MetricsRegistry reg;
  TransformationMetrics metrics(reg);
  t->set_metrics(&metrics);
  std::string stored = *t->ToStorage("x", "/registry/secrets/ns/a");
  ASSERT_TRUE(t->FromStorage(stored, "/registry/secrets/ns/a", nullptr).ok());
  ASSERT_TRUE(t->FromStorage("plain", "/registry/secrets/ns/b", nullptr).ok());
  EXPECT_FALSE(t->FromStorage("k8s:enc:aesgcm:v1:other:zzzz", "/registry/secrets/ns/c", nullptr).ok());
  ASSERT_TRUE(t->ToStorage("y", "/registry/configmaps/ns/a").ok());
  std::string text = reg.Expose();
  auto sample = [](const std::string& type, const std::string& prefix, const std::string& status) {
    return "apiserver_storage_transformation_operations_total{resource=\"secrets\",status=\"" + status +
           "\",transformation_type=\"" + type + "\",transformer_prefix=\"" + prefix + "\"} 1\n";
  };
  EXPECT_NE(text.find(sample("to_storage", "k8s:enc:aescbc:v1:keyA:", "OK")), std::string::npos) << text;
  EXPECT_NE(text.find(sample("from_storage", "k8s:enc:aescbc:v1:keyA:", "OK")), std::string::npos) << text;
  EXPECT_NE(text.find(sample("from_storage", "identity", "OK")), std::string::npos) << text;
  EXPECT_NE(text.find(sample("from_storage", "unknown", "unknown-non-grpc")), std::string::npos) << text;
  EXPECT_EQ(text.find("resource=\"configmaps\""), std::string::npos) << text;
  EXPECT_NE(text.find("apiserver_storage_transformation_duration_seconds_count{transformation_type=\"to_storage\","
                      "transformer_prefix=\"k8s:enc:aescbc:v1:keyA:\"} 1\n"),
            std::string::npos)
      << text;
}

// Only KMS providers call another process: no value of an aescbc or identity resource leaves the
// I/O thread.
TEST(ResourceTransformers, NoProviderButKmsUsesAPlugin) {
  auto t = Build(Config("[secrets]", {{"aescbc", "keyA"}, {"identity", ""}}));
  ASSERT_TRUE(t);
  EXPECT_FALSE(t->UsesPlugin("/registry/secrets/ns/a"));
  EXPECT_FALSE(t->UsesPlugin("/registry/configmaps/ns/a"));
  std::string stored = *t->ToStorage("x", "/registry/secrets/ns/a");
  EXPECT_FALSE(t->MayBlock("/registry/secrets/ns/a", Transformer::Direction::kFromStorage, stored));
}

TEST(TransformationStatusTest, IsTheGrpcCodeOfAFailedPluginCall) {
  EXPECT_EQ(TransformationStatus(Status()), "OK");
  EXPECT_EQ(TransformationStatus(Status(500, "InternalError",
                                        "failed to decrypt DEK, error: kms Decrypt failed: rpc error: code = "
                                        "Unavailable desc = connection refused")),
            "Unavailable");
  EXPECT_EQ(TransformationStatus(Status(500, "InternalError", "cipher: message authentication failed")),
            "unknown-non-grpc");
}

TEST(ResourceTransformers, FindsTheResourceOfAKey) {
  auto t = Build(Config("['*.apps', secrets]", {{"aesgcm", "keyA"}}));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->ResourceOf("/registry/secrets/ns/x"), (GroupResource{"", "secrets"}));
  EXPECT_EQ(t->ResourceOf("/registry/deployments/ns/x"), (GroupResource{"", "deployments"}));
  t->RegisterResource("/registry/deployments", "apps", "deployments");
  t->RegisterResource("/registry/example.com/widgets", "example.com", "widgets");
  EXPECT_EQ(t->ResourceOf("/registry/deployments/ns/x"), (GroupResource{"apps", "deployments"}));
  EXPECT_EQ(t->ResourceOf("/registry/deployments"), (GroupResource{"apps", "deployments"}));
  EXPECT_EQ(t->ResourceOf("/registry/example.com/widgets/ns/w"), (GroupResource{"example.com", "widgets"}));
  EXPECT_EQ(t->ResourceOf("/registry/deploymentsx/ns/x"), (GroupResource{"", "deploymentsx"}));
  // deployments (apps) match "*.apps"; configmaps match nothing and stay plain.
  auto d = t->ToStorage("{}", "/registry/deployments/ns/x");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(StartsWith(*d, "k8s:enc:aesgcm:v1:keyA:"));
  auto c = t->ToStorage("{}", "/registry/configmaps/ns/x");
  EXPECT_EQ(*c, "{}");
  // Unconfigured resources refuse encrypted data, as kube's identity default does.
  EXPECT_EQ(t->FromStorage(*d, "/registry/configmaps/ns/x", nullptr).status().message(),
            "Internal error occurred: identity transformer tried to read encrypted data");
}

}  // namespace
}  // namespace capstan::storage::transformers
