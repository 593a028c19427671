// controllers/work_queue.h: kube's rate-limited work queue (client-go util/workqueue) for coroutines.
//
// Semantics as kube's: an item added while it waits is not queued twice (dedup); an item added while
// a worker processes it is queued again only when that worker calls Done (so one item is never
// processed by two workers at once); AddAfter delays an add (an item already waiting keeps the
// earlier time); AddRateLimited delays by the rate limiter's When(item) (per-item exponential
// backoff); Forget clears an item's backoff; NumRequeues lets a controller give up after N retries.
// Get suspends the calling coroutine until an item is ready and resumes it on the executor it
// awaited from; after ShutDown every Get returns nullopt and adds are dropped.
//
// Metrics are kube's workqueue_* families labelled by queue name (workqueue_adds_total,
// workqueue_depth, workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
// workqueue_retries_total, workqueue_unfinished_work_seconds,
// workqueue_longest_running_processor_seconds), registered once per MetricsRegistry in
// WorkQueueMetrics and shared by all queues.
//
// Thread-safety: every method is safe from any thread (delayed adds fire on the timer thread).
#pragma once

#include <chrono>
#include <coroutine>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "controllers/rate_limiter.h"
#include "util/clock.h"
#include "util/executor.h"
#include "util/metrics.h"
#include "util/timer.h"

namespace capstan::controllers {

struct WorkQueueMetrics {
  explicit WorkQueueMetrics(MetricsRegistry& registry);
  GaugeVec& depth;
  CounterVec& adds;
  HistogramVec& queue_duration;
  HistogramVec& work_duration;
  GaugeVec& unfinished_work;
  GaugeVec& longest_running;
  CounterVec& retries;
};

// Runs fn after a delay (on any thread); the handle cancels it. Default: util/timer.h RunAfter.
using Scheduler = std::function<std::shared_ptr<TimerHandle>(Duration, std::function<void()>)>;

struct WorkQueueConfig {
  std::string name;
  std::unique_ptr<RateLimiter> limiter;  // null: DefaultControllerRateLimiter()
  WorkQueueMetrics* metrics = nullptr;   // null: no metrics
  const Clock* clock = &RealClock::Get();
  Scheduler scheduler;                   // null: RunAfter
};

class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueConfig config);
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  const std::string& name() const { return c_.name; }

  void Add(const std::string& item);
  void AddAfter(const std::string& item, Duration delay);
  void AddRateLimited(const std::string& item);
  void Forget(const std::string& item);
  int NumRequeues(const std::string& item) const;

  class GetAwaiter;
  // co_await queue.Get(): the next item, or nullopt once the queue is shut down.
  GetAwaiter Get();
  // The next item if one is ready now (tests and drains).
  std::optional<std::string> TryGet();
  // The caller finished processing `item` (whatever the outcome).
  void Done(const std::string& item);

  void ShutDown();
  bool ShuttingDown() const;
  // Items ready to be taken.
  size_t Len() const;
  // Items waiting for a delayed add.
  size_t Waiting() const;
  // Refreshes workqueue_unfinished_work_seconds and workqueue_longest_running_processor_seconds.
  void UpdateUnfinishedWorkMetrics();

 private:
  struct Waiter {
    std::coroutine_handle<> handle;
    std::shared_ptr<Executor> executor;
    std::optional<std::string>* slot;
  };

 public:
  class GetAwaiter {
   public:
    explicit GetAwaiter(WorkQueue& q) : q_(q) {}
    bool await_ready();
    bool await_suspend(std::coroutine_handle<> h);
    std::optional<std::string> await_resume() { return std::move(result_); }

   private:
    WorkQueue& q_;
    std::optional<std::string> result_;
  };

 private:
  void AddLocked(const std::string& item, std::vector<Waiter>& wake);
  std::string TakeLocked();  // pops the front of queue_ and marks it processing
  static void Wake(std::vector<Waiter>& wake);

  WorkQueueConfig c_;
  Gauge* depth_ = nullptr;
  Counter* adds_ = nullptr;
  Histogram* queue_duration_ = nullptr;
  Histogram* work_duration_ = nullptr;
  Gauge* unfinished_ = nullptr;
  Gauge* longest_ = nullptr;
  Counter* retries_ = nullptr;

  mutable std::mutex mu_;
  std::deque<std::string> queue_;                                                   // GUARDED_BY(mu_)
  std::set<std::string> dirty_;                                                     // GUARDED_BY(mu_)
  std::set<std::string> processing_;                                                // GUARDED_BY(mu_)
  std::map<std::string, std::chrono::steady_clock::time_point> add_times_;          // GUARDED_BY(mu_)
  std::map<std::string, std::chrono::steady_clock::time_point> processing_starts_;  // GUARDED_BY(mu_)
  struct Delayed {
    std::chrono::steady_clock::time_point ready_at;
    std::shared_ptr<TimerHandle> timer;
  };
  std::map<std::string, Delayed> waiting_;  // GUARDED_BY(mu_)
  std::deque<Waiter> waiters_;              // GUARDED_BY(mu_)
  bool shutting_down_ = false;              // GUARDED_BY(mu_)
  // Delayed adds reach the queue through the anchor; the destructor clears it (waiting for a callback
  // in flight), so a timer that fires after the queue is gone does nothing.
  struct Anchor {
    std::mutex mu;
    WorkQueue* queue = nullptr;  // GUARDED_BY(mu)
  };
  std::shared_ptr<Anchor> anchor_;
  void OnTimer(const std::string& item, std::chrono::steady_clock::time_point ready_at);
};

}  // namespace capstan::controllers
