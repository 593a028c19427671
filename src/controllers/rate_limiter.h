// controllers/rate_limiter.h: how long a work-queue item waits before it is retried, with kube's
// workqueue rate limiters: per-item exponential backoff (base * 2^failures, capped), a token bucket
// shared by all items (qps with a burst), and the maximum of several.
// DefaultControllerRateLimiter() is kube's default: max(exponential 5ms..1000s, bucket 10 qps / 100).
//
// When(item) records one more failure of the item and returns its delay; Forget(item) clears the
// item's history; NumRequeues(item) is its failure count. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "util/clock.h"

namespace capstan::controllers {

using Duration = std::chrono::nanoseconds;

class RateLimiter {
 public:
  virtual ~RateLimiter() = default;
  virtual Duration When(const std::string& item) = 0;
  virtual void Forget(const std::string& item) = 0;
  virtual int NumRequeues(const std::string& item) const = 0;
};

class ItemExponentialFailureRateLimiter : public RateLimiter {
 public:
  ItemExponentialFailureRateLimiter(Duration base, Duration max) : base_(base), max_(max) {}
  Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) const override;

 private:
  Duration base_, max_;
  mutable std::mutex mu_;
  std::map<std::string, int> failures_;  // GUARDED_BY(mu_)
};

// A token bucket: `qps` tokens a second, at most `burst` saved up. Each When() takes one token and
// returns how long until that token is available. Never counts requeues.
class BucketRateLimiter : public RateLimiter {
 public:
  BucketRateLimiter(double qps, int burst, const Clock& clock = RealClock::Get());
  Duration When(const std::string& item) override;
  void Forget(const std::string&) override {}
  int NumRequeues(const std::string&) const override { return 0; }

 private:
  double qps_;
  int burst_;
  const Clock& clock_;
  std::mutex mu_;
  double tokens_;                                  // GUARDED_BY(mu_); may go negative (reservations)
  std::chrono::steady_clock::time_point last_;     // GUARDED_BY(mu_)
};

class MaxOfRateLimiter : public RateLimiter {
 public:
  explicit MaxOfRateLimiter(std::vector<std::unique_ptr<RateLimiter>> limiters) : limiters_(std::move(limiters)) {}
  Duration When(const std::string& item) override;
  void Forget(const std::string& item) override;
  int NumRequeues(const std::string& item) const override;

 private:
  std::vector<std::unique_ptr<RateLimiter>> limiters_;
};

// kube's workqueue.DefaultControllerRateLimiter with a per-item cap of `max_backoff`.
std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(Duration max_backoff = std::chrono::seconds(1000),
                                                          const Clock& clock = RealClock::Get());

}  // namespace capstan::controllers
