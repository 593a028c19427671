// auth/authn/flight.h: SharedFlight<T>, one in-progress computation that later callers wait for
// instead of starting their own (Go's singleflight): the token cache shares one lookup per key, the
// OIDC authenticator one key-set refresh. Waiters resume on the executor they were running on.
// Thread-safe: Finish may be called from any thread, once.
#pragma once

#include <coroutine>
#include <mutex>
#include <optional>
#include <vector>

#include "util/async.h"

namespace capstan::authn {

template <class T>
class SharedFlight {
 public:
  void Finish(T value) {
    std::vector<detail::Waiter> waiters;
    {
      std::lock_guard lock(mu_);
      if (result_) return;
      result_.emplace(std::move(value));
      waiters.swap(waiters_);
    }
    for (auto& w : waiters) w.Resume();
  }

  // Awaits the result (a copy for each waiter).
  auto Wait() {
    struct Awaiter {
      SharedFlight& f;
      bool await_ready() {
        std::lock_guard lock(f.mu_);
        return f.result_.has_value();
      }
      bool await_suspend(std::coroutine_handle<> h) {
        std::lock_guard lock(f.mu_);
        if (f.result_) return false;
        f.waiters_.push_back(detail::Waiter{h, CurrentExecutor()});
        return true;
      }
      T await_resume() {
        std::lock_guard lock(f.mu_);
        return *f.result_;
      }
    };
    return Awaiter{*this};
  }

 private:
  std::mutex mu_;
  std::optional<T> result_;               // GUARDED_BY(mu_)
  std::vector<detail::Waiter> waiters_;   // GUARDED_BY(mu_)
};

}  // namespace capstan::authn
