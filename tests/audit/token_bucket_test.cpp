#include "audit/token_bucket.h"

#include <gtest/gtest.h>

namespace capstan::audit {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

TEST(TokenBucketTest, StartsFullThenReservesAheadAtQps) {
  FakeClock clock;
  TokenBucket b(10, 2, clock);
  EXPECT_EQ(b.Reserve(), nanoseconds(0));
  EXPECT_EQ(b.Reserve(), nanoseconds(0));
  EXPECT_EQ(b.Reserve(), milliseconds(100));
  EXPECT_EQ(b.Reserve(), milliseconds(200));
  clock.Advance(milliseconds(200));  // pays back the two reserved tokens
  EXPECT_EQ(b.Reserve(), milliseconds(100));
}

TEST(TokenBucketTest, RefillsUpToBurstOnly) {
  FakeClock clock;
  TokenBucket b(10, 2, clock);
  clock.Advance(std::chrono::hours(1));
  EXPECT_EQ(b.Reserve(), nanoseconds(0));
  EXPECT_EQ(b.Reserve(), nanoseconds(0));
  EXPECT_EQ(b.Reserve(), milliseconds(100));
}

}  // namespace
}  // namespace capstan::audit
