// flowcontrol/queue_set.h: the requests of one priority level: seats in use, and the queues with
// fair queuing by virtual time (kube's fairqueuing/queueset).
//
// Three modes, from the level's configuration: exempt (everything executes at once, counted only),
// no queues (limitResponse Reject: execute if the seats fit, else reject "concurrency-limit"), and
// queues (limitResponse Queue). With queues, a request is shuffle-sharded by its flow's hash onto
// the queue of its hand with the least waiting work, rejected "queue-full" when all seats are taken
// and that queue holds queueLengthLimit requests, and otherwise enqueued; dispatch then repeatedly
// picks, round robin from the last queue served, the queue whose oldest request would finish first
// in virtual time (the queue's next dispatch R plus the request's work), while the seats it needs
// fit. Virtual time R advances at min(seats demanded, limit) / active queues seat-seconds per
// second; a queue's next dispatch R grows by each dispatched request's work (its seats x 3ms, plus
// its lingering seats x their extra latency) and is corrected by (3ms - actual service time) x seats
// when the request finishes; it never trails its oldest request's arrival R (kube's anti-windup).
// A request wider than the whole limit runs alone. Final (lingering) seats are released after the
// request's additional latency, through Finish's `linger` answer.
//
// Virtual times are doubles in seat-seconds (kube uses fixed point with epoch advances; a double
// keeps nanosecond resolution for years of R).
//
// Thread-compatible: the Controller holds its lock around every call. Requests that leave the
// pending state are appended to `decided` so the caller can wake their waiters after unlocking.
#pragma once

#include <chrono>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "flowcontrol/seat_demand.h"
#include "flowcontrol/shuffle_sharding.h"
#include "flowcontrol/work_estimator.h"
#include "util/async.h"
#include "util/clock.h"

namespace capstan::flowcontrol {

enum class Decision { kPending, kExecute, kReject };
// kTimeOut: the request's queue wait ended, by its wait limit or because its client went away (kube
// 1.32 labels both "time-out").
enum class RejectReason { kNone, kQueueFull, kConcurrencyLimit, kTimeOut };
// kube's metric label for a reason: "queue-full", "concurrency-limit", "time-out".
const char* RejectReasonLabel(RejectReason r);

struct Queue;

struct Request {
  std::string flow_schema;
  std::string distinguisher;
  WorkEstimate work;
  std::chrono::steady_clock::time_point arrival;
  std::chrono::system_clock::time_point arrival_wall;
  std::chrono::steady_clock::time_point start;  // when it began executing
  double arrival_r = 0;
  Queue* queue = nullptr;  // the queue it waits in or was dispatched from; null: queueless
  Decision decision = Decision::kPending;
  RejectReason reason = RejectReason::kNone;
  bool seats_held = false;
  // Set (by the Controller, outside its lock) once the decision is no longer pending.
  AsyncEvent decided;
  // Descriptive, for dump_requests.
  std::string user, verb, path, namespace_, name, api_version, resource, subresource;

  double InitialWork() const;  // initial seats x the estimated service time
  double FinalWork() const;    // final seats x additional latency
  double TotalWork() const { return InitialWork() + FinalWork(); }
};
using RequestPtr = std::shared_ptr<Request>;
using Decided = std::vector<RequestPtr>;

struct Queue {
  int index = 0;
  // A list, not a deque: an empty std::deque already holds a 512-byte block, and kube's default
  // priority levels have several hundred queues that are empty nearly always.
  std::list<RequestPtr> waiting;
  std::vector<RequestPtr> running;  // dispatched from this queue, still executing
  int executing = 0;
  int seats_in_use = 0;
  double next_dispatch_r = 0;
  // Sums over the waiting requests.
  int initial_seats_sum = 0;
  int max_seats_sum = 0;
  double total_work_sum = 0;
};

struct QueuingConfig {
  std::string name;
  int desired_queues = 0;  // -1: exempt; 0: no queuing (reject when full)
  int queue_length_limit = 0;
  int hand_size = 0;
};

// The counters dump_priority_levels prints.
struct QueueSetCounters {
  int waiting = 0;
  int executing = 0;
  int seats_in_use = 0;
  int seats_waiting = 0;
  uint64_t dispatched = 0;
  uint64_t rejected = 0;
  uint64_t timed_out = 0;
  uint64_t cancelled = 0;
};

class QueueSet {
 public:
  // A 400 Status when the queuing configuration has no valid dealer.
  static StatusOr<std::unique_ptr<QueueSet>> Make(const Clock& clock, QueuingConfig config);
  QueueSet(const QueueSet&) = delete;
  QueueSet& operator=(const QueueSet&) = delete;

  // Adopts a new queuing configuration (queues are added at once and removed as they drain).
  Status SetQueuing(QueuingConfig config, Decided& decided);
  // The current concurrency limit in seats (the level's current limit); dispatches what now fits.
  void SetConcurrencyLimit(int limit, Decided& decided);

  // A new request: decided at once (execute or reject) or queued (pending).
  RequestPtr Start(WorkEstimate work, uint64_t hash, std::string flow_schema, std::string distinguisher,
                   Decided& decided);
  // The request's wait ended (limit reached or client gone) while pending: it leaves its queue and is
  // rejected with `reason`. False when it was decided already.
  bool Cancel(Request& r, RejectReason reason, Decided& decided);
  // An executing request finished. When it holds final seats for an additional latency, returns
  // that latency: call ReleaseFinalSeats when it has passed.
  std::optional<std::chrono::nanoseconds> Finish(Request& r, Decided& decided);
  void ReleaseFinalSeats(Request& r, Decided& decided);

  bool IsIdle() const { return waiting_ == 0 && executing_ == 0; }
  bool exempt() const { return config_.desired_queues < 0; }
  int concurrency_limit() const { return limit_; }
  const QueuingConfig& config() const { return config_; }
  QueueSetCounters Counters() const;
  const std::vector<std::unique_ptr<Queue>>& queues() const { return queues_; }
  const std::vector<RequestPtr>& queueless_executing() const { return queueless_; }
  double current_r() const { return current_r_; }
  // Seats in use plus seats waiting, integrated over time (the borrowing adjustment's input).
  Integrator& demand() { return demand_; }

  // True when the incrementally kept totals match a recount over the queues (tests).
  bool TotalsConsistent() const;

  // Brings virtual time up to now; called before every change.
  void SyncTime();

 private:
  QueueSet(const Clock& clock, QueuingConfig config, std::optional<Dealer> dealer);
  bool CanAccommodate(int seats) const;
  int ChooseQueue(uint64_t hash);
  void Enqueue(const RequestPtr& r, Queue& q);
  void RemoveWaiting(Queue& q, const Request& r);
  void DispatchAsMuchAsPossible(Decided& decided);
  bool DispatchOne(Decided& decided);
  // Dispatches the head of `queue` (at `index`) if its seats fit.
  bool DispatchFrom(Queue& queue, int index, Decided& decided);
  // Keeps active_queues_ right after a change to q's waiting or executing requests.
  void NoteActivity(const Queue& q, bool was_active);
  void Execute(const RequestPtr& r, Decided& decided);
  void ReleaseSeats(Request& r);
  void BoundNextDispatch(Queue& q);
  void MaybeRemoveQueue(Queue* q);
  double VirtualTimeRatio() const;
  void NoteDemand() { demand_.Set(seats_in_use_ + seats_waiting_); }

  const Clock& clock_;
  QueuingConfig config_;
  std::optional<Dealer> dealer_;
  int limit_ = 0;
  std::vector<std::unique_ptr<Queue>> queues_;
  std::vector<RequestPtr> queueless_;  // executing without a queue (exempt, no queuing)
  double current_r_ = 0;
  std::chrono::steady_clock::time_point last_real_;
  int robin_index_ = -1;
  // For the virtual time ratio, kept as requests come and go: queues with requests waiting or
  // executing, and Σ over queues of seats in use plus seats waiting.
  int active_queues_ = 0;
  int queue_seats_requested_ = 0;
  uint64_t enqueues_ = 0;
  int waiting_ = 0;
  int executing_ = 0;
  int seats_in_use_ = 0;
  int seats_waiting_ = 0;
  uint64_t dispatched_ = 0, rejected_ = 0, timed_out_ = 0, cancelled_ = 0;
  Integrator demand_;
};

// kube's estimated service time G (3ms): the work a seat is assumed to take before it finishes.
inline constexpr double kEstimatedServiceSeconds = 0.003;

}  // namespace capstan::flowcontrol
