#include "controllers/concurrent.h"

#include <algorithm>

namespace capstan::controllers {

namespace {

struct FanOut {
  size_t n = 0;
  size_t next = 0;
  size_t runners = 0;
  std::function<Task<void>(size_t)> fn;
  std::coroutine_handle<> waiter;
  std::shared_ptr<Executor> executor;
};

Task<void> Runner(std::shared_ptr<FanOut> s) {
  while (s->next < s->n) {
    size_t i = s->next++;
    co_await s->fn(i);
  }
  if (--s->runners == 0 && s->waiter) {
    auto h = std::exchange(s->waiter, nullptr);
    s->executor->Post([h] { h.resume(); });
  }
}

}  // namespace

Task<void> ForEachConcurrently(RunScope& scope, size_t n, size_t limit, std::function<Task<void>(size_t)> fn) {
  if (n == 0) co_return;
  auto s = std::make_shared<FanOut>();
  s->n = n;
  s->fn = std::move(fn);
  s->executor = scope.executor_ptr();
  s->runners = std::min(n, std::max<size_t>(1, limit));
  struct Awaiter {
    std::shared_ptr<FanOut> s;
    RunScope& scope;
    bool await_ready() { return false; }
    void await_suspend(std::coroutine_handle<> h) {
      s->waiter = h;
      size_t k = s->runners;
      // Runners may finish synchronously; the waiter is set before any of them starts.
      for (size_t i = 0; i < k; ++i) scope.Spawn(Runner(s));
    }
    void await_resume() {}
  };
  co_await Awaiter{s, scope};
}

}  // namespace capstan::controllers
