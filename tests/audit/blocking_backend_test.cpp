#include "audit/blocking_backend.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "audit_test_util.h"

namespace capstan::audit {
namespace {

using testing::MakeEvent;
using testing::RecordingBackend;

TEST(BlockingBackendTest, TheCallerResumesOnlyAfterTheDelegateWrote) {
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  r->hold = true;
  BlockingBackend b(std::move(rec), false);
  std::atomic<bool> resumed{false};
  std::thread caller([&] {
    EXPECT_TRUE(SyncWait(b.ProcessEventsAsync({MakeEvent("a")})));
    resumed = true;
  });
  r->WaitCalls(1);
  EXPECT_FALSE(resumed.load());  // held in the delegate: the caller still waits
  r->Release();
  caller.join();
  EXPECT_TRUE(resumed.load());
  EXPECT_EQ(r->Ids(), (std::vector<std::string>{"a"}));
}

TEST(BlockingBackendTest, StrictPassesFailuresUpAndBlockingDoesNot) {
  auto failing = [] {
    auto rec = std::make_unique<RecordingBackend>();
    rec->fail = true;
    return rec;
  };
  BlockingBackend strict(failing(), true);
  EXPECT_FALSE(SyncWait(strict.ProcessEventsAsync({MakeEvent("a")})));
  EXPECT_FALSE(strict.ProcessEvents({MakeEvent("b")}));
  BlockingBackend blocking(failing(), false);
  EXPECT_TRUE(SyncWait(blocking.ProcessEventsAsync({MakeEvent("a")})));
  EXPECT_TRUE(blocking.ProcessEvents({MakeEvent("b")}));
  EXPECT_EQ(strict.Name(), "recording");
  EXPECT_EQ(blocking.Name(), "ignoreErrors<recording>");
}

TEST(BlockingBackendTest, ConcurrentWritersLoseNothingAndKeepTheirOrder) {
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  BlockingBackend b(std::move(rec), true);
  constexpr int kThreads = 4, kEach = 250;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&b, t] {
      for (int i = 0; i < kEach; ++i) {
        EXPECT_TRUE(SyncWait(b.ProcessEventsAsync({MakeEvent(std::to_string(t) + ":" + std::to_string(i))})));
      }
    });
  }
  for (auto& t : threads) t.join();
  auto ids = r->Ids();
  ASSERT_EQ(ids.size(), static_cast<size_t>(kThreads * kEach));
  std::vector<int> next(kThreads, 0);
  for (const auto& id : ids) {
    int t = id[0] - '0';
    EXPECT_EQ(id, std::to_string(t) + ":" + std::to_string(next[t]));
    ++next[t];
  }
  for (const auto& batch : r->batches) EXPECT_LE(batch.size(), BlockingBackend::kMaxGroupEvents);
}

TEST(BlockingBackendTest, ShutdownWritesWhatIsQueuedAndLaterEventsOnTheCallersThread) {
  auto rec = std::make_unique<RecordingBackend>();
  RecordingBackend* r = rec.get();
  r->hold = true;
  BlockingBackend b(std::move(rec), false);
  std::thread first([&] { EXPECT_TRUE(SyncWait(b.ProcessEventsAsync({MakeEvent("a")}))); });
  r->WaitCalls(1);  // a is in the delegate; b queues behind it
  std::thread second([&] { EXPECT_TRUE(SyncWait(b.ProcessEventsAsync({MakeEvent("b")}))); });
  r->Release();
  first.join();
  second.join();
  b.Shutdown();
  EXPECT_TRUE(r->shut_down);
  EXPECT_TRUE(SyncWait(b.ProcessEventsAsync({MakeEvent("c")})));
  EXPECT_EQ(r->Ids(), (std::vector<std::string>{"a", "b", "c"}));
}

}  // namespace
}  // namespace capstan::audit
