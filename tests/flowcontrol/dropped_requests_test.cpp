#include "flowcontrol/dropped_requests.h"

#include <gtest/gtest.h>

namespace capstan::flowcontrol {
namespace {

using std::chrono::seconds;

TEST(DroppedRequestsTest, RetryAfterGrowsUnderSustainedDropsAndRecovers) {
  FakeClock clock;
  DroppedRequestsTracker t(clock);
  EXPECT_EQ(t.RetryAfter("pl"), 1);
  t.RecordDroppedRequest("pl");
  EXPECT_EQ(t.RetryAfter("pl"), 1);
  // 3 drops in the previous second (>= 3 x 1): doubled on the next second's first drop.
  for (int i = 0; i < 2; ++i) t.RecordDroppedRequest("pl");
  clock.Advance(seconds(1));
  t.RecordDroppedRequest("pl");
  EXPECT_EQ(t.RetryAfter("pl"), 2);
  EXPECT_EQ(t.RetryAfter("other"), 1);
  // Sustained: 10 a second for a while, capped at 32.
  for (int s = 0; s < 120; ++s) {
    clock.Advance(seconds(1));
    for (int i = 0; i < 200; ++i) t.RecordDroppedRequest("pl");
  }
  EXPECT_EQ(t.RetryAfter("pl"), 32);
  // Quiet, then a drop every other second (fewer than retryAfter in its window): it steps down by
  // one at each. One drop every second would hold it where it is.
  clock.Advance(seconds(100));
  t.RecordDroppedRequest("pl");
  EXPECT_EQ(t.RetryAfter("pl"), 31);
  for (int s = 0; s < 40; ++s) {
    clock.Advance(seconds(2));
    t.RecordDroppedRequest("pl");
  }
  EXPECT_EQ(t.RetryAfter("pl"), 1);
}

}  // namespace
}  // namespace capstan::flowcontrol
