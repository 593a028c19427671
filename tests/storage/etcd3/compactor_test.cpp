// The compactor's rounds, two replicas sharing one store (the embedded one: the algorithm only uses
// storage::Backend).
#include "storage/etcd3/compactor.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "storage/embedded/embedded_backend.h"

namespace capstan::storage::etcd3 {
namespace {

class CompactorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capstan-compactor-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    EmbeddedOptions o;
    o.dir = dir_;
    o.compaction_interval = std::chrono::seconds(0);
    auto b = OpenEmbeddedBackend(o);
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    backend_ = std::move(*b);
  }
  void TearDown() override {
    backend_.reset();
    std::filesystem::remove_all(dir_);
  }
  int64_t Write(int n) {
    int64_t rev = 0;
    for (int i = 0; i < n; ++i) rev = SyncWait(backend_->Put("/registry/x", std::to_string(i)))->revision;
    return rev;
  }
  int64_t CompactRevision() { return SyncWait(backend_->GetStatus())->compact_revision; }
  CompactRound Round(Compactor& c) {
    auto r = SyncWait(c.RunOnce());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : CompactRound{};
  }

  std::string dir_;
  std::unique_ptr<Backend> backend_;
};

TEST_F(CompactorTest, FirstRoundOnlyStartsTheClock) {
  Compactor a(*backend_);
  Write(3);
  auto r = Round(a);
  EXPECT_TRUE(r.won);
  EXPECT_EQ(r.compacted_to, 0);
  EXPECT_EQ(r.logical_time, 1);
  EXPECT_EQ(CompactRevision(), 0);
  auto kv = SyncWait(backend_->Get(kCompactRevKey));
  ASSERT_TRUE(kv.ok() && kv->has_value());
  EXPECT_EQ((*kv)->version, 1);
}

TEST_F(CompactorTest, OneReplicaCompactsPerIntervalToTheRevisionOfTheIntervalBefore) {
  Compactor a(*backend_), b(*backend_);
  Write(5);
  auto a1 = Round(a);
  auto b1 = Round(b);
  EXPECT_TRUE(a1.won);
  EXPECT_FALSE(b1.won);  // a bumped the key's version first
  EXPECT_EQ(b1.logical_time, 1);
  int64_t seen_by_a = a1.revision;
  Write(5);
  auto a2 = Round(a);
  auto b2 = Round(b);
  EXPECT_TRUE(a2.won);
  EXPECT_FALSE(b2.won);
  EXPECT_EQ(a2.compacted_to, seen_by_a);
  EXPECT_EQ(b2.compacted_to, 0);
  EXPECT_EQ(CompactRevision(), seen_by_a);
  // Now b runs first in the interval: it wins, compacting to what it saw an interval ago.
  int64_t seen_by_b = b2.revision;
  Write(5);
  auto b3 = Round(b);
  auto a3 = Round(a);
  EXPECT_TRUE(b3.won);
  EXPECT_FALSE(a3.won);
  EXPECT_EQ(b3.compacted_to, seen_by_b);
  EXPECT_EQ(CompactRevision(), seen_by_b);
}

TEST_F(CompactorTest, ANewReplicaJoinsTheScheduleWithoutCompacting) {
  Compactor a(*backend_);
  Round(a);
  Write(2);
  Round(a);
  Compactor late(*backend_);
  auto r = Round(late);  // compares version 0 with the key's 2
  EXPECT_FALSE(r.won);
  EXPECT_EQ(r.logical_time, 2);
  EXPECT_EQ(r.compacted_to, 0);
}

}  // namespace
}  // namespace capstan::storage::etcd3
