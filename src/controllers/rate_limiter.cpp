#include "controllers/rate_limiter.h"

#include <algorithm>
#include <cmath>

namespace capstan::controllers {

Duration ItemExponentialFailureRateLimiter::When(const std::string& item) {
  int exp;
  {
    std::lock_guard lock(mu_);
    exp = failures_[item]++;
  }
  // base * 2^exp, computed in floating point so large exponents cap instead of overflowing.
  double backoff = static_cast<double>(base_.count()) * std::pow(2.0, exp);
  if (backoff > static_cast<double>(max_.count())) return max_;
  return Duration(static_cast<int64_t>(backoff));
}

void ItemExponentialFailureRateLimiter::Forget(const std::string& item) {
  std::lock_guard lock(mu_);
  failures_.erase(item);
}

int ItemExponentialFailureRateLimiter::NumRequeues(const std::string& item) const {
  std::lock_guard lock(mu_);
  auto it = failures_.find(item);
  return it == failures_.end() ? 0 : it->second;
}

BucketRateLimiter::BucketRateLimiter(double qps, int burst, const Clock& clock)
    : qps_(qps), burst_(burst), clock_(clock), tokens_(burst), last_(clock.Monotonic()) {}

Duration BucketRateLimiter::When(const std::string&) {
  std::lock_guard lock(mu_);
  auto now = clock_.Monotonic();
  double elapsed = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  tokens_ = std::min<double>(burst_, tokens_ + elapsed * qps_);
  tokens_ -= 1;
  if (tokens_ >= 0) return Duration(0);
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

Duration MaxOfRateLimiter::When(const std::string& item) {
  Duration out(0);
  for (auto& l : limiters_) out = std::max(out, l->When(item));
  return out;
}

void MaxOfRateLimiter::Forget(const std::string& item) {
  for (auto& l : limiters_) l->Forget(item);
}

int MaxOfRateLimiter::NumRequeues(const std::string& item) const {
  int out = 0;
  for (const auto& l : limiters_) out = std::max(out, l->NumRequeues(item));
  return out;
}

std::unique_ptr<RateLimiter> DefaultControllerRateLimiter(Duration max_backoff, const Clock& clock) {
  std::vector<std::unique_ptr<RateLimiter>> v;
  v.push_back(std::make_unique<ItemExponentialFailureRateLimiter>(std::chrono::milliseconds(5), max_backoff));
  v.push_back(std::make_unique<BucketRateLimiter>(10, 100, clock));
  return std::make_unique<MaxOfRateLimiter>(std::move(v));
}

}  // namespace capstan::controllers
