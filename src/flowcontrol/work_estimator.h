// flowcontrol/work_estimator.h: how many seats a request occupies (kube's request.WorkEstimator).
//
//  - LIST (and a WATCH with sendInitialEvents=true): the objects it will process, from the stored
//    object count of the resource, at 100 objects a seat: the count itself when served from the
//    watch cache, count+limit with a selector, 2*limit otherwise; no count known: 1 seat.
//    Requests naming one object, and watches without initial events, take 1 seat.
//  - create/update/patch/delete: 1 seat while executing, then, when at least 10 watches may see
//    the change, ceil(watches/10) seats held for 5ms afterwards (the event fan-out), capped at the
//    level's maximum and stretched in time so the work is the same. serviceaccounts/token is exempt.
//  - anything else: 1 seat.
// Seats never exceed the level's maximum (15% of its nominal limit, at most limit/handSize) nor 10.
// Thread-safety: Estimate is const and may run concurrently if the getters may.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace capstan::flowcontrol {

struct WorkEstimate {
  int initial_seats = 1;
  int final_seats = 0;
  std::chrono::nanoseconds additional_latency{0};
  int MaxSeats() const { return initial_seats >= final_seats ? initial_seats : final_seats; }
};

// What the estimate reads from a request.
struct WorkRequest {
  std::string verb;
  std::string api_group;
  std::string resource;
  std::string subresource;
  std::string namespace_;
  std::string name;
  int64_t limit = 0;
  std::string resource_version;
  std::string resource_version_match;
  std::string continue_token;
  bool has_selector = false;  // labelSelector or fieldSelector
  bool send_initial_events = false;
};

struct WorkEstimatorConfig {
  int minimum_seats = 1;
  int maximum_seats_limit = 10;
  double objects_per_seat = 100;
  double watches_per_seat = 10;
  std::chrono::nanoseconds event_additional_duration = std::chrono::milliseconds(5);
  // kube 1.32 serves consistent (resourceVersion "") lists from the watch cache (ConsistentListFromCache).
  bool consistent_list_from_cache = true;
};

class WorkEstimator {
 public:
  // Stored objects of group/resource; nullopt when unknown.
  using ObjectCount = std::function<std::optional<int64_t>(const std::string& group, const std::string& resource)>;
  // Watches that would see a change by this request.
  using WatchCount = std::function<int(const WorkRequest&)>;

  WorkEstimator(WorkEstimatorConfig config, ObjectCount objects, WatchCount watches)
      : config_(config), objects_(std::move(objects)), watches_(std::move(watches)) {}

  // `level_max_seats`: the priority level's cap (0: only the global one).
  WorkEstimate Estimate(const WorkRequest& r, int level_max_seats) const;

 private:
  WorkEstimate List(const WorkRequest& r, int max_seats) const;
  WorkEstimate Mutating(const WorkRequest& r, int max_seats) const;
  WorkEstimatorConfig config_;
  ObjectCount objects_;
  WatchCount watches_;
};

}  // namespace capstan::flowcontrol
