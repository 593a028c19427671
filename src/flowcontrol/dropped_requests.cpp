#include "flowcontrol/dropped_requests.h"

#include <algorithm>

namespace capstan::flowcontrol {

namespace {
constexpr int64_t kMaxRetryAfter = 32;
}

void DroppedRequestsTracker::RecordDroppedRequest(const std::string& priority_level) {
  int64_t now = std::chrono::duration_cast<std::chrono::seconds>(clock_.Now().time_since_epoch()).count();
  std::lock_guard lock(mu_);
  Record(levels_[priority_level], now);
}

void DroppedRequestsTracker::Record(Stats& s, int64_t now) {
  if (s.current_unix == now) {
    s.current_count++;
    return;
  }
  // A new second: the finished one joins the history, which keeps 2 x retryAfter seconds (at most 32).
  s.history.push_back({s.current_unix, s.current_count});
  int64_t keep = std::min(2 * s.retry_after, kMaxRetryAfter);
  auto first = std::find_if(s.history.begin(), s.history.end(),
                            [&](const Second& h) { return s.current_unix - h.unix <= keep; });
  s.history.erase(s.history.begin(), first);
  s.current_unix = now;
  s.current_count = 1;

  int64_t dropped = 0;
  for (auto it = s.history.rbegin(); it != s.history.rend(); ++it) {
    if (now - it->unix > s.retry_after) break;
    if (it->unix < now) dropped += it->requests;
  }
  if (now - s.retry_after_update_unix >= s.retry_after && dropped >= 3 * s.retry_after) {
    s.retry_after = std::min(2 * s.retry_after, kMaxRetryAfter);
    s.retry_after_update_unix = now;
    return;
  }
  if (dropped < s.retry_after && s.retry_after > 1) s.retry_after--;
}

int64_t DroppedRequestsTracker::RetryAfter(const std::string& priority_level) const {
  std::lock_guard lock(mu_);
  auto it = levels_.find(priority_level);
  return it == levels_.end() ? 1 : it->second.retry_after;
}

}  // namespace capstan::flowcontrol
