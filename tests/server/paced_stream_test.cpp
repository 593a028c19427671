// BytePacer: --max-connection-bytes-per-sec's arithmetic, at explicit points in time.
#include "server/http/paced_stream.h"

#include <gtest/gtest.h>

namespace capstan::http {
namespace {

using namespace std::chrono_literals;
using Clock = BytePacer::Clock;

TEST(BytePacerTest, OneSecondsWorthPassesAtOnce) {
  BytePacer p(1000);
  Clock::time_point t0{};
  EXPECT_EQ(p.Reserve(600, t0), Clock::duration::zero());
  EXPECT_EQ(p.Reserve(400, t0), Clock::duration::zero());
}

TEST(BytePacerTest, BeyondTheBurstEachByteWaitsItsTurn) {
  BytePacer p(1000);
  Clock::time_point t0{};
  EXPECT_EQ(p.Reserve(1000, t0), Clock::duration::zero());
  // 500 more bytes at the same instant: half a second of debt.
  EXPECT_EQ(p.Reserve(500, t0), std::chrono::duration_cast<Clock::duration>(500ms));
  // Having waited it off, the next 250 bytes wait a quarter second.
  EXPECT_EQ(p.Reserve(250, t0 + 500ms), std::chrono::duration_cast<Clock::duration>(250ms));
}

TEST(BytePacerTest, IdleTimeRefillsUpToOneSecond) {
  BytePacer p(1000);
  Clock::time_point t0{};
  EXPECT_EQ(p.Reserve(1000, t0), Clock::duration::zero());
  // Ten idle seconds refill only one second's worth.
  EXPECT_EQ(p.Reserve(1000, t0 + 10s), Clock::duration::zero());
  EXPECT_EQ(p.Reserve(100, t0 + 10s), std::chrono::duration_cast<Clock::duration>(100ms));
}

TEST(BytePacerTest, ALargeTransferAveragesTheRate) {
  BytePacer p(32 * 1024);
  Clock::time_point now{};
  // 1 MiB in 16 KiB writes, each sent after its wait: 31 seconds past the first second's burst.
  for (int i = 0; i < 64; ++i) now += p.Reserve(16 * 1024, now);
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::milliseconds>(now - Clock::time_point{}).count(), 31000);
}

TEST(BytePacerTest, ANonPositiveRateIsOneBytePerSecond) {
  BytePacer p(0);
  Clock::time_point t0{};
  EXPECT_EQ(p.Reserve(1, t0), Clock::duration::zero());
  EXPECT_EQ(p.Reserve(2, t0), std::chrono::duration_cast<Clock::duration>(2s));
}

}  // namespace
}  // namespace capstan::http
