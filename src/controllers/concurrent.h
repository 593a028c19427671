// controllers/concurrent.h: bounded fan-out on the loop thread. ForEachConcurrently(scope, n, limit,
// fn) runs fn(0) .. fn(n-1) with at most `limit` of them in flight (interleaved at their co_awaits,
// so that their API writes share the storage's group commits) and resumes the caller when all have
// finished. The coroutines are spawned in `scope`, so a stopping run waits for them.
// Thread-safety: loop-thread only.
#pragma once

#include <coroutine>
#include <functional>
#include <memory>

#include "controllers/run_scope.h"

namespace capstan::controllers {

Task<void> ForEachConcurrently(RunScope& scope, size_t n, size_t limit, std::function<Task<void>(size_t)> fn);

}  // namespace capstan::controllers
