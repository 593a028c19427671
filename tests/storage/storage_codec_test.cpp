// storage::StorageCodec and BackendObjectStore over it: kube's storage format (protobuf envelope for
// built-in kinds, JSON for custom resources), --storage-media-type, reads of every form whatever the
// setting, and the upstream fixtures' bytes written back byte for byte.
#include "storage/storage_codec.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "apimachinery/protobuf_envelope.h"
#include "protobuf_test_util.h"
#include "storage/backend_object_store.h"
#include "storage/embedded/embedded_backend.h"

namespace capstan::storage {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;
using apimachinery::testing::BuiltinCodec;

constexpr char kCmKey[] = "/registry/configmaps/default/a";
constexpr char kCrKey[] = "/registry/example.com/widgets/default/a";

json::object Cm(const std::string& value = "1") {
  return json::parse(R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default",)"
                     R"("uid":"u1","creationTimestamp":"2024-01-02T03:04:05Z"},"data":{"k":")" +
                     value + R"("}})")
      .as_object();
}

json::object Widget() {
  return json::parse(R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a","namespace":"default"},)"
                     R"("spec":{"size":3}})")
      .as_object();
}

std::unique_ptr<StorageCodec> Codec(StorageMediaType t) {
  auto c = std::make_unique<StorageCodec>(t, &BuiltinCodec());
  c->RegisterResource("/registry/configmaps", {"", "v1", "ConfigMap"});
  return c;
}

TEST(StorageMediaTypeTest, KubeValuesOnly) {
  EXPECT_EQ(*ParseStorageMediaType("application/json"), StorageMediaType::kJson);
  EXPECT_EQ(*ParseStorageMediaType("application/yaml"), StorageMediaType::kYaml);
  EXPECT_EQ(*ParseStorageMediaType("application/vnd.kubernetes.protobuf"), StorageMediaType::kProtobuf);
  auto bad = ParseStorageMediaType("application/cbor");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "--storage-media-type \"application/cbor\" invalid, allowed values: application/json, "
            "application/vnd.kubernetes.protobuf, application/yaml");
}

TEST(StorageCodecTest, ProtobufForBuiltinKindsJsonForCustomResources) {
  auto codec = Codec(StorageMediaType::kProtobuf);
  auto cm = codec->Encode(Cm(), kCmKey);
  ASSERT_TRUE(cm.ok()) << cm.status().message();
  EXPECT_TRUE(apimachinery::protobuf::HasEnvelopeMagic(*cm));
  // kube's bytes: the envelope with the object's apiVersion/kind and its message.
  EXPECT_EQ(*cm, *BuiltinCodec().EncodeObject({"", "v1", "ConfigMap"}, Cm()));
  auto back = codec->Decode(*cm, kCmKey);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, Cm());

  auto cr = codec->Encode(Widget(), kCrKey);
  ASSERT_TRUE(cr.ok());
  EXPECT_EQ(*cr, json::serialize(Widget()));
  // A key under a registered root's sibling is not that resource's.
  EXPECT_FALSE(codec->StorageVersionOf("/registry/configmapsx/default/a"));
  EXPECT_TRUE(codec->StorageVersionOf("/registry/configmaps/default/a"));
}

TEST(StorageCodecTest, JsonAndYamlMediaTypes) {
  auto as_json = Codec(StorageMediaType::kJson)->Encode(Cm(), kCmKey);
  ASSERT_TRUE(as_json.ok());
  EXPECT_EQ(*as_json, json::serialize(Cm()));
  auto as_yaml = Codec(StorageMediaType::kYaml)->Encode(Cm(), kCmKey);
  ASSERT_TRUE(as_yaml.ok());
  EXPECT_EQ(as_yaml->rfind("kind: ConfigMap", 0), std::string::npos) << *as_yaml;  // go-yaml sorts keys
  EXPECT_NE(as_yaml->find("apiVersion: v1\n"), std::string::npos) << *as_yaml;
  // Custom resources stay JSON under YAML too.
  EXPECT_EQ(*Codec(StorageMediaType::kYaml)->Encode(Widget(), kCrKey), json::serialize(Widget()));
}

TEST(StorageCodecTest, ReadsEveryFormWhateverTheSetting) {
  auto pb = *Codec(StorageMediaType::kProtobuf)->Encode(Cm(), kCmKey);
  auto js = *Codec(StorageMediaType::kJson)->Encode(Cm(), kCmKey);
  auto ym = *Codec(StorageMediaType::kYaml)->Encode(Cm(), kCmKey);
  for (auto t : {StorageMediaType::kJson, StorageMediaType::kYaml, StorageMediaType::kProtobuf}) {
    auto codec = Codec(t);
    for (const std::string& bytes : {pb, js, ym, "\n " + js}) {
      auto o = codec->Decode(bytes, kCmKey);
      ASSERT_TRUE(o.ok()) << o.status().message();
      EXPECT_EQ(*o, Cm());
    }
  }
}

TEST(StorageCodecTest, DamagedValuesAreAnErrorNamingTheKey) {
  auto codec = Codec(StorageMediaType::kProtobuf);
  auto pb = *codec->Encode(Cm(), kCmKey);
  for (const std::string& bad : {pb.substr(0, pb.size() / 2), std::string("k8s\0\xff\xff", 6), std::string("{\"a\":"),
                                 std::string("- [")}) {
    auto o = codec->Decode(bad, kCmKey);
    ASSERT_FALSE(o.ok());
    EXPECT_EQ(o.status().code(), 500);
    EXPECT_NE(o.status().message().find(kCmKey), std::string::npos) << o.status().message();
  }
}

TEST(StorageCodecTest, ObjectsTooDeepForProtobufAreKeptAsJson) {
  auto codec = Codec(StorageMediaType::kProtobuf);
  codec->RegisterResource("/registry/apiextensions.k8s.io/customresourcedefinitions",
                          {"apiextensions.k8s.io", "v1", "CustomResourceDefinition"});
  json::object crd = json::parse(R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",)"
                                 R"("metadata":{"name":"x"},"spec":{"group":"g"}})")
                         .as_object();
  json::value schema = json::object{{"type", "object"}};
  for (int i = 0; i < 300; ++i) schema = json::object{{"type", "object"}, {"properties", json::object{{"p", schema}}}};
  crd["spec"].as_object()["versions"] = json::array{json::object{{"name", "v1"}, {"schema", json::object{{"openAPIV3Schema", schema}}}}};
  const std::string key = "/registry/apiextensions.k8s.io/customresourcedefinitions/x";
  auto bytes = codec->Encode(crd, key);
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_FALSE(apimachinery::protobuf::HasEnvelopeMagic(*bytes));
  EXPECT_TRUE(codec->Decode(*bytes, key).ok());
}

// Every fixture kube's codec wrote reads through the storage codec and is written back as the same
// bytes (so a value kube left in etcd and the one Capstan writes for the same object are identical).
TEST(StorageCodecTest, UpstreamFixturesRoundTripByteForByte) {
  auto dir = apimachinery::testing::ApiFixtureDir();
  if (!dir) GTEST_SKIP() << "no fixtures: set CAPSTAN_API_FIXTURES to k8s-api-fixtures/HEAD";
  StorageCodec codec(StorageMediaType::kProtobuf, &BuiltinCodec());
  int round_trips = 0;
  for (const auto& entry : fs::directory_iterator(*dir)) {
    if (entry.path().extension() != ".pb") continue;
    const std::string pb = apimachinery::testing::ReadFileBytes(entry.path());
    auto envelope = apimachinery::protobuf::DecodeEnvelope(pb);
    ASSERT_TRUE(envelope.ok());
    auto gv = apimachinery::ParseGroupVersion(envelope->api_version);
    ASSERT_TRUE(gv.ok());
    apimachinery::GroupVersionKind gvk{gv->group, gv->version, envelope->kind};
    if (!BuiltinCodec().HasProtobufForm(gvk)) continue;  // a kind Capstan does not have (newer than 1.32)
    const std::string key = "/registry/fixture/" + entry.path().stem().string();
    codec.RegisterResource(key, gvk);
    auto obj = codec.Decode(pb, key);
    ASSERT_TRUE(obj.ok()) << entry.path() << ": " << obj.status().message();
    auto again = codec.Encode(*obj, key);
    ASSERT_TRUE(again.ok()) << entry.path() << ": " << again.status().message();
    EXPECT_EQ(apimachinery::testing::Hex(*again), apimachinery::testing::Hex(pb)) << entry.path();
    ++round_trips;
  }
  std::printf("[ storage ] fixtures read and written back byte for byte: %d\n", round_trips);
  EXPECT_GT(round_trips, 80);
}

class CodecObjectStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("capstan-codec-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    EmbeddedOptions opts;
    opts.dir = dir_.string();
    auto b = OpenEmbeddedBackend(opts);
    ASSERT_TRUE(b.ok()) << b.status().message();
    backend_ = std::move(*b);
    codec_ = Codec(StorageMediaType::kProtobuf);
    store_ = std::make_unique<BackendObjectStore>(*backend_, nullptr, codec_.get());
  }
  void TearDown() override {
    store_.reset();
    backend_.reset();
    fs::remove_all(dir_);
  }
  std::string Raw(const std::string& key) {
    auto raw = SyncWait(backend_->Get(key));
    EXPECT_TRUE(raw.ok() && raw->has_value());
    return raw.ok() && raw->has_value() ? (*raw)->value : "";
  }

  fs::path dir_;
  std::unique_ptr<Backend> backend_;
  std::unique_ptr<StorageCodec> codec_;
  std::unique_ptr<BackendObjectStore> store_;
};

TEST_F(CodecObjectStoreTest, StoresKubesBytesWithoutResourceVersion) {
  auto created = SyncWait(store_->Create(kCmKey, Cm(), 0));
  ASSERT_TRUE(created.ok()) << created.status().message();
  EXPECT_EQ(Raw(kCmKey), *BuiltinCodec().EncodeObject({"", "v1", "ConfigMap"}, Cm()));
  auto got = SyncWait(store_->Get(kCmKey, {}));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, *created);
  ASSERT_TRUE(SyncWait(store_->Create(kCrKey, Widget(), 0)).ok());
  EXPECT_EQ(Raw(kCrKey), json::serialize(Widget()));
}

TEST_F(CodecObjectStoreTest, JsonValuesWrittenBeforeStayReadableAndAreRewrittenOnUpdate) {
  // A data dir from before: the value is JSON.
  ASSERT_TRUE(SyncWait(backend_->Put(kCmKey, json::serialize(Cm()))).ok());
  auto got = SyncWait(store_->Get(kCmKey, {}));
  ASSERT_TRUE(got.ok()) << got.status().message();
  EXPECT_EQ(got->at("data").at("k"), "1");
  auto updated = SyncWait(store_->GuaranteedUpdate(kCmKey, {}, false, [](const Object* cur) -> Task<StatusOr<UpdateResult>> {
    Object o = *cur;
    o["data"].as_object()["k"] = "2";
    co_return UpdateResult{std::move(o), 0};
  }));
  ASSERT_TRUE(updated.ok()) << updated.status().message();
  EXPECT_TRUE(apimachinery::protobuf::HasEnvelopeMagic(Raw(kCmKey)));
}

TEST_F(CodecObjectStoreTest, AnUpdateThatEncodesToTheStoredBytesWritesNothing) {
  auto created = SyncWait(store_->Create(kCmKey, Cm(), 0));
  ASSERT_TRUE(created.ok());
  // An empty map where there was none: another JSON document, the same protobuf bytes (kube compares
  // the encodings), so no new revision.
  auto updated = SyncWait(store_->GuaranteedUpdate(kCmKey, {}, false, [](const Object* cur) -> Task<StatusOr<UpdateResult>> {
    Object o = *cur;
    o["binaryData"] = json::object();
    co_return UpdateResult{std::move(o), 0};
  }));
  ASSERT_TRUE(updated.ok());
  EXPECT_EQ(updated->at("metadata").at("resourceVersion"), created->at("metadata").at("resourceVersion"));
}

}  // namespace
}  // namespace capstan::storage
