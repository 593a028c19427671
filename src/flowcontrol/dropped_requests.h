// flowcontrol/dropped_requests.h: the Retry-After a rejected request is told, per priority level
// (kube's DroppedRequestsTracker). It starts at 1s; when at least 3 x retryAfter requests of the level
// were dropped over the last retryAfter seconds (and retryAfter seconds passed since the last
// change) it doubles, up to 32s; when fewer than retryAfter were dropped it goes down by one.
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "util/clock.h"

namespace capstan::flowcontrol {

class DroppedRequestsTracker {
 public:
  explicit DroppedRequestsTracker(const Clock& clock) : clock_(clock) {}
  void RecordDroppedRequest(const std::string& priority_level);
  int64_t RetryAfter(const std::string& priority_level) const;

 private:
  struct Second {
    int64_t unix = 0;
    int64_t requests = 0;
  };
  struct Stats {
    std::vector<Second> history;
    int64_t current_unix = 0;
    int64_t current_count = 0;
    int64_t retry_after = 1;
    int64_t retry_after_update_unix = 0;
  };
  static void Record(Stats& s, int64_t now);

  const Clock& clock_;
  mutable std::mutex mu_;
  std::map<std::string, Stats> levels_;  // guarded by mu_
};

}  // namespace capstan::flowcontrol
