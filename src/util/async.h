// util/async.h: coroutine synchronisation without an event loop: AsyncEvent (one-shot, one waiter) and
// AsyncQueue<T> (a multi-producer, single-consumer queue whose consumer awaits items).
//
// Producers may run on any thread. The waiting coroutine resumes on the executor that was current when
// it started waiting (util/executor.h). Thread-safe.
#pragma once

#include <coroutine>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "util/executor.h"

namespace capstan {

namespace detail {
struct Waiter {
  std::coroutine_handle<> handle;
  std::shared_ptr<Executor> executor;
  void Resume() {
    if (executor) {
      executor->Post([h = handle] { h.resume(); });
    } else {
      handle.resume();
    }
  }
};
}  // namespace detail

class AsyncEvent {
 public:
  void Set() {
    std::optional<detail::Waiter> w;
    {
      std::lock_guard lock(mu_);
      if (set_) return;
      set_ = true;
      w = std::exchange(waiter_, std::nullopt);
    }
    if (w) w->Resume();
  }
  bool is_set() const {
    std::lock_guard lock(mu_);
    return set_;
  }
  auto Wait() {
    struct Awaiter {
      AsyncEvent& ev;
      bool await_ready() { return ev.is_set(); }
      bool await_suspend(std::coroutine_handle<> h) {
        std::lock_guard lock(ev.mu_);
        if (ev.set_) return false;
        ev.waiter_ = detail::Waiter{h, CurrentExecutor()};
        return true;
      }
      void await_resume() {}
    };
    return Awaiter{*this};
  }

 private:
  mutable std::mutex mu_;
  bool set_ = false;
  std::optional<detail::Waiter> waiter_;
};

template <class T>
class AsyncQueue {
 public:
  // Returns false if the queue is closed (the item is dropped).
  bool Push(T item) {
    std::optional<detail::Waiter> w;
    {
      std::lock_guard lock(mu_);
      if (closed_) return false;
      items_.push_back(std::move(item));
      w = std::exchange(waiter_, std::nullopt);
    }
    if (w) w->Resume();
    return true;
  }
  // After Close, Pop drains what is queued, then yields nullopt.
  void Close() {
    std::optional<detail::Waiter> w;
    {
      std::lock_guard lock(mu_);
      closed_ = true;
      w = std::exchange(waiter_, std::nullopt);
    }
    if (w) w->Resume();
  }
  bool closed() const {
    std::lock_guard lock(mu_);
    return closed_;
  }
  size_t size() const {
    std::lock_guard lock(mu_);
    return items_.size();
  }

  // Waits for at least one item (or close) and returns everything queued: the consumer handles a batch
  // at once. Empty means closed and drained.
  auto PopAll() {
    struct Awaiter {
      AsyncQueue& q;
      bool await_ready() {
        std::lock_guard lock(q.mu_);
        return !q.items_.empty() || q.closed_;
      }
      bool await_suspend(std::coroutine_handle<> h) {
        std::lock_guard lock(q.mu_);
        if (!q.items_.empty() || q.closed_) return false;
        q.waiter_ = detail::Waiter{h, CurrentExecutor()};
        return true;
      }
      std::vector<T> await_resume() {
        std::lock_guard lock(q.mu_);
        std::vector<T> out;
        out.reserve(q.items_.size());
        for (auto& it : q.items_) out.push_back(std::move(it));
        q.items_.clear();
        return out;
      }
    };
    return Awaiter{*this};
  }

 private:
  mutable std::mutex mu_;
  std::deque<T> items_;
  bool closed_ = false;
  std::optional<detail::Waiter> waiter_;
};

}  // namespace capstan
