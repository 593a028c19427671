// cmd::StorageSetup on the embedded store: --storage-media-type is checked, and objects under the
// keys earlier releases used (ingresses, APIServices) move to kube's keys.
#include "cmd/storage_setup.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "storage/backend_object_store.h"
#include "temp_dir.h"

namespace capstan::cmd {
namespace {

namespace json = boost::json;

TEST(StorageSetupTest, RefusesAStorageMediaTypeKubeRefuses) {
  testing::TempDir dir;
  Options o;
  o.data_dir = dir.path();
  o.storage_media_type = "application/cbor";
  MetricsRegistry metrics;
  auto s = StorageSetup::Open(o, metrics, nullptr);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("--storage-media-type \"application/cbor\" invalid"), std::string::npos);
}

TEST(StorageSetupTest, MovesObjectsFromEarlierKeysToKubesKeys) {
  testing::TempDir dir;
  Options o;
  o.data_dir = dir.path();
  MetricsRegistry metrics;
  auto s = StorageSetup::Open(o, metrics, nullptr);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto backend = (*s)->TakeBackend();
  storage::BackendObjectStore objects(*backend, (*s)->transformer(), (*s)->codec());
  auto ing = json::parse(R"({"apiVersion":"networking.k8s.io/v1","kind":"Ingress",)"
                         R"("metadata":{"name":"web","namespace":"shop","uid":"u1"},"spec":{}})")
                 .as_object();
  auto svc = json::parse(R"({"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService",)"
                         R"("metadata":{"name":"v1.example.com","uid":"u2"},"spec":{"group":"example.com"}})")
                 .as_object();
  ASSERT_TRUE(SyncWait(objects.Create("/registry/ingresses/shop/web", ing, 0)).ok());
  ASSERT_TRUE(SyncWait(objects.Create("/registry/apiservices/v1.example.com", svc, 0)).ok());

  ASSERT_TRUE((*s)->MoveLegacyKeys(objects).ok());
  auto moved = SyncWait(objects.Get("/registry/ingress/shop/web", {}));
  ASSERT_TRUE(moved.ok()) << moved.status().message();
  EXPECT_EQ(moved->at("metadata").at("uid"), "u1");
  EXPECT_TRUE(SyncWait(objects.Get("/registry/apiregistration.k8s.io/apiservices/v1.example.com", {})).ok());
  EXPECT_TRUE(SyncWait(objects.Get("/registry/ingresses/shop/web", {})).status().IsStorage(StorageCode::kKeyNotFound));
  EXPECT_TRUE(SyncWait(objects.Get("/registry/apiservices/v1.example.com", {})).status().IsStorage(StorageCode::kKeyNotFound));
  // Nothing left to move: a second start changes nothing.
  ASSERT_TRUE((*s)->MoveLegacyKeys(objects).ok());
  EXPECT_TRUE(SyncWait(objects.Get("/registry/ingress/shop/web", {})).ok());
}

}  // namespace
}  // namespace capstan::cmd
