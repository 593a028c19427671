// util/fan_out.h: bounded concurrency for coroutines. ForEachConcurrently(n, limit, fn) runs fn(0) ..
// fn(n-1) with at most `limit` of them in flight (they interleave at their co_awaits, so that, for
// example, their storage writes share group commits) and resumes the caller on its executor once all
// have finished. Each fn(i) must handle its own errors (record them; an exception terminates).
// Thread-safety: the bookkeeping is atomic, so fn's continuations may run on any thread.
#pragma once

#include <cstddef>
#include <functional>

#include "util/task.h"

namespace capstan {

Task<void> ForEachConcurrently(size_t n, size_t limit, std::function<Task<void>(size_t)> fn);

}  // namespace capstan
