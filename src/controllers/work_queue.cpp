#include "controllers/work_queue.h"

#include <algorithm>
#include <vector>

namespace capstan::controllers {

namespace {
// kube's workqueue latency buckets: 10ns .. 10s by powers of ten.
std::vector<double> LatencyBuckets() { return ExponentialBuckets(10e-9, 10, 10); }
double Seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }
}  // namespace

WorkQueueMetrics::WorkQueueMetrics(MetricsRegistry& r)
    : depth(r.NewGaugeVec("workqueue_depth", "Current depth of workqueue", {"name"})),
      adds(r.NewCounterVec("workqueue_adds_total", "Total number of adds handled by workqueue", {"name"})),
      queue_duration(r.NewHistogramVec("workqueue_queue_duration_seconds",
                                       "How long in seconds an item stays in workqueue before being requested.",
                                       {"name"}, LatencyBuckets())),
      work_duration(r.NewHistogramVec("workqueue_work_duration_seconds",
                                      "How long in seconds processing an item from workqueue takes.", {"name"},
                                      LatencyBuckets())),
      unfinished_work(r.NewGaugeVec(
          "workqueue_unfinished_work_seconds",
          "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large "
          "values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which "
          "this increases.",
          {"name"})),
      longest_running(r.NewGaugeVec("workqueue_longest_running_processor_seconds",
                                    "How many seconds has the longest running processor for workqueue been running.",
                                    {"name"})),
      retries(r.NewCounterVec("workqueue_retries_total", "Total number of retries handled by workqueue", {"name"})) {}

WorkQueue::WorkQueue(WorkQueueConfig config) : c_(std::move(config)), anchor_(std::make_shared<Anchor>()) {
  anchor_->queue = this;
  if (!c_.limiter) c_.limiter = DefaultControllerRateLimiter();
  if (!c_.clock) c_.clock = &RealClock::Get();
  if (!c_.scheduler) c_.scheduler = [](Duration d, std::function<void()> fn) { return RunAfter(d, std::move(fn)); };
  if (c_.metrics) {
    LabelValues l{c_.name};
    depth_ = c_.metrics->depth.With(l);
    adds_ = c_.metrics->adds.With(l);
    queue_duration_ = c_.metrics->queue_duration.With(l);
    work_duration_ = c_.metrics->work_duration.With(l);
    unfinished_ = c_.metrics->unfinished_work.With(l);
    longest_ = c_.metrics->longest_running.With(l);
    retries_ = c_.metrics->retries.With(l);
  }
}

WorkQueue::~WorkQueue() {
  ShutDown();
  std::lock_guard lock(anchor_->mu);
  anchor_->queue = nullptr;
}

void WorkQueue::OnTimer(const std::string& item, std::chrono::steady_clock::time_point ready_at) {
  std::vector<Waiter> wake;
  {
    std::lock_guard lock(mu_);
    auto it = waiting_.find(item);
    if (it == waiting_.end() || it->second.ready_at != ready_at) return;  // superseded by an earlier add
    waiting_.erase(it);
    AddLocked(item, wake);
  }
  Wake(wake);
}

void WorkQueue::Wake(std::vector<Waiter>& wake) {
  for (auto& w : wake) {
    if (w.executor) {
      w.executor->Post([h = w.handle] { h.resume(); });
    } else {
      w.handle.resume();
    }
  }
}

std::string WorkQueue::TakeLocked() {
  std::string item = std::move(queue_.front());
  queue_.pop_front();
  auto now = c_.clock->Monotonic();
  if (depth_) depth_->Add(-1);
  if (auto it = add_times_.find(item); it != add_times_.end()) {
    if (queue_duration_) queue_duration_->Observe(Seconds(now - it->second));
    add_times_.erase(it);
  }
  processing_starts_[item] = now;
  processing_.insert(item);
  dirty_.erase(item);
  return item;
}

void WorkQueue::AddLocked(const std::string& item, std::vector<Waiter>& wake) {
  if (shutting_down_) return;
  if (dirty_.count(item)) return;
  if (adds_) adds_->Inc();
  if (depth_) depth_->Add(1);
  add_times_.emplace(item, c_.clock->Monotonic());
  dirty_.insert(item);
  if (processing_.count(item)) return;
  queue_.push_back(item);
  if (!waiters_.empty()) {
    Waiter w = waiters_.front();
    waiters_.pop_front();
    *w.slot = TakeLocked();
    wake.push_back(w);
  }
}

void WorkQueue::Add(const std::string& item) {
  std::vector<Waiter> wake;
  {
    std::lock_guard lock(mu_);
    AddLocked(item, wake);
  }
  Wake(wake);
}

void WorkQueue::AddAfter(const std::string& item, Duration delay) {
  std::vector<Waiter> wake;
  {
    std::lock_guard lock(mu_);
    if (shutting_down_) return;
    if (retries_) retries_->Inc();
    if (delay <= Duration(0)) {
      AddLocked(item, wake);
    } else {
      auto ready_at = c_.clock->Monotonic() + delay;
      auto it = waiting_.find(item);
      if (it != waiting_.end() && it->second.ready_at <= ready_at) return;  // an earlier add stands
      // A superseded timer is left to fire and find its time replaced.
      std::shared_ptr<Anchor> anchor = anchor_;
      auto fire = [anchor, item, ready_at] {
        std::lock_guard l(anchor->mu);
        if (anchor->queue) anchor->queue->OnTimer(item, ready_at);
      };
      waiting_[item] = Delayed{ready_at, nullptr};
      auto handle = c_.scheduler(delay, std::move(fire));
      if (auto wt = waiting_.find(item); wt != waiting_.end() && wt->second.ready_at == ready_at) {
        wt->second.timer = std::move(handle);
      }
    }
  }
  Wake(wake);
}

void WorkQueue::AddRateLimited(const std::string& item) { AddAfter(item, c_.limiter->When(item)); }
void WorkQueue::Forget(const std::string& item) { c_.limiter->Forget(item); }
int WorkQueue::NumRequeues(const std::string& item) const { return c_.limiter->NumRequeues(item); }

WorkQueue::GetAwaiter WorkQueue::Get() { return GetAwaiter(*this); }

bool WorkQueue::GetAwaiter::await_ready() {
  std::lock_guard lock(q_.mu_);
  if (q_.shutting_down_) return true;
  if (q_.queue_.empty()) return false;
  result_ = q_.TakeLocked();
  return true;
}

bool WorkQueue::GetAwaiter::await_suspend(std::coroutine_handle<> h) {
  std::lock_guard lock(q_.mu_);
  if (q_.shutting_down_) return false;
  if (!q_.queue_.empty()) {
    result_ = q_.TakeLocked();
    return false;
  }
  q_.waiters_.push_back(Waiter{h, CurrentExecutor(), &result_});
  return true;
}

std::optional<std::string> WorkQueue::TryGet() {
  std::lock_guard lock(mu_);
  if (shutting_down_ || queue_.empty()) return std::nullopt;
  return TakeLocked();
}

void WorkQueue::Done(const std::string& item) {
  std::vector<Waiter> wake;
  {
    std::lock_guard lock(mu_);
    if (auto it = processing_starts_.find(item); it != processing_starts_.end()) {
      if (work_duration_) work_duration_->Observe(Seconds(c_.clock->Monotonic() - it->second));
      processing_starts_.erase(it);
    }
    processing_.erase(item);
    if (dirty_.count(item) && !shutting_down_) {
      queue_.push_back(item);
      if (!waiters_.empty()) {
        Waiter w = waiters_.front();
        waiters_.pop_front();
        *w.slot = TakeLocked();
        wake.push_back(w);
      }
    }
  }
  Wake(wake);
}

void WorkQueue::ShutDown() {
  std::vector<Waiter> wake;
  std::vector<std::shared_ptr<TimerHandle>> timers;
  {
    std::lock_guard lock(mu_);
    if (shutting_down_) return;
    shutting_down_ = true;
    for (auto& [item, d] : waiting_) {
      if (d.timer) timers.push_back(d.timer);
    }
    waiting_.clear();
    wake.assign(waiters_.begin(), waiters_.end());
    waiters_.clear();
  }
  // Cancel outside the lock: a timer callback that is running waits for the lock.
  for (auto& t : timers) t->Cancel();
  Wake(wake);
}

bool WorkQueue::ShuttingDown() const {
  std::lock_guard lock(mu_);
  return shutting_down_;
}

size_t WorkQueue::Len() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

size_t WorkQueue::Waiting() const {
  std::lock_guard lock(mu_);
  return waiting_.size();
}

void WorkQueue::UpdateUnfinishedWorkMetrics() {
  std::lock_guard lock(mu_);
  if (!unfinished_ || !longest_) return;
  auto now = c_.clock->Monotonic();
  double total = 0, longest = 0;
  for (const auto& [item, start] : processing_starts_) {
    double s = Seconds(now - start);
    total += s;
    longest = std::max(longest, s);
  }
  unfinished_->Set(total);
  longest_->Set(longest);
}

}  // namespace capstan::controllers
