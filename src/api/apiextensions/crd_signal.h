// api/apiextensions/crd_signal.h: wakes the CRD controller when a CRD is written through this server,
// so a new CRD is served at once rather than at the controller's next periodic look. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace capstan::api::apiextensions {

class CrdChangeSignal {
 public:
  void Notify() {
    {
      std::lock_guard lock(mu_);
      ++generation_;
    }
    cv_.notify_all();
  }
  // Waits until a Notify after `seen` (or Stop, or the timeout); returns the current generation.
  uint64_t WaitAfter(uint64_t seen, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return generation_ != seen || stopped_; });
    return generation_;
  }
  uint64_t generation() {
    std::lock_guard lock(mu_);
    return generation_;
  }
  void Stop() {
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
    }
    cv_.notify_all();
  }
  bool stopped() {
    std::lock_guard lock(mu_);
    return stopped_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t generation_ = 0;
  bool stopped_ = false;
};

}  // namespace capstan::api::apiextensions
