// The rate-limited work queue: kube's dedup/processing rules, delayed and rate-limited adds, shutdown,
// rate limiters and the workqueue_* metrics.
#include "controllers/work_queue.h"

#include <gtest/gtest.h>

#include <thread>

#include "util/task.h"

namespace capstan::controllers {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

// A scheduler the test fires by hand.
struct ManualScheduler {
  struct Entry {
    Duration delay;
    std::function<void()> fn;
    bool cancelled = false;
  };
  struct Handle : TimerHandle {
    std::shared_ptr<Entry> e;
    bool Cancel() override {
      bool was = !e->cancelled;
      e->cancelled = true;
      return was;
    }
  };
  std::vector<std::shared_ptr<Entry>> entries;
  Scheduler AsScheduler() {
    return [this](Duration d, std::function<void()> fn) {
      auto e = std::make_shared<Entry>(Entry{d, std::move(fn)});
      entries.push_back(e);
      auto h = std::make_shared<Handle>();
      h->e = e;
      return h;
    };
  }
  void FireAll() {
    auto all = std::move(entries);
    entries.clear();
    for (auto& e : all) {
      if (!e->cancelled) e->fn();
    }
  }
};

class WorkQueueTest : public ::testing::Test {
 protected:
  std::unique_ptr<WorkQueue> MakeQueue(std::unique_ptr<RateLimiter> limiter = nullptr) {
    WorkQueueConfig c;
    c.name = "test_queue";
    c.limiter = limiter ? std::move(limiter) : std::make_unique<ItemExponentialFailureRateLimiter>(milliseconds(5), seconds(1000));
    c.metrics = &metrics_;
    c.clock = &clock_;
    c.scheduler = sched_.AsScheduler();
    return std::make_unique<WorkQueue>(std::move(c));
  }
  MetricsRegistry registry_;
  WorkQueueMetrics metrics_{registry_};
  FakeClock clock_;
  ManualScheduler sched_;
};

TEST_F(WorkQueueTest, AddingAWaitingItemTwiceQueuesItOnce) {
  auto q = MakeQueue();
  q->Add("a");
  q->Add("b");
  q->Add("a");
  EXPECT_EQ(q->Len(), 2u);
  EXPECT_EQ(q->TryGet(), "a");
  EXPECT_EQ(q->TryGet(), "b");
  EXPECT_EQ(q->TryGet(), std::nullopt);
}

TEST_F(WorkQueueTest, ItemAddedWhileProcessingIsQueuedAgainOnlyAtDone) {
  auto q = MakeQueue();
  q->Add("a");
  ASSERT_EQ(q->TryGet(), "a");
  q->Add("a");
  // Not handed to a second worker while the first one has it.
  EXPECT_EQ(q->Len(), 0u);
  EXPECT_EQ(q->TryGet(), std::nullopt);
  q->Done("a");
  EXPECT_EQ(q->Len(), 1u);
  EXPECT_EQ(q->TryGet(), "a");
  q->Done("a");
  EXPECT_EQ(q->TryGet(), std::nullopt);
}

TEST_F(WorkQueueTest, DoneWithoutReAddLeavesQueueEmpty) {
  auto q = MakeQueue();
  q->Add("a");
  ASSERT_EQ(q->TryGet(), "a");
  q->Done("a");
  EXPECT_EQ(q->Len(), 0u);
}

TEST_F(WorkQueueTest, AddAfterWaitsForTheTimerAndKeepsTheEarliestTime) {
  auto q = MakeQueue();
  q->AddAfter("a", seconds(10));
  q->AddAfter("a", seconds(5));   // earlier: replaces
  q->AddAfter("a", seconds(20));  // later: ignored
  EXPECT_EQ(q->Len(), 0u);
  EXPECT_EQ(q->Waiting(), 1u);
  ASSERT_EQ(sched_.entries.size(), 2u);
  EXPECT_EQ(sched_.entries[0]->delay, seconds(10));
  EXPECT_EQ(sched_.entries[1]->delay, seconds(5));
  sched_.FireAll();  // the superseded 10 s timer finds its time replaced and does nothing more
  EXPECT_EQ(q->Len(), 1u);
  EXPECT_EQ(q->Waiting(), 0u);
  EXPECT_EQ(q->TryGet(), "a");
}

TEST_F(WorkQueueTest, AddAfterZeroAddsAtOnce) {
  auto q = MakeQueue();
  q->AddAfter("a", Duration(0));
  EXPECT_EQ(q->Len(), 1u);
  EXPECT_TRUE(sched_.entries.empty());
}

TEST_F(WorkQueueTest, RateLimitedAddsBackOffExponentiallyUntilForgotten) {
  auto q = MakeQueue();
  std::vector<Duration> delays;
  for (int i = 0; i < 4; ++i) {
    q->AddRateLimited("a");
    ASSERT_EQ(sched_.entries.size(), 1u);
    delays.push_back(sched_.entries[0]->delay);
    sched_.FireAll();
    ASSERT_EQ(q->TryGet(), "a");
    q->Done("a");
  }
  EXPECT_EQ(delays, (std::vector<Duration>{milliseconds(5), milliseconds(10), milliseconds(20), milliseconds(40)}));
  EXPECT_EQ(q->NumRequeues("a"), 4);
  q->Forget("a");
  EXPECT_EQ(q->NumRequeues("a"), 0);
  q->AddRateLimited("a");
  EXPECT_EQ(sched_.entries.back()->delay, milliseconds(5));
}

TEST_F(WorkQueueTest, RateLimitedAddWhileWaitingKeepsTheEarlierTime) {
  auto q = MakeQueue();
  q->AddRateLimited("a");  // 5 ms
  q->AddRateLimited("a");  // 10 ms: later than the pending add, nothing new is scheduled
  EXPECT_EQ(sched_.entries.size(), 1u);
  EXPECT_EQ(q->NumRequeues("a"), 2);
}

TEST(RateLimiterTest, ItemExponentialFailureDoublesAndCaps) {
  ItemExponentialFailureRateLimiter l(milliseconds(5), seconds(1));
  EXPECT_EQ(l.When("x"), milliseconds(5));
  EXPECT_EQ(l.When("x"), milliseconds(10));
  EXPECT_EQ(l.When("x"), milliseconds(20));
  EXPECT_EQ(l.When("y"), milliseconds(5));
  for (int i = 0; i < 20; ++i) (void)l.When("x");
  EXPECT_EQ(l.When("x"), seconds(1));
  EXPECT_EQ(l.NumRequeues("y"), 1);
  l.Forget("x");
  EXPECT_EQ(l.When("x"), milliseconds(5));
}

TEST(RateLimiterTest, ExponentHugeDoesNotOverflow) {
  ItemExponentialFailureRateLimiter l(milliseconds(5), seconds(1000));
  Duration last{};
  for (int i = 0; i < 2000; ++i) last = l.When("x");
  EXPECT_EQ(last, seconds(1000));
}

TEST(RateLimiterTest, BucketAllowsBurstThenSpacesByQps) {
  FakeClock clock;
  BucketRateLimiter b(10, 3, clock);
  EXPECT_EQ(b.When("a"), Duration(0));
  EXPECT_EQ(b.When("b"), Duration(0));
  EXPECT_EQ(b.When("c"), Duration(0));
  EXPECT_EQ(b.When("d"), milliseconds(100));
  EXPECT_EQ(b.When("e"), milliseconds(200));
  clock.Advance(seconds(10));  // refills up to the burst
  EXPECT_EQ(b.When("f"), Duration(0));
}

TEST(RateLimiterTest, MaxOfTakesTheLongestAndCountsRequeues) {
  FakeClock clock;
  auto l = DefaultControllerRateLimiter(seconds(1000), clock);
  EXPECT_EQ(l->When("a"), milliseconds(5));
  EXPECT_EQ(l->NumRequeues("a"), 1);
  for (int i = 0; i < 200; ++i) (void)l->When("b");  // drains the bucket
  EXPECT_GT(l->When("c"), milliseconds(5));
}

TEST_F(WorkQueueTest, ShutDownDropsAddsAndEndsGets) {
  auto q = MakeQueue();
  q->AddAfter("later", seconds(1));
  q->ShutDown();
  q->Add("a");
  EXPECT_EQ(q->Len(), 0u);
  EXPECT_TRUE(q->ShuttingDown());
  EXPECT_TRUE(sched_.entries[0]->cancelled);
  auto got = SyncWait([](WorkQueue& wq) -> Task<std::optional<std::string>> { co_return co_await wq.Get(); }(*q));
  EXPECT_EQ(got, std::nullopt);
}

TEST_F(WorkQueueTest, GetSuspendsUntilAnAddFromAnotherThread) {
  auto q = MakeQueue();
  std::thread producer([&] {
    // Whether or not the consumer is already waiting, it gets the item.
    q->Add("x");
  });
  auto got = SyncWait([](WorkQueue& wq) -> Task<std::optional<std::string>> { co_return co_await wq.Get(); }(*q));
  producer.join();
  EXPECT_EQ(got, "x");
}

TEST_F(WorkQueueTest, WaitingGettersAreServedInOrderOneItemEach) {
  auto q = MakeQueue();
  std::vector<std::string> got;
  auto consumer = [&](WorkQueue& wq) -> Task<void> {
    auto k = co_await wq.Get();
    if (k) got.push_back(*k);
  };
  // Both consumers suspend (nothing queued), then two adds wake one each, inline (no executor).
  Spawn(consumer(*q));
  Spawn(consumer(*q));
  EXPECT_TRUE(got.empty());
  q->Add("1");
  q->Add("2");
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "1");
  EXPECT_EQ(got[1], "2");
}

TEST_F(WorkQueueTest, MetricsFollowKubesNames) {
  auto q = MakeQueue();
  q->Add("a");
  q->Add("b");
  q->Add("a");
  LabelValues l{"test_queue"};
  EXPECT_EQ(metrics_.adds.Find(l)->Value(), 2);
  EXPECT_EQ(metrics_.depth.Find(l)->Value(), 2);
  clock_.Advance(milliseconds(250));
  ASSERT_EQ(q->TryGet(), "a");
  EXPECT_EQ(metrics_.depth.Find(l)->Value(), 1);
  EXPECT_EQ(metrics_.queue_duration.Find(l)->Count(), 1u);
  EXPECT_DOUBLE_EQ(metrics_.queue_duration.Find(l)->Sum(), 0.25);
  clock_.Advance(seconds(2));
  q->UpdateUnfinishedWorkMetrics();
  EXPECT_DOUBLE_EQ(metrics_.unfinished_work.Find(l)->Value(), 2.0);
  EXPECT_DOUBLE_EQ(metrics_.longest_running.Find(l)->Value(), 2.0);
  q->Done("a");
  EXPECT_EQ(metrics_.work_duration.Find(l)->Count(), 1u);
  EXPECT_DOUBLE_EQ(metrics_.work_duration.Find(l)->Sum(), 2.0);
  q->AddRateLimited("a");
  EXPECT_EQ(metrics_.retries.Find(l)->Value(), 1);
  std::string text = registry_.Expose();
  for (const char* name : {"workqueue_adds_total{name=\"test_queue\"} 2", "workqueue_depth{name=\"test_queue\"} 1",
                           "workqueue_retries_total{name=\"test_queue\"} 1",
                           "# TYPE workqueue_queue_duration_seconds histogram",
                           "# TYPE workqueue_work_duration_seconds histogram"}) {
    EXPECT_NE(text.find(name), std::string::npos) << name << "\n" << text;
  }
}

TEST_F(WorkQueueTest, DestroyingTheQueueWithPendingTimersIsSafe) {
  auto q = MakeQueue();
  q->AddAfter("a", seconds(5));
  auto fn = sched_.entries[0]->fn;
  q.reset();
  fn();  // a timer firing after the queue is gone does nothing
  SUCCEED();
}

}  // namespace
}  // namespace capstan::controllers
