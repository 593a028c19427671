// util/task.h: Task<T>, the lazy C++20 coroutine every asynchronous layer of Capstan returns.
//
// Task<T> lets storage, registry, auth and endpoints be asynchronous without including Asio (which
// stays inside src/server/). A Task starts when it is awaited (or handed to Spawn/SyncWait) and resumes
// its awaiter by symmetric transfer when it finishes, so chains of co_awaits cost no extra threads.
//
// Callback-based operations (the embedded store's writer thread, gRPC completions, network timers) are
// turned into awaitables with Await<T>(start): the continuation is resumed on the executor that was
// current when the operation was awaited (see util/executor.h), never on the completing thread.
//
// Thread-safety: a Task is owned and awaited by one coroutine at a time. Await<T>'s completion callback
// may be called from any thread, exactly once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <coroutine>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>

#include "util/executor.h"

namespace capstan {

template <class T = void>
class Task;

namespace detail {

struct TaskPromiseBase {
  std::coroutine_handle<> continuation = std::noop_coroutine();
  std::exception_ptr exception;

  std::suspend_always initial_suspend() noexcept { return {}; }
  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      return h.promise().continuation;
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { exception = std::current_exception(); }
};

template <class T>
struct TaskPromise : TaskPromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <class U>
    requires std::is_convertible_v<U&&, T>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
  T Take() {
    if (exception) std::rethrow_exception(exception);
    return std::move(*value);
  }
};

template <>
struct TaskPromise<void> : TaskPromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
  void Take() {
    if (exception) std::rethrow_exception(exception);
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::TaskPromise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() {
    if (h_) h_.destroy();
  }

  bool valid() const { return static_cast<bool>(h_); }

  auto operator co_await() && noexcept {
    struct Awaiter {
      Handle h;
      bool await_ready() noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
        h.promise().continuation = awaiting;
        return h;
      }
      T await_resume() { return h.promise().Take(); }
    };
    return Awaiter{h_};
  }

  // Low-level access for Spawn/SyncWait.
  Handle release() { return std::exchange(h_, {}); }

 private:
  Handle h_;
};

namespace detail {
template <class T>
Task<T> TaskPromise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<TaskPromise<T>>::from_promise(*this));
}
inline Task<void> TaskPromise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<TaskPromise<void>>::from_promise(*this));
}

// A fire-and-forget coroutine used to drive a Task to completion.
struct Detached {
  struct promise_type {
    Detached get_return_object() noexcept { return {}; }
    std::suspend_never initial_suspend() noexcept { return {}; }
    std::suspend_never final_suspend() noexcept { return {}; }
    void return_void() noexcept {}
    void unhandled_exception() noexcept { std::terminate(); }
  };
};

template <class T, class F>
Detached RunDetached(Task<T> task, F on_done) {
  if constexpr (std::is_void_v<T>) {
    std::exception_ptr ep;
    try {
      co_await std::move(task);
    } catch (...) {
      ep = std::current_exception();
    }
    on_done(ep);
  } else {
    std::exception_ptr ep;
    std::optional<T> v;
    try {
      v.emplace(co_await std::move(task));
    } catch (...) {
      ep = std::current_exception();
    }
    on_done(ep, std::move(v));
  }
}
}  // namespace detail

// Starts a Task<void> now, on the calling thread; the task owns itself until it finishes.
// An exception escaping the task terminates the process: top-level tasks must handle their errors.
inline void Spawn(Task<void> task) {
  detail::RunDetached(std::move(task), [](std::exception_ptr ep) {
    if (ep) std::rethrow_exception(ep);
  });
}

// Starts a Task and calls done(result) when it finishes (on whichever thread finished it).
template <class T, class F>
void SpawnThen(Task<T> task, F done) {
  if constexpr (std::is_void_v<T>) {
    detail::RunDetached(std::move(task), [d = std::move(done)](std::exception_ptr ep) mutable {
      if (ep) std::rethrow_exception(ep);
      d();
    });
  } else {
    detail::RunDetached(std::move(task),
                        [d = std::move(done)](std::exception_ptr ep, std::optional<T> v) mutable {
                          if (ep) std::rethrow_exception(ep);
                          d(std::move(*v));
                        });
  }
}

// Runs a Task to completion, blocking the calling thread. For start-up code, tests and tools only:
// never call it on an I/O thread. Continuations that would be posted to an executor run on this
// thread's temporary executor, so a task may be awaited from a thread with no event loop.
template <class T>
T SyncWait(Task<T> task) {
  auto loop = std::make_shared<LocalLoop>();
  ExecutorScope scope(loop);
  std::exception_ptr ep;
  std::optional<std::conditional_t<std::is_void_v<T>, int, T>> result;
  if constexpr (std::is_void_v<T>) {
    detail::RunDetached(std::move(task), [&](std::exception_ptr e) {
      ep = e;
      result.emplace(0);
      loop->Stop();
    });
  } else {
    detail::RunDetached(std::move(task), [&](std::exception_ptr e, std::optional<T> v) {
      ep = e;
      if (v) result.emplace(std::move(*v));
      loop->Stop();
    });
  }
  loop->Run();
  if (ep) std::rethrow_exception(ep);
  if constexpr (!std::is_void_v<T>) return std::move(*result);
}

// Await<T>(start): suspends the awaiting coroutine, calls start(callback), and resumes the coroutine
// with the value passed to callback. The callback may run on any thread, once; the coroutine resumes on
// the executor that was current when it suspended (inline if there was none).
template <class T>
class CallbackAwaiter {
 public:
  using Callback = std::function<void(T)>;
  explicit CallbackAwaiter(std::function<void(Callback)> start) : start_(std::move(start)) {}

  bool await_ready() noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    auto state = std::make_shared<State>();
    state->handle = h;
    state->executor = CurrentExecutor();
    state_ = state;
    // The callback may resume (and so destroy) this coroutine frame before start() returns, so nothing
    // of *this is touched after the call.
    auto start = std::move(start_);
    start([state](T v) {
      state->value.emplace(std::move(v));
      if (state->executor) {
        state->executor->Post([state] { state->handle.resume(); });
      } else {
        state->handle.resume();
      }
    });
  }
  T await_resume() { return std::move(*state_->value); }

 private:
  struct State {
    std::coroutine_handle<> handle;
    std::shared_ptr<Executor> executor;
    std::optional<T> value;
  };
  std::function<void(Callback)> start_;
  std::shared_ptr<State> state_;
};

template <class T>
CallbackAwaiter<T> Await(std::function<void(std::function<void(T)>)> start) {
  return CallbackAwaiter<T>(std::move(start));
}

// Resumes the awaiting coroutine later on the current executor (lets other work run first).
struct YieldAwaiter {
  bool await_ready() noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    auto ex = CurrentExecutor();
    if (ex) {
      ex->Post([h] { h.resume(); });
    } else {
      h.resume();
    }
  }
  void await_resume() noexcept {}
};
inline YieldAwaiter Yield() { return {}; }

}  // namespace capstan
