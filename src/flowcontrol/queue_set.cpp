#include "flowcontrol/queue_set.h"

#include <algorithm>
#include <limits>

namespace capstan::flowcontrol {

const char* RejectReasonLabel(RejectReason r) {
  switch (r) {
    case RejectReason::kQueueFull:
      return "queue-full";
    case RejectReason::kConcurrencyLimit:
      return "concurrency-limit";
    case RejectReason::kTimeOut:
      return "time-out";
    case RejectReason::kNone:
      break;
  }
  return "";
}

double Request::InitialWork() const { return work.initial_seats * kEstimatedServiceSeconds; }

double Request::FinalWork() const {
  return work.final_seats * std::chrono::duration<double>(work.additional_latency).count();
}

StatusOr<std::unique_ptr<QueueSet>> QueueSet::Make(const Clock& clock, QueuingConfig config) {
  std::optional<Dealer> dealer;
  if (config.desired_queues > 0) {
    auto d = Dealer::Make(config.desired_queues, config.hand_size);
    if (!d.ok()) return d.status();
    dealer = *d;
  }
  return std::unique_ptr<QueueSet>(new QueueSet(clock, std::move(config), dealer));
}

QueueSet::QueueSet(const Clock& clock, QueuingConfig config, std::optional<Dealer> dealer)
    : clock_(clock), config_(std::move(config)), dealer_(dealer), last_real_(clock.Monotonic()), robin_index_(0),
      demand_(clock) {
  for (int i = 0; i < config_.desired_queues; ++i) {
    queues_.push_back(std::make_unique<Queue>());
    queues_.back()->index = i;
  }
}

Status QueueSet::SetQueuing(QueuingConfig config, Decided& decided) {
  std::optional<Dealer> dealer;
  if (config.desired_queues > 0) {
    auto d = Dealer::Make(config.desired_queues, config.hand_size);
    if (!d.ok()) return d.status();
    dealer = *d;
  }
  SyncTime();
  if (config.desired_queues > 0) {
    while (static_cast<int>(queues_.size()) < config.desired_queues) {
      queues_.push_back(std::make_unique<Queue>());
      queues_.back()->index = static_cast<int>(queues_.size()) - 1;
    }
  } else {
    // Without queues the other queuing parameters keep their last values (kube's setConfiguration).
    config.queue_length_limit = config_.queue_length_limit;
    config.hand_size = config_.hand_size;
  }
  config_ = std::move(config);
  dealer_ = dealer;
  DispatchAsMuchAsPossible(decided);
  return Status();
}

void QueueSet::SetConcurrencyLimit(int limit, Decided& decided) {
  SyncTime();
  limit_ = limit;
  DispatchAsMuchAsPossible(decided);
}

void QueueSet::SyncTime() {
  auto now = clock_.Monotonic();
  double dt = std::chrono::duration<double>(now - last_real_).count();
  last_real_ = now;
  if (dt > 0) current_r_ += VirtualTimeRatio() * dt;
}

double QueueSet::VirtualTimeRatio() const {
  if (active_queues_ == 0) return 0;
  return std::min<double>(queue_seats_requested_, limit_) / active_queues_;
}

void QueueSet::NoteActivity(const Queue& q, bool was_active) {
  bool active = !q.waiting.empty() || q.executing > 0;
  if (active != was_active) active_queues_ += active ? 1 : -1;
}

bool QueueSet::CanAccommodate(int seats) const {
  if (config_.desired_queues < 0) return true;
  // A request wider than the whole limit runs alone.
  if (seats > limit_) return executing_ == 0;
  return seats_in_use_ + seats <= limit_;
}

RequestPtr QueueSet::Start(WorkEstimate work, uint64_t hash, std::string flow_schema, std::string distinguisher,
                           Decided& decided) {
  SyncTime();
  auto r = std::make_shared<Request>();
  r->flow_schema = std::move(flow_schema);
  r->distinguisher = std::move(distinguisher);
  r->work = work;
  r->arrival = clock_.Monotonic();
  r->arrival_wall = clock_.Now();
  r->arrival_r = current_r_;
  if (config_.desired_queues < 1) {
    if (!CanAccommodate(work.MaxSeats())) {
      r->decision = Decision::kReject;
      r->reason = RejectReason::kConcurrencyLimit;
      ++rejected_;
      return r;
    }
    Execute(r, decided);
    return r;
  }
  Queue& q = *queues_[ChooseQueue(hash)];
  if (seats_in_use_ >= limit_ && static_cast<int>(q.waiting.size()) >= config_.queue_length_limit) {
    r->decision = Decision::kReject;
    r->reason = RejectReason::kQueueFull;
    ++rejected_;
    return r;
  }
  Enqueue(r, q);
  BoundNextDispatch(q);
  if (waiting_ == 1 && seats_in_use_ < limit_) {
    // Its queue is the only non-empty one: the dispatch scan would choose it.
    DispatchFrom(q, q.index, decided);
    return r;
  }
  DispatchAsMuchAsPossible(decided);
  return r;
}

int QueueSet::ChooseQueue(uint64_t hash) {
  std::vector<int> hand = dealer_->Deal(hash);
  const int hand_size = static_cast<int>(hand.size());
  // Visit the hand from a rotating offset so flows with overlapping hands are not biased.
  int offset = static_cast<int>(enqueues_ % static_cast<uint64_t>(hand_size));
  ++enqueues_;
  int best = -1;
  double least = std::numeric_limits<double>::infinity();
  for (int i = 0; i < hand_size; ++i) {
    int idx = hand[(offset + i) % hand_size];
    double work = queues_[idx]->total_work_sum;
    if (work < least) {
      least = work;
      best = idx;
    }
  }
  return best;
}

void QueueSet::Enqueue(const RequestPtr& r, Queue& q) {
  const bool was_active = !q.waiting.empty() || q.executing > 0;
  if (!was_active) q.next_dispatch_r = current_r_;
  q.waiting.push_back(r);
  NoteActivity(q, was_active);
  q.initial_seats_sum += r->work.initial_seats;
  q.max_seats_sum += r->work.MaxSeats();
  queue_seats_requested_ += r->work.MaxSeats();
  q.total_work_sum += r->TotalWork();
  r->queue = &q;
  ++waiting_;
  seats_waiting_ += r->work.MaxSeats();
  NoteDemand();
}

void QueueSet::RemoveWaiting(Queue& q, const Request& r) {
  auto it = std::find_if(q.waiting.begin(), q.waiting.end(), [&](const RequestPtr& p) { return p.get() == &r; });
  if (it == q.waiting.end()) return;
  q.initial_seats_sum -= r.work.initial_seats;
  q.max_seats_sum -= r.work.MaxSeats();
  queue_seats_requested_ -= r.work.MaxSeats();
  q.total_work_sum -= r.TotalWork();
  q.waiting.erase(it);
  NoteActivity(q, true);
  --waiting_;
  seats_waiting_ -= r.work.MaxSeats();
}

void QueueSet::DispatchAsMuchAsPossible(Decided& decided) {
  while (waiting_ > 0 && seats_in_use_ < limit_ && DispatchOne(decided)) {
  }
}

bool QueueSet::DispatchOne(Decided& decided) {
  const int nq = static_cast<int>(queues_.size());
  if (nq == 0) return false;
  Queue* best = nullptr;
  int best_index = 0;
  double best_finish = std::numeric_limits<double>::infinity();
  for (int k = 0; k < nq; ++k) {
    robin_index_ = (robin_index_ + 1) % nq;
    Queue& q = *queues_[robin_index_];
    if (q.waiting.empty()) continue;
    double finish = q.next_dispatch_r + q.waiting.front()->TotalWork();
    if (finish < best_finish) {
      best_finish = finish;
      best = &q;
      best_index = robin_index_;
    }
  }
  if (!best) return false;
  return DispatchFrom(*best, best_index, decided);
}

bool QueueSet::DispatchFrom(Queue& queue, int index, Decided& decided) {
  Queue* best = &queue;
  RequestPtr r = best->waiting.front();
  if (!CanAccommodate(r->work.MaxSeats())) return false;
  double total_work = r->TotalWork();
  RemoveWaiting(*best, *r);
  // Final seats beyond the whole limit are cut to it, lingering longer for the same work.
  if (r->work.final_seats > limit_ && limit_ > 0) {
    double final_work = r->FinalWork();
    r->work.final_seats = limit_;
    r->work.additional_latency = std::chrono::nanoseconds(static_cast<int64_t>(final_work / limit_ * 1e9));
  }
  // The next round starts after the chosen queue, so the others win ties.
  robin_index_ = index;
  Execute(r, decided);
  best->next_dispatch_r += total_work;
  BoundNextDispatch(*best);
  return true;
}

void QueueSet::Execute(const RequestPtr& r, Decided& decided) {
  r->decision = Decision::kExecute;
  r->start = clock_.Monotonic();
  r->seats_held = true;
  const int seats = r->work.MaxSeats();
  ++executing_;
  seats_in_use_ += seats;
  if (r->queue) {
    const bool was_active = !r->queue->waiting.empty() || r->queue->executing > 0;
    r->queue->executing++;
    NoteActivity(*r->queue, was_active);
    r->queue->running.push_back(r);
    r->queue->seats_in_use += seats;
    queue_seats_requested_ += seats;
  } else {
    queueless_.push_back(r);
  }
  ++dispatched_;
  NoteDemand();
  decided.push_back(r);
}

bool QueueSet::Cancel(Request& r, RejectReason reason, Decided& decided) {
  if (r.decision != Decision::kPending) return false;
  SyncTime();
  Queue* q = r.queue;
  if (q) RemoveWaiting(*q, r);
  r.decision = Decision::kReject;
  r.reason = reason;
  ++rejected_;
  ++cancelled_;  // kube 1.32 counts a request whose wait ended as cancelled (metric reason "time-out")
  NoteDemand();
  if (q) BoundNextDispatch(*q);
  DispatchAsMuchAsPossible(decided);
  return true;
}

std::optional<std::chrono::nanoseconds> QueueSet::Finish(Request& r, Decided& decided) {
  if (r.decision != Decision::kExecute) return std::nullopt;
  SyncTime();
  --executing_;
  double actual = std::chrono::duration<double>(clock_.Monotonic() - r.start).count();
  if (r.queue) {
    r.queue->executing--;
    NoteActivity(*r.queue, true);
    auto& running = r.queue->running;
    auto it = std::find_if(running.begin(), running.end(), [&](const RequestPtr& p) { return p.get() == &r; });
    if (it != running.end()) running.erase(it);
    // The dispatch charged G per seat; correct to the actual service time.
    r.queue->next_dispatch_r -= r.work.initial_seats * (kEstimatedServiceSeconds - actual);
    BoundNextDispatch(*r.queue);
  } else {
    auto it = std::find_if(queueless_.begin(), queueless_.end(), [&](const RequestPtr& p) { return p.get() == &r; });
    if (it != queueless_.end()) queueless_.erase(it);
  }
  if (r.work.additional_latency.count() > 0) return r.work.additional_latency;
  ReleaseSeats(r);
  DispatchAsMuchAsPossible(decided);
  return std::nullopt;
}

void QueueSet::ReleaseFinalSeats(Request& r, Decided& decided) {
  SyncTime();
  ReleaseSeats(r);
  DispatchAsMuchAsPossible(decided);
}

void QueueSet::ReleaseSeats(Request& r) {
  if (!r.seats_held) return;
  r.seats_held = false;
  const int seats = r.work.MaxSeats();
  seats_in_use_ -= seats;
  if (r.queue) {
    r.queue->seats_in_use -= seats;
    queue_seats_requested_ -= seats;
  }
  NoteDemand();
  Queue* q = r.queue;
  r.queue = nullptr;  // the queue may go now
  MaybeRemoveQueue(q);
}

void QueueSet::BoundNextDispatch(Queue& q) {
  if (q.waiting.empty()) return;
  // Dispatch in the virtual world never precedes arrival (kube's anti-windup).
  q.next_dispatch_r = std::max(q.next_dispatch_r, q.waiting.front()->arrival_r);
}

void QueueSet::MaybeRemoveQueue(Queue* q) {
  if (!q || static_cast<int>(queues_.size()) <= config_.desired_queues) return;
  if (!q->waiting.empty() || q->executing > 0 || q->seats_in_use > 0) return;
  const int idx = q->index;
  queues_.erase(queues_.begin() + idx);
  for (int i = idx; i < static_cast<int>(queues_.size()); ++i) queues_[i]->index = i;
  if (robin_index_ >= idx) --robin_index_;
}

bool QueueSet::TotalsConsistent() const {
  int active = 0, requested = 0, waiting = 0, seats_waiting = 0;
  for (const auto& q : queues_) {
    if (!q->waiting.empty() || q->executing > 0) ++active;
    requested += q->seats_in_use + q->max_seats_sum;
    waiting += static_cast<int>(q->waiting.size());
    for (const auto& r : q->waiting) seats_waiting += r->work.MaxSeats();
    if (q->executing != static_cast<int>(q->running.size())) return false;
  }
  return active == active_queues_ && requested == queue_seats_requested_ && waiting == waiting_ &&
         seats_waiting == seats_waiting_;
}

QueueSetCounters QueueSet::Counters() const {
  QueueSetCounters c;
  c.waiting = waiting_;
  c.executing = executing_;
  c.seats_in_use = seats_in_use_;
  c.seats_waiting = seats_waiting_;
  c.dispatched = dispatched_;
  c.rejected = rejected_;
  c.timed_out = timed_out_;
  c.cancelled = cancelled_;
  return c;
}

}  // namespace capstan::flowcontrol
