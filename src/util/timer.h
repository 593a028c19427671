// util/timer.h: delayed calls and coroutine sleeps without an event-loop dependency.
//
// One process-wide timer thread keeps the deadlines in order. RunAfter() calls fn on that thread when
// the delay passes (fn must be quick: typically it posts work to an executor). SleepFor() suspends a
// coroutine and resumes it on the executor it was running on. A TimerHandle cancels its timer; after
// Cancel() returns, fn is not running and will not run. Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "util/task.h"

namespace capstan {

class TimerHandle {
 public:
  virtual ~TimerHandle() = default;
  // Returns true if the timer was cancelled before it fired.
  virtual bool Cancel() = 0;
};

std::shared_ptr<TimerHandle> RunAfter(std::chrono::steady_clock::duration delay, std::function<void()> fn);

// Resumes after `delay` on the current executor.
Task<void> SleepFor(std::chrono::steady_clock::duration delay);

}  // namespace capstan
