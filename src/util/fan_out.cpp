#include "util/fan_out.h"

#include <algorithm>
#include <atomic>
#include <coroutine>
#include <memory>

#include "util/executor.h"

namespace capstan {

namespace {

struct FanOut {
  size_t n = 0;
  std::atomic<size_t> next{0};
  std::atomic<size_t> runners{0};
  std::function<Task<void>(size_t)> fn;
  std::coroutine_handle<> waiter;
  std::shared_ptr<Executor> executor;  // the caller's; null: resume inline
};

void Finish(const std::shared_ptr<FanOut>& s) {
  if (s->runners.fetch_sub(1) != 1) return;
  auto h = s->waiter;
  if (s->executor) {
    s->executor->Post([h] { h.resume(); });
  } else {
    h.resume();
  }
}

Task<void> Runner(std::shared_ptr<FanOut> s) {
  for (size_t i = s->next.fetch_add(1); i < s->n; i = s->next.fetch_add(1)) co_await s->fn(i);
  Finish(s);
}

struct Awaiter {
  std::shared_ptr<FanOut> s;
  size_t runners = 0;
  bool await_ready() const noexcept { return false; }
  // The awaiter holds one count of its own while it starts the runners, so that none of them, even
  // finishing synchronously, resumes the caller before this returns; if they all did, it does not
  // suspend at all.
  bool await_suspend(std::coroutine_handle<> h) {
    s->waiter = h;
    s->runners = runners + 1;
    for (size_t i = 0; i < runners; ++i) Spawn(Runner(s));
    return s->runners.fetch_sub(1) != 1;
  }
  void await_resume() const noexcept {}
};

}  // namespace

Task<void> ForEachConcurrently(size_t n, size_t limit, std::function<Task<void>(size_t)> fn) {
  if (n == 0) co_return;
  auto s = std::make_shared<FanOut>();
  s->n = n;
  s->fn = std::move(fn);
  s->executor = CurrentExecutor();
  co_await Awaiter{s, std::min(n, std::max<size_t>(1, limit))};
}

}  // namespace capstan
