#include "storage/embedded/lease_table.h"

#include <gtest/gtest.h>

namespace capstan::storage::embedded {
namespace {

using namespace std::chrono_literals;

TEST(LeaseTableTest, DeadlinesFollowTheClockAndKeepAlive) {
  FakeClock clock;
  LeaseTable t(clock);
  t.Add(1, 10);
  t.Add(2, 5);
  clock.Advance(4s);
  EXPECT_TRUE(t.TakeExpired().empty());
  auto ka = t.KeepAlive(2);  // 2 now lives until t+9s
  ASSERT_TRUE(ka.ok());
  EXPECT_EQ(*ka, 5);
  clock.Advance(5s);  // t+9s: lease 2 is due, lease 1 (t+10s) is not
  EXPECT_EQ(t.TakeExpired(), std::vector<int64_t>{2});
  EXPECT_TRUE(t.TakeExpired().empty());  // handed out once
  EXPECT_TRUE(t.KeepAlive(2).status().IsStorage(StorageCode::kKeyNotFound));
  EXPECT_TRUE(t.Exists(2));  // until its revoke commits
  EXPECT_TRUE(t.KeepAlive(1).ok());  // renewed to t+19s
  clock.Advance(10s);
  EXPECT_EQ(t.TakeExpired(), std::vector<int64_t>{1});
  EXPECT_TRUE(t.Remove(1));
  EXPECT_FALSE(t.Remove(1));
  EXPECT_TRUE(t.KeepAlive(7).status().IsStorage(StorageCode::kKeyNotFound));
}

TEST(LeaseTableTest, KeysAreSortedAndDetachable) {
  FakeClock clock;
  LeaseTable t(clock);
  t.Add(1, 60);
  t.Attach(1, "/b");
  t.Attach(1, "/a");
  t.Attach(1, "/c");
  t.Detach(1, "/c");
  t.Attach(99, "/ignored");  // no such lease
  EXPECT_EQ(t.Keys(1), (std::vector<std::string>{"/a", "/b"}));
  EXPECT_TRUE(t.Keys(99).empty());
}

}  // namespace
}  // namespace capstan::storage::embedded
