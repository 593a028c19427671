#include "controllers/run_scope.h"

#include <atomic>

#include "util/check.h"
#include "util/timer.h"

namespace capstan::controllers {

struct RunScope::SleepState {
  std::atomic<bool> fired{false};
  std::function<void(bool)> resume;  // true: the time passed; false: stopped
  std::shared_ptr<TimerHandle> timer;
  // Exactly one of the timer and Stop() resumes the sleeper.
  void Fire(bool completed) {
    if (fired.exchange(true)) return;
    auto r = std::move(resume);
    r(completed);
  }
};

RunScope::RunScope(std::shared_ptr<Executor> executor, std::function<void()> on_idle)
    : executor_(std::move(executor)), on_idle_(std::move(on_idle)) {}

RunScope::~RunScope() {
  // Coroutines of the scope hold references to it; it must outlive them.
  CAPSTAN_CHECK(live_ == 0);
  for (auto& [id, s] : sleepers_) {
    if (s->timer) s->timer->Cancel();
  }
}

void RunScope::Spawn(Task<void> task) {
  ++live_;
  SpawnThen(std::move(task), [this] { Done(); });
}

void RunScope::Done() {
  --live_;
  if (stopped_ && live_ == 0 && !idle_reported_) {
    idle_reported_ = true;
    if (on_idle_) executor_->Post(on_idle_);
  }
}

Task<bool> RunScope::Sleep(std::chrono::steady_clock::duration d) {
  if (stopped_) co_return false;
  auto state = std::make_shared<SleepState>();
  uint64_t id = next_sleep_id_++;
  sleepers_[id] = state;
  bool completed = co_await Await<bool>([state, d](std::function<void(bool)> cb) {
    state->resume = std::move(cb);
    state->timer = RunAfter(d, [state] { state->Fire(true); });
  });
  sleepers_.erase(id);
  co_return completed && !stopped_;
}

void RunScope::Stop() {
  if (stopped_) return;
  stopped_ = true;
  auto sleepers = sleepers_;
  for (auto& [id, s] : sleepers) {
    if (s->timer) s->timer->Cancel();
    s->Fire(false);
  }
  if (live_ == 0 && !idle_reported_) {
    idle_reported_ = true;
    if (on_idle_) executor_->Post(on_idle_);
  }
}

}  // namespace capstan::controllers
