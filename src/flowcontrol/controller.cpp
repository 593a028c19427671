#include "flowcontrol/controller.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "flowcontrol/concurrency_allocation.h"
#include "flowcontrol/rules.h"
#include "util/log.h"
#include "util/timer.h"

namespace capstan::flowcontrol {

namespace {

// kube's seatDemandSmoothingCoefficient: a half-life of 5 minutes at one adjustment every 10s.
constexpr double kSmoothing = 0.977;
// Per-request seat cap of a queuing level: 15% of its nominal limit.
constexpr double kLevelMaxSeatsFraction = 0.15;

QueuingConfig QueuingFor(const PriorityLevel& pl) {
  QueuingConfig q;
  q.name = pl.name;
  if (pl.exempt) {
    q.desired_queues = -1;
  } else if (pl.queuing) {
    q.desired_queues = pl.queues;
    q.queue_length_limit = pl.queue_length_limit;
    q.hand_size = pl.hand_size;
  }
  return q;
}

}  // namespace

Controller::Controller(const Clock& clock, ControllerConfig config, Metrics* metrics)
    : clock_(clock),
      config_(std::move(config)),
      metrics_(metrics),
      estimator_(config_.estimator, config_.object_count,
                 config_.watch_count ? config_.watch_count
                                     : WorkEstimator::WatchCount([this](const WorkRequest& r) { return watches_.InterestedCount(r); })),
      dropped_(clock) {
  if (!config_.run_after) {
    config_.run_after = [](std::chrono::nanoseconds d, std::function<void()> fn) { RunAfter(d, std::move(fn)); };
  }
  Apply({}, {});
}

void Controller::Apply(const std::vector<boost::json::value>& priority_levels,
                       const std::vector<boost::json::value>& flow_schemas) {
  Decided decided;
  {
    std::lock_guard lock(mu_);
    std::map<std::string, std::shared_ptr<PriorityLevelState>> next;
    auto adopt = [&](PriorityLevel pl) {
      auto it = levels_.find(pl.name);
      std::shared_ptr<PriorityLevelState> state;
      if (it != levels_.end() && it->second->pl.exempt == pl.exempt) {
        state = it->second;
        Status st = state->queues->SetQueuing(QueuingFor(pl), decided);
        if (!st.ok()) {
          LogWarn("ignoring priority level with a broken queuing configuration", {{"name", pl.name}, {"error", st.message()}});
          return;
        }
        state->is_new = false;
      } else {
        auto qs = QueueSet::Make(clock_, QueuingFor(pl));
        if (!qs.ok()) {
          LogWarn("ignoring priority level with a broken queuing configuration", {{"name", pl.name}, {"error", qs.status().message()}});
          return;
        }
        state = std::make_shared<PriorityLevelState>();
        state->queues = std::move(*qs);
      }
      state->quiescing = false;
      state->pl = std::move(pl);
      next[state->pl.name] = state;
    };
    for (const auto& obj : priority_levels) {
      auto pl = ParsePriorityLevel(obj);
      if (!pl.ok()) {
        LogWarn("ignoring priority level configuration", {{"error", pl.status().message()}});
        continue;
      }
      if (next.count(pl->name)) continue;
      adopt(std::move(*pl));
    }
    // Levels that went away keep serving what they hold; the mandatory ones are imagined instead.
    for (auto& [name, state] : levels_) {
      if (next.count(name)) continue;
      bool mandatory = name == kExemptName || name == kCatchAllName;
      if (!mandatory) {
        if (state->queues->IsIdle()) continue;
        state->quiescing = true;
      }
      next[name] = state;
    }
    if (!next.count(kExemptName)) adopt(MandatoryExemptPriorityLevel());
    if (!next.count(kCatchAllName)) adopt(MandatoryCatchAllPriorityLevel());

    std::vector<FlowSchema> schemas;
    std::set<std::string> seen;
    dangling_.clear();
    for (const auto& obj : flow_schemas) {
      auto fs = ParseFlowSchema(obj);
      if (!fs.ok()) {
        LogWarn("ignoring flow schema", {{"error", fs.status().message()}});
        continue;
      }
      if (!seen.insert(fs->name).second) continue;
      auto lvl = next.find(fs->priority_level);
      if (lvl == next.end() || lvl->second->quiescing) {
        dangling_.push_back(fs->name);
        continue;
      }
      schemas.push_back(std::move(*fs));
    }
    std::sort(schemas.begin(), schemas.end(), MatchesBefore);
    if (!seen.count(kExemptName)) schemas.insert(schemas.begin(), MandatoryExemptFlowSchema());
    if (!seen.count(kCatchAllName)) schemas.push_back(MandatoryCatchAllFlowSchema());
    flow_schemas_ = std::move(schemas);
    levels_ = std::move(next);
    FinishReconfigLocked();
    UpdateBorrowingLocked(decided);
  }
  Wake(decided);
}

namespace {
constexpr int kMaxSeatLimit = 1 << 30;  // keeps nominal + borrowing within an int
}  // namespace

void Controller::FinishReconfigLocked() {
  double share_sum = 0;
  for (const auto& [name, s] : levels_) share_sum += s->pl.nominal_concurrency_shares;
  const int server = config_.server_concurrency_limit;
  nominal_sum_ = 0;
  for (auto& [name, s] : levels_) {
    const PriorityLevel& pl = s->pl;
    int nominal = share_sum > 0 ? static_cast<int>(std::ceil(static_cast<double>(server) * pl.nominal_concurrency_shares / share_sum)) : 0;
    // In floating point as kube computes them (the percents are int32s without an upper bound here).
    auto percent_of = [nominal](double percent) {
      return static_cast<int>(std::min(std::round(nominal * percent / 100.0), static_cast<double>(kMaxSeatLimit)));
    };
    int lendable = percent_of(pl.lendable_percent);
    int borrowing = pl.borrowing_limit_percent ? percent_of(*pl.borrowing_limit_percent) : server;
    if (pl.exempt) borrowing = server;  // kube: exempt levels have no borrowingLimitPercent
    s->nominal = nominal;
    s->lower = nominal - lendable;
    s->upper = nominal + borrowing;
    nominal_sum_ += nominal;
    s->max_seats = 0;
    if (!pl.exempt && pl.queuing) {
      double cap = std::min(std::ceil(nominal * kLevelMaxSeatsFraction), static_cast<double>(nominal / pl.hand_size));
      s->max_seats = static_cast<int>(std::max(1.0, cap));
    }
    if (s->is_new) {
      s->current = nominal - lendable / 2;
      s->demand = {};
      s->is_new = false;
    }
    if (metrics_) {
      metrics_->concurrency_limit.With({name})->Set(nominal);
      metrics_->nominal_limit.With({name})->Set(nominal);
      metrics_->lower_limit.With({name})->Set(s->lower);
      metrics_->upper_limit.With({name})->Set(s->upper);
    }
  }
}

void Controller::UpdateBorrowing() {
  Decided decided;
  {
    std::lock_guard lock(mu_);
    UpdateBorrowingLocked(decided);
  }
  Wake(decided);
}

void Controller::UpdateBorrowingLocked(Decided& decided) {
  // kube's updateBorrowingLocked.
  struct Item {
    PriorityLevelState* level;
    int min_current;
  };
  std::vector<Item> non_exempt;
  std::vector<AllocationItem> items;
  int remaining = nominal_sum_;
  int min_sum = 0, min_current_sum = 0;
  for (auto& [name, s] : levels_) {
    IntegratorResults obs = s->queues->demand().Reset();
    auto& d = s->demand;
    d.high_watermark = static_cast<int>(std::round(obs.max));
    if (obs.duration_seconds > 0) {
      d.avg = obs.average;
      d.stddev = obs.deviation;
      double envelope = obs.average + obs.deviation;
      d.smoothed = std::max(envelope, kSmoothing * d.smoothed + (1 - kSmoothing) * envelope);
    }
    if (s->pl.exempt) {
      int min_current = std::max(s->lower, d.high_watermark);
      s->current = min_current;
      remaining -= min_current;
      continue;
    }
    int min_current = std::max(s->lower, std::min(s->nominal, d.high_watermark));
    non_exempt.push_back({s.get(), min_current});
    items.push_back({std::max<double>(min_current, d.smoothed), static_cast<double>(min_current), static_cast<double>(s->upper)});
    min_sum += s->lower;
    min_current_sum += min_current;
  }
  double fair_frac = 0;
  if (remaining <= min_sum) {
    for (auto& it : non_exempt) it.level->current = it.level->lower;
  } else if (remaining <= min_current_sum) {
    double share = static_cast<double>(remaining - min_sum) / (min_current_sum - min_sum);
    for (auto& it : non_exempt) {
      it.level->current = it.level->lower + static_cast<int>(std::round((it.min_current - it.level->lower) * share));
    }
  } else {
    auto alloc = ComputeConcurrencyAllocation(nominal_sum_, items);
    if (!alloc.ok()) {
      LogWarn("unable to derive new concurrency limits", {{"error", alloc.status().message()}});
    } else {
      fair_frac = alloc->fair_proportion;
      for (size_t i = 0; i < non_exempt.size(); ++i) non_exempt[i].level->current = static_cast<int>(std::round(alloc->seats[i]));
    }
  }
  if (metrics_) {
    metrics_->fair_frac.Set(fair_frac);
    size_t idx = 0;
    for (auto& [name, s] : levels_) {
      metrics_->current_limit.With({name})->Set(s->current);
      metrics_->demand_high_watermark.With({name})->Set(s->demand.high_watermark);
      metrics_->demand_average.With({name})->Set(s->demand.avg);
      metrics_->demand_stdev.With({name})->Set(s->demand.stddev);
      metrics_->demand_smoothed.With({name})->Set(s->demand.smoothed);
      if (!s->pl.exempt && idx < items.size()) metrics_->target_seats.With({name})->Set(items[idx++].target);
    }
  }
  ApplyLimitsLocked(decided);
}

void Controller::ApplyLimitsLocked(Decided& decided) {
  for (auto& [name, s] : levels_) {
    Decided level_decided;
    s->queues->SetConcurrencyLimit(s->current, level_decided);
    NoteDecidedLocked(*s, level_decided);
    decided.insert(decided.end(), level_decided.begin(), level_decided.end());
  }
}

Ticket Controller::Start(const RequestDigest& digest, const WorkRequest& work) {
  Ticket t;
  t.watch = digest.verb == "watch";
  Decided decided;
  {
    std::lock_guard lock(mu_);
    const FlowSchema* chosen = nullptr;
    const FlowSchema* catch_all = nullptr;
    for (const auto& fs : flow_schemas_) {
      if (MatchesFlowSchema(digest, fs)) {
        chosen = &fs;
        break;
      }
      if (fs.name == kCatchAllName) catch_all = &fs;
    }
    if (!chosen) chosen = catch_all ? catch_all : &flow_schemas_.back();
    auto lvl = levels_.find(chosen->priority_level);
    if (lvl == levels_.end()) lvl = levels_.find(kCatchAllName);
    t.level = lvl->second;
    PriorityLevelState& level = *t.level;
    t.flow_schema = chosen->name;
    t.flow_schema_uid = chosen->uid;
    t.priority_level = level.pl.name;
    t.priority_level_uid = level.pl.uid;
    t.exempt = level.pl.exempt;
    std::string distinguisher;
    uint64_t hash = 0;
    if (!level.pl.exempt && level.pl.queuing && level.pl.queues > 1) {
      distinguisher = FlowDistinguisher(digest, chosen->distinguisher);
      hash = HashFlowId(chosen->name, distinguisher);
    }
    WorkEstimate estimate = estimator_.Estimate(work, level.max_seats);
    t.request = level.queues->Start(estimate, hash, chosen->name, distinguisher, decided);
    Request& r = *t.request;
    r.user = digest.user.name;
    r.verb = digest.verb;
    r.path = digest.path;
    r.namespace_ = digest.namespace_;
    r.name = digest.name;
    r.api_version = digest.api_group.empty() ? digest.api_version : digest.api_group + "/" + digest.api_version;
    r.resource = digest.resource;
    r.subresource = digest.subresource;
    if (FlowMetrics* fm = FlowMetricsLocked(level, chosen->name)) {
      fm->EstimatedSeats().Observe(estimate.MaxSeats());
      if (r.decision == Decision::kReject) {
        fm->Rejected(RejectReasonLabel(r.reason)).Inc();
        if (!level.pl.exempt) fm->Wait(false).Observe(0);
      } else if (r.decision == Decision::kPending) {
        fm->InQueue().Add(1);
        fm->InQueueSeats().Add(estimate.MaxSeats());
        if (r.queue) fm->QueueLength().Observe(static_cast<double>(r.queue->waiting.size()));
      }
    }
    NoteDecidedLocked(level, decided);
  }
  if (t.request->decision == Decision::kReject) dropped_.RecordDroppedRequest(t.priority_level);
  Wake(decided);
  return t;
}

void Controller::NoteDecidedLocked(PriorityLevelState& level, const Decided& decided) {
  if (!metrics_) return;
  auto now = clock_.Monotonic();
  for (const auto& r : decided) {
    if (r->decision != Decision::kExecute) continue;
    FlowMetrics& fm = *FlowMetricsLocked(level, r->flow_schema);
    if (r->queue) {  // it waited in a queue
      fm.InQueue().Add(-1);
      fm.InQueueSeats().Add(-r->work.MaxSeats());
    }
    fm.Dispatched().Inc();
    fm.Executing().Add(1);
    fm.ExecutingSeats().Add(r->work.MaxSeats());
    if (!level.pl.exempt) fm.Wait(true).Observe(std::chrono::duration<double>(now - r->arrival).count());
  }
  if (!level.current_r) level.current_r = metrics_->current_r.With({level.pl.name});
  level.current_r->Set(level.queues->current_r());
}

bool Controller::Cancel(Ticket& t) {
  Decided decided;
  bool cancelled;
  {
    std::lock_guard lock(mu_);
    PriorityLevelState& level = *t.level;
    cancelled = level.queues->Cancel(*t.request, RejectReason::kTimeOut, decided);
    FlowMetrics* fm = cancelled ? FlowMetricsLocked(level, t.flow_schema) : nullptr;
    if (fm) {
      fm->InQueue().Add(-1);
      fm->InQueueSeats().Add(-t.request->work.MaxSeats());
      fm->Rejected(RejectReasonLabel(RejectReason::kTimeOut)).Inc();
      // kube labels the wait "execute=true" for every request that was not rejected on arrival.
      fm->Wait(true).Observe(std::chrono::duration<double>(clock_.Monotonic() - t.request->arrival).count());
    }
    NoteDecidedLocked(level, decided);
    MaybeReapLocked(level, decided);
  }
  if (cancelled) dropped_.RecordDroppedRequest(t.priority_level);
  Wake(decided);
  // The waiter learns of the rejection through the same event.
  if (cancelled) t.request->decided.Set();
  return cancelled;
}

void Controller::Finish(Ticket& t) {
  if (t.finished || !t.request || t.request->decision != Decision::kExecute) return;
  t.finished = true;
  Decided decided;
  std::optional<std::chrono::nanoseconds> linger;
  {
    std::lock_guard lock(mu_);
    PriorityLevelState& level = *t.level;
    auto now = clock_.Monotonic();
    linger = level.queues->Finish(*t.request, decided);
    if (FlowMetrics* fm = FlowMetricsLocked(level, t.flow_schema)) {
      fm->Executing().Add(-1);
      fm->ExecutingSeats().Add(-t.request->work.MaxSeats());
      fm->Execution(t.watch).Observe(std::chrono::duration<double>(now - t.request->start).count());
    }
    NoteDecidedLocked(level, decided);
    if (!linger) MaybeReapLocked(level, decided);
  }
  Wake(decided);
  if (linger) {
    std::weak_ptr<Controller> self = weak_from_this();
    config_.run_after(*linger, [self, level = t.level, r = t.request] {
      if (auto c = self.lock()) c->ReleaseLingering(level, r);
    });
  }
}

void Controller::ReleaseLingering(std::shared_ptr<PriorityLevelState> level, RequestPtr r) {
  Decided decided;
  {
    std::lock_guard lock(mu_);
    level->queues->ReleaseFinalSeats(*r, decided);
    NoteDecidedLocked(*level, decided);
    MaybeReapLocked(*level, decided);
  }
  Wake(decided);
}

void Controller::MaybeReapLocked(PriorityLevelState& level, Decided& decided) {
  if (!level.quiescing || !level.queues->IsIdle()) return;
  auto it = levels_.find(level.pl.name);
  if (it == levels_.end() || it->second.get() != &level) return;
  levels_.erase(it);  // the other levels share its seats from now on
  FinishReconfigLocked();
  ApplyLimitsLocked(decided);
}

FlowMetrics* Controller::FlowMetricsLocked(PriorityLevelState& level, const std::string& schema) {
  if (!metrics_) return nullptr;
  auto it = level.flow_metrics.find(schema);
  if (it == level.flow_metrics.end()) {
    it = level.flow_metrics.emplace(schema, std::make_unique<FlowMetrics>(*metrics_, level.pl.name, schema)).first;
  }
  return it->second.get();
}

void Controller::Wake(const Decided& decided) {
  for (const auto& r : decided) r->decided.Set();
}

std::optional<LevelLimits> Controller::Limits(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = levels_.find(name);
  if (it == levels_.end()) return std::nullopt;
  const auto& s = *it->second;
  return LevelLimits{s.pl.exempt, s.quiescing, s.nominal, s.lower, s.upper, s.current, s.max_seats};
}

std::vector<std::string> Controller::FlowSchemaOrder() const {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& fs : flow_schemas_) out.push_back(fs.name);
  return out;
}

std::vector<std::string> Controller::Dangling() const {
  std::lock_guard lock(mu_);
  return dangling_;
}

QueueSetCounters Controller::Counters(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = levels_.find(name);
  return it == levels_.end() ? QueueSetCounters{} : it->second->queues->Counters();
}

}  // namespace capstan::flowcontrol
