// flowcontrol/controller.h: API Priority and Fairness, the dispatcher every request goes through
// (kube's util/flowcontrol configController and its Handle).
//
// Configuration: Apply() digests the current PriorityLevelConfigurations and FlowSchemas as a whole
// (kube's digestConfigObjects): broken objects are skipped, schemas whose level does not exist are
// ignored (reported by Dangling()), the mandatory exempt and catch-all objects are imagined when
// missing, a level that disappears keeps serving until its requests are gone (quiescing). Each
// level's nominal limit is ceil(serverLimit x shares / Σshares); lendablePercent and
// borrowingLimitPercent of it give its lower and upper limits. UpdateBorrowing() (every 10s, by the
// owner) re-divides the seats: each level's demand (seats in use plus waiting, integrated over the
// period, then smoothed) is its target, and the seats are allocated fairly between the lower and
// upper limits (concurrency_allocation.h); the exempt level keeps what it used.
//
// Requests: Start() classifies (the first schema in matchingPrecedence-then-name order that matches,
// else catch-all), estimates the seats (work_estimator.h) and hands the request to its level's queue
// set: it executes at once, is rejected, or waits in a queue (Ticket::request->decided is set when
// that ends). Cancel() ends a wait (its limit passed or the client left: rejected "time-out");
// Finish() ends an execution. Rejections count toward the level's Retry-After.
//
// Thread-safety: every method may be called from any thread; one mutex guards the state. Wake-ups of
// waiting requests happen after the lock is released. Create it with std::make_shared: lingering
// seats are released by a delayed callback that holds a weak reference.
#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "flowcontrol/config.h"
#include "flowcontrol/dropped_requests.h"
#include "flowcontrol/metrics.h"
#include "flowcontrol/queue_set.h"
#include "flowcontrol/watch_tracker.h"
#include "flowcontrol/work_estimator.h"
#include "util/clock.h"

namespace capstan::flowcontrol {

struct ControllerConfig {
  // --max-requests-inflight + --max-mutating-requests-inflight.
  int server_concurrency_limit = 600;
  WorkEstimatorConfig estimator;
  WorkEstimator::ObjectCount object_count;
  // Unset: the watches registered with watch_tracker().
  WorkEstimator::WatchCount watch_count;
  // Runs fn after the delay (lingering seats); default: util/timer.h's RunAfter.
  std::function<void(std::chrono::nanoseconds, std::function<void()>)> run_after;
};

struct PriorityLevelState;

// One request's passage through the dispatcher.
struct Ticket {
  std::string flow_schema, flow_schema_uid;
  std::string priority_level, priority_level_uid;
  bool exempt = false;
  RequestPtr request;  // its decision: kExecute, kReject or (queued) kPending
  bool watch = false;  // execution is counted as type "watch"
  std::shared_ptr<PriorityLevelState> level;
  bool finished = false;
};

// The limits of a level (for metrics, dumps and tests).
struct LevelLimits {
  bool exempt = false;
  bool quiescing = false;
  int nominal = 0;
  int lower = 0;  // nominal less lendable
  int upper = 0;  // nominal plus borrowable
  int current = 0;
  int max_seats = 0;  // per request (0: the global cap)
};

class Controller : public std::enable_shared_from_this<Controller> {
 public:
  // `metrics` may be null (tests).
  Controller(const Clock& clock, ControllerConfig config, Metrics* metrics);
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  void Apply(const std::vector<boost::json::value>& priority_levels, const std::vector<boost::json::value>& flow_schemas);

  Ticket Start(const RequestDigest& digest, const WorkRequest& work);
  // The wait ended before a decision; true if this rejected the request.
  bool Cancel(Ticket& t);
  void Finish(Ticket& t);
  void UpdateBorrowing();

  int64_t RetryAfter(const std::string& priority_level) const { return dropped_.RetryAfter(priority_level); }
  // The open watches (the filter registers each one it dispatches).
  WatchTracker& watch_tracker() { return watches_; }

  // Inspection.
  std::optional<LevelLimits> Limits(const std::string& priority_level) const;
  std::vector<std::string> FlowSchemaOrder() const;
  // FlowSchemas of the last Apply whose priority level does not exist.
  std::vector<std::string> Dangling() const;
  QueueSetCounters Counters(const std::string& priority_level) const;

  // /debug/api_priority_and_fairness/dump_* in kube's text format (dump.cpp).
  std::string DumpPriorityLevels() const;
  std::string DumpQueues() const;
  std::string DumpRequests(bool include_details) const;

 private:
  void FinishReconfigLocked();
  void UpdateBorrowingLocked(Decided& decided);
  void ApplyLimitsLocked(Decided& decided);
  void NoteDecidedLocked(PriorityLevelState& level, const Decided& decided);
  void ReleaseLingering(std::shared_ptr<PriorityLevelState> level, RequestPtr r);
  void MaybeReapLocked(PriorityLevelState& level, Decided& decided);
  // The metric series of (level, schema); null without metrics.
  FlowMetrics* FlowMetricsLocked(PriorityLevelState& level, const std::string& schema);
  static void Wake(const Decided& decided);

  const Clock& clock_;
  ControllerConfig config_;
  Metrics* metrics_;
  WatchTracker watches_;
  WorkEstimator estimator_;
  DroppedRequestsTracker dropped_;

  mutable std::mutex mu_;
  std::vector<FlowSchema> flow_schemas_;                                   // guarded by mu_; in matching order
  std::map<std::string, std::shared_ptr<PriorityLevelState>> levels_;    // guarded by mu_
  std::vector<std::string> dangling_;                                      // guarded by mu_
  int nominal_sum_ = 0;                                                    // guarded by mu_
};

// The state of one priority level; shared with the Tickets of its requests.
struct PriorityLevelState {
  PriorityLevel pl;
  std::unique_ptr<QueueSet> queues;
  bool quiescing = false;
  bool is_new = true;
  int nominal = 0, lower = 0, upper = 0, current = 0;
  int max_seats = 0;
  // Metric series by flow schema, and this level's R gauge (null without metrics).
  std::map<std::string, std::unique_ptr<FlowMetrics>, std::less<>> flow_metrics;
  Gauge* current_r = nullptr;
  struct DemandStats {
    double avg = 0, stddev = 0, smoothed = 0;
    int high_watermark = 0;
  } demand;
};

}  // namespace capstan::flowcontrol
