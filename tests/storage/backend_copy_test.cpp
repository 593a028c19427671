// storage::CopyKeys (capstan migrate): every key under the prefix with its value, read at one
// revision, leases recreated, an occupied target refused. Embedded to embedded here; the etcd legs
// run in tests/e2e/migrate_test.cpp.
#include "storage/backend_copy.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "storage/embedded/embedded_backend.h"
#include "util/task.h"

namespace capstan::storage {
namespace {

namespace fs = std::filesystem;

class BackendCopyTest : public ::testing::Test {
 protected:
  std::unique_ptr<Backend> Open(const std::string& name) {
    EmbeddedOptions o;
    o.dir = (dir_ / name).string();
    auto b = OpenEmbeddedBackend(o);
    EXPECT_TRUE(b.ok()) << b.status().message();
    return b.ok() ? std::move(*b) : nullptr;
  }
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("capstan-copy-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(BackendCopyTest, CopiesEveryKeyUnderThePrefixWithItsValueAndLease) {
  auto from = Open("a");
  auto to = Open("b");
  ASSERT_TRUE(from && to);
  // More keys than a page and a batch; binary values; a key outside the prefix.
  for (int i = 0; i < 620; ++i) {
    std::string value = std::string("k8s\0", 4) + std::to_string(i);
    ASSERT_TRUE(SyncWait(from->Put("/registry/configmaps/ns/c" + std::to_string(i), value)).ok());
  }
  ASSERT_TRUE(SyncWait(from->Delete("/registry/configmaps/ns/c7")).ok());
  ASSERT_TRUE(SyncWait(from->Put("/other/key", "x")).ok());
  auto lease = SyncWait(from->LeaseGrant(3600));
  ASSERT_TRUE(lease.ok());
  ASSERT_TRUE(SyncWait(from->Put("/registry/events/ns/e", "event", lease->id)).ok());

  auto stats = CopyKeys(*from, *to, "/registry/");
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->keys, 620);  // 619 configmaps + the event
  EXPECT_EQ(stats->leases, 1);
  auto c5 = SyncWait(to->Get("/registry/configmaps/ns/c5"));
  ASSERT_TRUE(c5.ok() && c5->has_value());
  EXPECT_EQ((*c5)->value, std::string("k8s\0", 4) + "5");
  EXPECT_FALSE(SyncWait(to->Get("/registry/configmaps/ns/c7"))->has_value());
  EXPECT_FALSE(SyncWait(to->Get("/other/key"))->has_value());
  auto e = SyncWait(to->Get("/registry/events/ns/e"));
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_NE((*e)->lease, 0);
  EXPECT_TRUE(SyncWait(to->LeaseKeepAlive((*e)->lease)).ok());

  // The target now holds keys: a second copy is refused and writes nothing.
  auto again = CopyKeys(*from, *to, "/registry/");
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.status().IsStorage(StorageCode::kKeyExists)) << again.status().message();
}

}  // namespace
}  // namespace capstan::storage
