#include "util/timer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace capstan {
namespace {

using namespace std::chrono_literals;

// Collects the order in which timers fire.
struct Fired {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> order;
  void Add(int i) {
    std::lock_guard lock(mu);
    order.push_back(i);
    cv.notify_all();
  }
  bool WaitFor(size_t n) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, 30s, [&] { return order.size() >= n; });
  }
};

TEST(TimerTest, FiresInDeadlineOrderWhateverTheOrderTheyWereSet) {
  Fired f;
  auto c = RunAfter(60ms, [&] { f.Add(3); });
  auto a = RunAfter(20ms, [&] { f.Add(1); });
  auto b = RunAfter(40ms, [&] { f.Add(2); });
  ASSERT_TRUE(f.WaitFor(3));
  EXPECT_EQ(f.order, (std::vector<int>{1, 2, 3}));
  EXPECT_FALSE(a->Cancel()) << "a fired timer cannot be cancelled";
}

TEST(TimerTest, EqualDeadlinesFireInTheOrderTheyWereSet) {
  Fired f;
  std::vector<std::shared_ptr<TimerHandle>> hs;
  for (int i = 0; i < 50; ++i) hs.push_back(RunAfter(0ms, [&f, i] { f.Add(i); }));
  ASSERT_TRUE(f.WaitFor(50));
  for (int i = 0; i < 50; ++i) EXPECT_EQ(f.order[i], i);
}

TEST(TimerTest, CancelBeforeTheDeadlineStopsItAndReleasesWhatItHolds) {
  Fired f;
  auto held = std::make_shared<int>(7);
  std::weak_ptr<int> weak = held;
  auto h = RunAfter(1h, [&f, held] { f.Add(*held); });
  held.reset();
  EXPECT_FALSE(weak.expired());
  EXPECT_TRUE(h->Cancel());
  // A cancelled timer keeps nothing until its deadline (request deadlines are cancelled by the
  // thousand per second and are due only much later).
  EXPECT_TRUE(weak.expired());
  EXPECT_FALSE(h->Cancel()) << "second cancel";
  // A later timer still fires after the cancelled earlier one is gone.
  auto later = RunAfter(10ms, [&] { f.Add(1); });
  ASSERT_TRUE(f.WaitFor(1));
  EXPECT_EQ(f.order, (std::vector<int>{1}));
}

TEST(TimerTest, AnEarlierTimerSetAfterALaterOneIsNotHeldBack) {
  Fired f;
  auto late = RunAfter(1h, [&] { f.Add(2); });
  auto early = RunAfter(10ms, [&] { f.Add(1); });
  ASSERT_TRUE(f.WaitFor(1));
  EXPECT_EQ(f.order, (std::vector<int>{1}));
  EXPECT_TRUE(late->Cancel());
}

TEST(TimerTest, CancelWhileRunningWaitsUntilTheCallbackHasReturned) {
  std::atomic<bool> started{false};
  std::atomic<bool> finished{false};
  auto h = RunAfter(0ms, [&] {
    started = true;
    std::this_thread::sleep_for(100ms);
    finished = true;
  });
  while (!started) std::this_thread::sleep_for(1ms);
  EXPECT_FALSE(h->Cancel());
  EXPECT_TRUE(finished.load());
}

TEST(TimerTest, ManyThreadsSettingAndCancelling) {
  std::atomic<int> fired{0};
  std::atomic<int> cancelled{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        auto h = RunAfter(std::chrono::microseconds(i % 3 == 0 ? 0 : 3600'000'000LL), [&] { ++fired; });
        if (h->Cancel()) ++cancelled;
      }
    });
  }
  for (auto& t : ts) t.join();
  // Each timer either fired (due at once and not cancelled in time) or was cancelled: never both,
  // never neither.
  for (int i = 0; i < 3000 && fired + cancelled < 8000; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(fired + cancelled, 8000);
}

}  // namespace
}  // namespace capstan
