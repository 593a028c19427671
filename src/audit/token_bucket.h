// audit/token_bucket.h: the rate limit of the buffered audit backend's batches
// (--audit-*-batch-throttle-qps and -burst), client-go's NewTokenBucketRateLimiter: a bucket of `burst`
// tokens, full at the start, refilled at `qps` tokens a second; each batch takes one, and waits for it
// when the bucket is empty (a reservation, as golang.org/x/time/rate's Wait).
// Thread-safety: thread-safe.
#pragma once

#include <chrono>
#include <mutex>

#include "util/clock.h"

namespace capstan::audit {

class TokenBucket {
 public:
  TokenBucket(double qps, int burst, const Clock& clock = RealClock::Get());
  // Takes a token; how long the caller must wait before it may use it (zero when the bucket had one).
  std::chrono::nanoseconds Reserve();
  // Reserve, then sleeps that long.
  void Accept();

 private:
  const double qps_;
  const double burst_;
  const Clock& clock_;
  std::mutex mu_;
  double tokens_;                                // guarded by mu_; negative: reserved ahead
  std::chrono::steady_clock::time_point last_;  // guarded by mu_
};

}  // namespace capstan::audit
