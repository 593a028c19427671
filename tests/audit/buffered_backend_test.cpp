#include "audit/buffered_backend.h"

#include <gtest/gtest.h>

#include "audit_test_util.h"

namespace capstan::audit {
namespace {

using testing::MakeEvent;
using testing::RecordingBackend;

BatchConfig Config(size_t buffer, size_t max_batch, std::chrono::milliseconds wait, bool async) {
  BatchConfig c;
  c.buffer_size = buffer;
  c.max_batch_size = max_batch;
  c.max_batch_wait = wait;
  c.throttle_enable = false;
  c.async_delegate = async;
  return c;
}

TEST(BufferedBackendTest, FullBufferDropsAndCountsWithoutBlocking) {
  MetricsRegistry reg;
  AuditMetrics metrics(reg);
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  r->hold = true;
  BufferedBackend b(std::move(rec), Config(3, 1, std::chrono::milliseconds(0), false), &metrics);
  EXPECT_TRUE(b.ProcessEvents({MakeEvent("0")}));
  r->WaitCalls(1);  // the batching thread holds event 0 in the delegate
  for (int i = 1; i < 10; ++i) EXPECT_TRUE(b.ProcessEvents({MakeEvent(std::to_string(i))}));
  // 1..3 wait in the buffer; 4..9 do not fit.
  EXPECT_EQ(b.dropped(), 6u);
  EXPECT_EQ(metrics.errors.Find({"buffered"})->Value(), 6.0);
  r->Release();
  b.Shutdown();
  EXPECT_EQ(r->Ids(), (std::vector<std::string>{"0", "1", "2", "3"}));
  EXPECT_TRUE(r->shut_down);
}

TEST(BufferedBackendTest, CollectsBatchesUpToMaxBatchSize) {
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  r->hold = true;
  BufferedBackend b(std::move(rec), Config(100, 3, std::chrono::hours(1), false), nullptr);
  EXPECT_TRUE(b.ProcessEvents({MakeEvent("a"), MakeEvent("b"), MakeEvent("c"), MakeEvent("d")}));
  r->WaitCalls(1);  // a full batch goes at once, without waiting for max_batch_wait
  r->Release();
  b.Shutdown();  // d goes out at shutdown
  ASSERT_EQ(r->batches.size(), 2u);
  EXPECT_EQ(r->batches[0].size(), 3u);
  EXPECT_EQ(r->batches[1].size(), 1u);
  EXPECT_EQ(r->Ids(), (std::vector<std::string>{"a", "b", "c", "d"}));
}

TEST(BufferedBackendTest, AnIncompleteBatchGoesAfterMaxBatchWait) {
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  BufferedBackend b(std::move(rec), Config(100, 400, std::chrono::milliseconds(20), false), nullptr);
  EXPECT_TRUE(b.ProcessEvents({MakeEvent("a")}));
  r->WaitCalls(1);  // without shutdown or flush: only the timer can send it
  EXPECT_EQ(r->Ids(), (std::vector<std::string>{"a"}));
}

TEST(BufferedBackendTest, AsyncDelegateSendsTheNextBatchWhileOneIsInFlight) {
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  r->hold = true;
  BufferedBackend b(std::move(rec), Config(100, 1, std::chrono::milliseconds(0), true), nullptr);
  EXPECT_TRUE(b.ProcessEvents({MakeEvent("a")}));
  EXPECT_TRUE(b.ProcessEvents({MakeEvent("b")}));
  r->WaitCalls(2);  // both batches are in the delegate at once
  r->Release();
  b.Shutdown();
  auto ids = r->Ids();
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "b"}));
}

TEST(BufferedBackendTest, DelegateFailuresDoNotReachTheCaller) {
  auto rec = std::make_unique<RecordingBackend>();
  rec->fail = true;
  BufferedBackend b(std::move(rec), Config(100, 10, std::chrono::milliseconds(1), false), nullptr);
  EXPECT_TRUE(b.ProcessEvents({MakeEvent("a")}));
  b.Flush();
  EXPECT_EQ(b.dropped(), 0u);
}

TEST(BufferedBackendTest, EventsAfterShutdownAreDroppedAndCounted) {
  MetricsRegistry reg;
  AuditMetrics metrics(reg);
  BufferedBackend b(std::make_unique<RecordingBackend>(), Config(100, 1, std::chrono::milliseconds(0), false),
                    &metrics);
  b.Shutdown();
  EXPECT_TRUE(b.ProcessEvents({MakeEvent("late")}));
  EXPECT_EQ(metrics.errors.Find({"buffered"})->Value(), 1.0);
  EXPECT_EQ(b.Name(), "buffered<recording>");
}

}  // namespace
}  // namespace capstan::audit
