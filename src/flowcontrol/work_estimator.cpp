#include "flowcontrol/work_estimator.h"

#include <cmath>

namespace capstan::flowcontrol {

namespace {

// kube's shouldListFromStorage: what the watch cache cannot answer goes to storage.
bool ListsFromStorage(const WorkRequest& r, bool consistent_from_cache) {
  bool consistent_from_storage = r.resource_version.empty() && !consistent_from_cache;
  bool continuation = !r.continue_token.empty();
  bool legacy_exact = r.limit > 0 && r.resource_version_match.empty() && !r.resource_version.empty() &&
                      r.resource_version != "0";
  bool unsupported_match = (!r.resource_version_match.empty() && r.resource_version_match != "NotOlderThan") || legacy_exact;
  return consistent_from_storage || continuation || unsupported_match;
}

}  // namespace

WorkEstimate WorkEstimator::Estimate(const WorkRequest& r, int level_max_seats) const {
  int max_seats = level_max_seats;
  if (max_seats <= 0 || max_seats > config_.maximum_seats_limit) max_seats = config_.maximum_seats_limit;
  if (r.verb == "list" || r.verb == "watch") return List(r, max_seats);
  if (r.verb == "create" || r.verb == "update" || r.verb == "patch" || r.verb == "delete") return Mutating(r, max_seats);
  return WorkEstimate{config_.minimum_seats, 0, {}};
}

WorkEstimate WorkEstimator::List(const WorkRequest& r, int max_seats) const {
  const int min_seats = config_.minimum_seats;
  if (!r.name.empty()) return {min_seats, 0, {}};
  if (r.verb == "watch" && !r.send_initial_events) return {min_seats, 0, {}};
  bool from_cache = r.verb == "watch" || !ListsFromStorage(r, config_.consistent_list_from_cache);
  std::optional<int64_t> stored = objects_ ? objects_(r.api_group, r.resource) : std::nullopt;
  if (!stored) return {min_seats, 0, {}};
  int64_t limit = *stored;
  if (r.limit > 0 && r.limit < *stored) limit = r.limit;
  int64_t processed;
  if (from_cache) {
    processed = *stored;
  } else if (r.has_selector) {
    processed = *stored + limit;
  } else {
    processed = 2 * limit;
  }
  int64_t seats = static_cast<int64_t>(std::ceil(static_cast<double>(processed) / config_.objects_per_seat));
  if (seats < min_seats) seats = min_seats;
  if (seats > max_seats) seats = max_seats;
  return {static_cast<int>(seats), 0, {}};
}

WorkEstimate WorkEstimator::Mutating(const WorkRequest& r, int max_seats) const {
  if (r.resource == "serviceaccounts" && r.subresource == "token") return {config_.minimum_seats, 0, {}};
  int watches = watches_ ? watches_(r) : 0;
  WorkEstimate e{1, 0, {}};
  if (watches >= static_cast<int>(config_.watches_per_seat)) {
    int final_seats = static_cast<int>(std::ceil(watches / config_.watches_per_seat));
    // The fan-out work is final_seats x 5ms; fewer seats hold it proportionally longer.
    double work_seat_ns = static_cast<double>(final_seats) * static_cast<double>(config_.event_additional_duration.count());
    if (final_seats > max_seats) final_seats = max_seats;
    e.final_seats = final_seats;
    e.additional_latency = std::chrono::nanoseconds(static_cast<int64_t>(work_seat_ns / final_seats));
  }
  return e;
}

}  // namespace capstan::flowcontrol
