// RunBlocking: the call runs on a pool thread, its result comes back to the awaiting coroutine on
// that coroutine's executor, and calls that wait run side by side.
#include "util/blocking_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace capstan {
namespace {

Task<int> Blocking(std::thread::id* ran_on, std::thread::id* resumed_on) {
  int v = co_await RunBlocking([&] {
    *ran_on = std::this_thread::get_id();
    return 42;
  });
  *resumed_on = std::this_thread::get_id();
  co_return v;
}

TEST(BlockingPoolTest, RunsOnAPoolThreadAndResumesOnTheAwaitersExecutor) {
  std::thread::id ran_on, resumed_on;
  EXPECT_EQ(SyncWait(Blocking(&ran_on, &resumed_on)), 42);
  EXPECT_NE(ran_on, std::this_thread::get_id());
  EXPECT_EQ(resumed_on, std::this_thread::get_id());
}

// All of kBlockingThreads calls wait for each other: they can only all return if they run at once.
TEST(BlockingPoolTest, CallsThatWaitRunSideBySide) {
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  std::atomic<int> met{0};
  auto meet = [&] {
    std::unique_lock lock(mu);
    ++arrived;
    cv.notify_all();
    if (cv.wait_for(lock, std::chrono::seconds(20), [&] { return arrived == kBlockingThreads; })) ++met;
    return true;
  };
  std::vector<std::thread> callers;
  for (int i = 0; i < kBlockingThreads; ++i) {
    callers.emplace_back([&] { SyncWait([&]() -> Task<bool> { co_return co_await RunBlocking(meet); }()); });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(met.load(), kBlockingThreads);
}

}  // namespace
}  // namespace capstan
