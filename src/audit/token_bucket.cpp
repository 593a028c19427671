#include "audit/token_bucket.h"

#include <algorithm>
#include <thread>

namespace capstan::audit {

TokenBucket::TokenBucket(double qps, int burst, const Clock& clock)
    : qps_(qps), burst_(std::max(1, burst)), clock_(clock), tokens_(burst_), last_(clock.Monotonic()) {}

std::chrono::nanoseconds TokenBucket::Reserve() {
  std::lock_guard lock(mu_);
  auto now = clock_.Monotonic();
  double elapsed = std::chrono::duration<double>(now - last_).count();
  last_ = now;
  tokens_ = std::min(burst_, tokens_ + elapsed * qps_);
  tokens_ -= 1;
  if (tokens_ >= 0 || qps_ <= 0) return std::chrono::nanoseconds(0);
  return std::chrono::nanoseconds(static_cast<int64_t>(-tokens_ / qps_ * 1e9));
}

void TokenBucket::Accept() {
  auto wait = Reserve();
  if (wait.count() > 0) std::this_thread::sleep_for(wait);
}

}  // namespace capstan::audit
