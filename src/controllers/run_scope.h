// controllers/run_scope.h: the lifetime of one run of the control loops on their executor thread.
//
// A RunScope counts the coroutines spawned in it (informers, workers, timers), offers sleeps that
// end early when the scope stops, and tells its owner when, after Stop(), the last coroutine has
// finished, so the objects those coroutines use may be destroyed. Stopping does not interrupt an API
// call in flight: a coroutine sees the stop at its next sleep, queue wait or watch read.
//
// Thread-safety: everything runs on the scope's executor thread (the loop thread), except that the
// timers behind Sleep fire on the timer thread and only post back to it.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>

#include "util/executor.h"
#include "util/task.h"

namespace capstan::controllers {

class RunScope {
 public:
  // `executor` is the loop thread's executor; `on_idle` runs on it once Stop() was called and no
  // coroutine of the scope is left.
  RunScope(std::shared_ptr<Executor> executor, std::function<void()> on_idle = nullptr);
  ~RunScope();
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;

  // Starts `task` now (on the calling thread, which must be the loop thread).
  void Spawn(Task<void> task);
  // Sleeps on the loop thread; returns false when the scope stopped first (at once if already).
  Task<bool> Sleep(std::chrono::steady_clock::duration d);
  // Wakes every sleeper; spawned coroutines are expected to return soon after.
  void Stop();
  bool stopped() const { return stopped_; }
  size_t live() const { return live_; }
  Executor& executor() const { return *executor_; }
  const std::shared_ptr<Executor>& executor_ptr() const { return executor_; }

 private:
  struct SleepState;
  void Done();

  std::shared_ptr<Executor> executor_;
  std::function<void()> on_idle_;
  bool stopped_ = false;
  bool idle_reported_ = false;
  size_t live_ = 0;
  uint64_t next_sleep_id_ = 0;
  std::map<uint64_t, std::shared_ptr<SleepState>> sleepers_;
};

}  // namespace capstan::controllers
