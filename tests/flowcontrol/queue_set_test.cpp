#include "flowcontrol/queue_set.h"

#include <gtest/gtest.h>

#include <functional>

namespace capstan::flowcontrol {
namespace {

using std::chrono::milliseconds;

std::unique_ptr<QueueSet> Make(FakeClock& clock, int queues, int hand, int qll, int limit) {
  auto qs = QueueSet::Make(clock, {"pl", queues, qll, hand});
  EXPECT_TRUE(qs.ok());
  Decided d;
  (*qs)->SetConcurrencyLimit(limit, d);
  return std::move(*qs);
}

WorkEstimate Seats(int n) { return WorkEstimate{n, 0, {}}; }

TEST(QueueSetTest, WithoutQueuesRejectsBeyondTheLimit) {
  FakeClock clock;
  auto qs = Make(clock, 0, 0, 0, 2);
  Decided d;
  auto a = qs->Start(Seats(1), 0, "fs", "", d);
  auto b = qs->Start(Seats(1), 0, "fs", "", d);
  auto c = qs->Start(Seats(1), 0, "fs", "", d);
  EXPECT_EQ(a->decision, Decision::kExecute);
  EXPECT_EQ(b->decision, Decision::kExecute);
  EXPECT_EQ(c->decision, Decision::kReject);
  EXPECT_EQ(c->reason, RejectReason::kConcurrencyLimit);
  EXPECT_STREQ(RejectReasonLabel(c->reason), "concurrency-limit");
  qs->Finish(*a, d);
  EXPECT_EQ(qs->Start(Seats(1), 0, "fs", "", d)->decision, Decision::kExecute);
  auto counters = qs->Counters();
  EXPECT_EQ(counters.executing, 2);
  EXPECT_EQ(counters.rejected, 1u);
  EXPECT_EQ(counters.dispatched, 3u);
}

TEST(QueueSetTest, RejectsWhenTheChosenQueueIsFull) {
  FakeClock clock;
  auto qs = Make(clock, 1, 1, 2, 1);
  Decided d;
  EXPECT_EQ(qs->Start(Seats(1), 0, "fs", "", d)->decision, Decision::kExecute);
  EXPECT_EQ(qs->Start(Seats(1), 0, "fs", "", d)->decision, Decision::kPending);
  EXPECT_EQ(qs->Start(Seats(1), 0, "fs", "", d)->decision, Decision::kPending);
  auto full = qs->Start(Seats(1), 0, "fs", "", d);
  EXPECT_EQ(full->decision, Decision::kReject);
  EXPECT_EQ(full->reason, RejectReason::kQueueFull);
  EXPECT_EQ(qs->Counters().waiting, 2);
}

// Flow A fills its queue before flow B arrives; fair queuing serves B's one request next, where a
// FIFO would serve all of A's first.
TEST(QueueSetTest, ServesTheFlowWithTheEarliestVirtualFinishFirst) {
  FakeClock clock;
  auto qs = Make(clock, 8, 1, 50, 1);  // hand size 1: hash h goes to queue h % 8
  Decided d;
  auto a1 = qs->Start(Seats(1), 0, "fs", "A", d);
  std::vector<RequestPtr> a;
  for (int i = 0; i < 3; ++i) a.push_back(qs->Start(Seats(1), 0, "fs", "A", d));
  auto b1 = qs->Start(Seats(1), 1, "fs", "B", d);
  ASSERT_EQ(a1->decision, Decision::kExecute);
  ASSERT_EQ(b1->decision, Decision::kPending);
  clock.Advance(milliseconds(1));
  d.clear();
  qs->Finish(*a1, d);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], b1);
  EXPECT_EQ(a[0]->decision, Decision::kPending);
}

// Flows A (queue 0) and B (queue 1) each queue 5 requests behind a blocker, at one seat; each
// request runs `service(flow)`. Returns the flows in dispatch order.
std::string DispatchOrder(const std::function<int(const std::string&)>& service_ms) {
  FakeClock clock;
  auto qs = Make(clock, 8, 1, 50, 1);
  Decided d;
  RequestPtr running = qs->Start(Seats(1), 2, "fs", "X", d);
  for (int i = 0; i < 5; ++i) qs->Start(Seats(1), 0, "fs", "A", d);
  for (int i = 0; i < 5; ++i) qs->Start(Seats(1), 1, "fs", "B", d);
  std::string order;
  for (int i = 0; i < 10; ++i) {
    clock.Advance(milliseconds(service_ms(running->distinguisher)));
    d.clear();
    qs->Finish(*running, d);
    if (d.size() != 1u) return order + "?";
    running = d[0];
    order += running->distinguisher;
  }
  return order;
}

TEST(QueueSetTest, AlternatesBetweenTwoEqualFlows) {
  std::string order = DispatchOrder([](const std::string&) { return 2; });
  ASSERT_EQ(order.size(), 10u);
  for (size_t i = 1; i < order.size(); ++i) EXPECT_NE(order[i], order[i - 1]) << order;
}

// A's requests each run 30ms, B's 1ms: virtual time charges the service actually used, so B gets
// several turns in a row after each of A's (round robin would alternate them).
TEST(QueueSetTest, ChargesFlowsForTheServiceTheyUsed) {
  std::string order = DispatchOrder([](const std::string& flow) { return flow == "A" ? 30 : 1; });
  ASSERT_EQ(order.size(), 10u);
  EXPECT_NE(order.find("BBB"), std::string::npos) << order;
}

TEST(QueueSetTest, CancelRemovesAWaitingRequest) {
  FakeClock clock;
  auto qs = Make(clock, 4, 2, 10, 1);
  Decided d;
  auto running = qs->Start(Seats(1), 5, "fs", "", d);
  auto waiting = qs->Start(Seats(1), 5, "fs", "", d);
  ASSERT_EQ(waiting->decision, Decision::kPending);
  EXPECT_TRUE(qs->Cancel(*waiting, RejectReason::kTimeOut, d));
  EXPECT_EQ(waiting->decision, Decision::kReject);
  EXPECT_FALSE(qs->Cancel(*waiting, RejectReason::kTimeOut, d));
  EXPECT_FALSE(qs->Cancel(*running, RejectReason::kTimeOut, d));
  auto c = qs->Counters();
  EXPECT_EQ(c.waiting, 0);
  EXPECT_EQ(c.rejected, 1u);
  EXPECT_EQ(c.cancelled, 1u);
  d.clear();
  qs->Finish(*running, d);
  EXPECT_TRUE(d.empty());
  EXPECT_TRUE(qs->IsIdle());
}

TEST(QueueSetTest, SeatsLimitWhatRunsTogether) {
  FakeClock clock;
  auto qs = Make(clock, 0, 0, 0, 4);
  Decided d;
  auto wide = qs->Start(Seats(3), 0, "fs", "", d);
  EXPECT_EQ(wide->decision, Decision::kExecute);
  EXPECT_EQ(qs->Start(Seats(2), 0, "fs", "", d)->decision, Decision::kReject);
  EXPECT_EQ(qs->Start(Seats(1), 0, "fs", "", d)->decision, Decision::kExecute);
  EXPECT_EQ(qs->Counters().seats_in_use, 4);
  // Wider than the whole limit: runs, but only alone.
  auto qs2 = Make(clock, 0, 0, 0, 2);
  auto huge = qs2->Start(Seats(5), 0, "fs", "", d);
  EXPECT_EQ(huge->decision, Decision::kExecute);
  EXPECT_EQ(qs2->Start(Seats(1), 0, "fs", "", d)->decision, Decision::kReject);
}

TEST(QueueSetTest, QueuedWideRequestWaitsForItsSeats) {
  FakeClock clock;
  auto qs = Make(clock, 1, 1, 10, 3);
  Decided d;
  auto a = qs->Start(Seats(2), 0, "fs", "", d);
  auto b = qs->Start(Seats(2), 0, "fs", "", d);
  EXPECT_EQ(a->decision, Decision::kExecute);
  EXPECT_EQ(b->decision, Decision::kPending);  // 2+2 > 3
  d.clear();
  qs->Finish(*a, d);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0], b);
}

TEST(QueueSetTest, FinalSeatsLingerAfterFinish) {
  FakeClock clock;
  auto qs = Make(clock, 0, 0, 0, 2);
  Decided d;
  auto w = qs->Start(WorkEstimate{1, 2, milliseconds(5)}, 0, "fs", "", d);
  ASSERT_EQ(w->decision, Decision::kExecute);
  auto linger = qs->Finish(*w, d);
  ASSERT_TRUE(linger);
  EXPECT_EQ(*linger, milliseconds(5));
  EXPECT_EQ(qs->Counters().executing, 0);
  EXPECT_EQ(qs->Counters().seats_in_use, 2);
  EXPECT_EQ(qs->Start(Seats(1), 0, "fs", "", d)->decision, Decision::kReject);
  qs->ReleaseFinalSeats(*w, d);
  EXPECT_EQ(qs->Counters().seats_in_use, 0);
  EXPECT_EQ(qs->Start(Seats(1), 0, "fs", "", d)->decision, Decision::kExecute);
}

TEST(QueueSetTest, ExemptExecutesEverything) {
  FakeClock clock;
  auto qs = Make(clock, -1, 0, 0, 0);
  Decided d;
  for (int i = 0; i < 100; ++i) EXPECT_EQ(qs->Start(Seats(1), 0, "fs", "", d)->decision, Decision::kExecute);
  EXPECT_EQ(qs->Counters().executing, 100);
}

TEST(QueueSetTest, RaisingTheLimitDispatchesWaiters) {
  FakeClock clock;
  auto qs = Make(clock, 4, 2, 10, 1);
  Decided d;
  qs->Start(Seats(1), 1, "fs", "", d);
  auto w1 = qs->Start(Seats(1), 2, "fs", "", d);
  auto w2 = qs->Start(Seats(1), 3, "fs", "", d);
  d.clear();
  qs->SetConcurrencyLimit(3, d);
  EXPECT_EQ(d.size(), 2u);
  EXPECT_EQ(w1->decision, Decision::kExecute);
  EXPECT_EQ(w2->decision, Decision::kExecute);
}

// A long pseudo-random mix of arrivals, cancellations and completions of various widths keeps the
// incrementally kept totals (active queues, seats requested, waiting) equal to a recount.
TEST(QueueSetTest, TotalsStayConsistentThroughARandomMix) {
  FakeClock clock;
  auto qs = Make(clock, 16, 4, 5, 6);
  Decided d;
  std::vector<RequestPtr> live;
  uint64_t x = 88172645463325252ULL;  // xorshift64
  auto next = [&] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  int executed = 0;
  for (int step = 0; step < 5000; ++step) {
    clock.Advance(milliseconds(next() % 3));
    uint64_t op = next() % 10;
    if (op < 5 || live.empty()) {
      WorkEstimate w{static_cast<int>(1 + next() % 3), static_cast<int>(next() % 3), milliseconds(next() % 2)};
      auto r = qs->Start(w, next(), "fs", "", d);
      if (r->decision != Decision::kReject) live.push_back(r);
    } else {
      size_t i = next() % live.size();
      RequestPtr r = live[i];
      if (r->decision == Decision::kPending) {
        qs->Cancel(*r, RejectReason::kTimeOut, d);
      } else if (r->decision == Decision::kExecute) {
        ++executed;
        if (qs->Finish(*r, d)) qs->ReleaseFinalSeats(*r, d);
      }
      live.erase(live.begin() + static_cast<long>(i));
    }
    ASSERT_TRUE(qs->TotalsConsistent()) << "step " << step;
  }
  EXPECT_GT(executed, 100);
}

}  // namespace
}  // namespace capstan::flowcontrol
