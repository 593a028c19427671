// util/blocking_pool.h: calls that may block for long (a KMS plugin's gRPC call, whose deadline is
// seconds) run on a small pool of threads instead of the I/O thread, so one slow plugin cannot stall
// every connection served there. The awaiting coroutine resumes on its executor, as after any Await.
//
// The pool's threads (kBlockingThreads) start on first use; a call waits in the queue while all are
// busy. Thread-safety: RunBlocking may be called from any thread.
#pragma once

#include <functional>
#include <type_traits>

#include "util/task.h"

namespace capstan {

inline constexpr int kBlockingThreads = 8;

// Runs fn on a pool thread.
void PostBlocking(std::function<void()> fn);

// Runs fn on a pool thread and returns its result to the awaiting coroutine. fn may capture the
// awaiting frame's locals by reference: the frame stays suspended until fn has returned.
template <class F, class T = std::invoke_result_t<F&>>
  requires(!std::is_void_v<T>)
Task<T> RunBlocking(F fn) {
  co_return co_await Await<T>([&fn](std::function<void(T)> done) {
    PostBlocking([&fn, done = std::move(done)] { done(fn()); });
  });
}

}  // namespace capstan
