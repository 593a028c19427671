#include "util/fan_out.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "util/async.h"
#include "util/executor.h"

namespace capstan {
namespace {

TEST(FanOut, RunsEveryIndexOnceWithAtMostLimitInFlight) {
  std::vector<int> seen(50, 0);
  int in_flight = 0, max_in_flight = 0;
  SyncWait([&]() -> Task<void> {
    co_await ForEachConcurrently(seen.size(), 4, [&](size_t i) -> Task<void> {
      ++in_flight;
      max_in_flight = std::max(max_in_flight, in_flight);
      co_await Yield();  // let the others start
      ++seen[i];
      --in_flight;
    });
  }());
  for (int v : seen) EXPECT_EQ(v, 1);
  EXPECT_EQ(max_in_flight, 4);
  EXPECT_EQ(in_flight, 0);
}

TEST(FanOut, SynchronousBodiesAndEmptyRangesComplete) {
  int sum = 0;
  SyncWait([&]() -> Task<void> {
    co_await ForEachConcurrently(0, 8, [&](size_t) -> Task<void> { ++sum; co_return; });
    co_await ForEachConcurrently(10, 3, [&](size_t i) -> Task<void> { sum += static_cast<int>(i); co_return; });
    co_await ForEachConcurrently(3, 0, [&](size_t) -> Task<void> { sum += 100; co_return; });
  }());
  EXPECT_EQ(sum, 45 + 300);
}

TEST(FanOut, CallerWaitsForTheSlowest) {
  AsyncEvent release;
  bool done = false, finished_last = false;
  auto loop = std::make_shared<LocalLoop>();
  ExecutorScope scope(loop);
  Spawn([&]() -> Task<void> {
    co_await ForEachConcurrently(3, 3, [&](size_t i) -> Task<void> {
      if (i == 1) {
        co_await release.Wait();
        finished_last = true;
      }
    });
    done = true;
    loop->Stop();
  }());
  EXPECT_FALSE(done);
  release.Set();
  loop->Run();
  EXPECT_TRUE(done);
  EXPECT_TRUE(finished_last);
}

}  // namespace
}  // namespace capstan
