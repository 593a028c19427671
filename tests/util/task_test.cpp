#include "util/task.h"

#include <gtest/gtest.h>

#include <thread>

namespace capstan {
namespace {

Task<int> Add(int a, int b) { co_return a + b; }

Task<int> Chain() {
  int x = co_await Add(1, 2);
  int y = co_await Add(x, 10);
  co_return y;
}

TEST(TaskTest, ChainsAwaitsAndReturnsValue) { EXPECT_EQ(SyncWait(Chain()), 13); }

Task<void> Throws() {
  throw std::runtime_error("boom");
  co_return;
}

TEST(TaskTest, ExceptionPropagatesToAwaiter) { EXPECT_THROW(SyncWait(Throws()), std::runtime_error); }

Task<int> FromOtherThread() {
  std::thread::id caller = std::this_thread::get_id();
  int v = co_await Await<int>([](std::function<void(int)> cb) {
    std::thread([cb] { cb(42); }).detach();
  });
  // The continuation comes back to the awaiting thread's executor, not the completing thread.
  EXPECT_EQ(std::this_thread::get_id(), caller);
  co_return v;
}

TEST(TaskTest, CallbackCompletionResumesOnCallersExecutor) { EXPECT_EQ(SyncWait(FromOtherThread()), 42); }

Task<int> InlineCallback() {
  int v = co_await Await<int>([](std::function<void(int)> cb) { cb(7); });
  co_return v + 1;
}

TEST(TaskTest, CallbackCompletingInlineWorks) { EXPECT_EQ(SyncWait(InlineCallback()), 8); }

Task<int> Deep(int n) {
  if (n == 0) co_return 0;
  co_return 1 + co_await Deep(n - 1);
}

TEST(TaskTest, DeepRecursionUsesSymmetricTransfer) { EXPECT_EQ(SyncWait(Deep(10000)), 10000); }

TEST(TaskTest, SpawnThenDeliversResult) {
  int got = 0;
  SpawnThen(Add(20, 22), [&](int v) { got = v; });
  EXPECT_EQ(got, 42);
}

}  // namespace
}  // namespace capstan
