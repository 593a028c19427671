#include "controllers/leader_elector.h"

#include <unistd.h>

#include <boost/json.hpp>
#include <random>

#include "apimachinery/errors.h"
#include "apimachinery/names.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "util/log.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const Gvr kLeases{"coordination.k8s.io", "v1", "leases"};

int64_t IntField(const json::object* spec, const char* key) {
  if (!spec) return 0;
  const json::value* v = spec->if_contains(key);
  return v && v->is_int64() ? v->get_int64() : 0;
}

std::string StringField(const json::object* spec, const char* key) {
  if (!spec) return "";
  const json::value* v = spec->if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : "";
}

}  // namespace

std::string DefaultLeaderIdentity() {
  char host[256] = {0};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return std::string(host) + "_" + am::NewUid();
}

LeaderElector::LeaderElector(ApiClient& client, RunScope& scope, LeaderElectionOptions opts, const Clock& clock,
                             MetricsRegistry* metrics, std::function<void()> on_started_leading,
                             std::function<void()> on_stopped_leading)
    : client_(client),
      scope_(scope),
      opts_(std::move(opts)),
      clock_(clock),
      on_started_(std::move(on_started_leading)),
      on_stopped_(std::move(on_stopped_leading)) {
  if (opts_.identity.empty()) opts_.identity = DefaultLeaderIdentity();
  if (metrics) {
    master_status_ = metrics
                         ->NewGaugeVec("leader_election_master_status",
                                       "Gauge of if the reporting system is master of the relevant lease, 0 indicates "
                                       "backup, 1 indicates master. 'name' is the string used to identify the lease. "
                                       "Please make sure to group by name.",
                                       {"name"})
                         .With({opts_.resource_name});
  }
}

std::string LeaderElector::Now() const { return am::FormatRfc3339Micro(am::Timestamp::FromTimePoint(clock_.Now())); }

void LeaderElector::SetLeading(bool leading) {
  if (leading_ == leading) return;
  leading_ = leading;
  if (master_status_) master_status_->Set(leading ? 1 : 0);
  if (leading) {
    LogInfo("successfully acquired lease", {{"lease", opts_.resource_namespace + "/" + opts_.resource_name},
                                           {"identity", opts_.identity}});
    if (on_started_) on_started_();
  } else {
    if (on_stopped_) on_stopped_();
  }
}

Task<bool> LeaderElector::TryAcquireOrRenew() {
  const std::string now = Now();
  const int64_t duration_s = std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::seconds>(opts_.lease_duration).count());
  auto lease = co_await client_.Get(kLeases, opts_.resource_namespace, opts_.resource_name);
  if (!lease.ok()) {
    if (!am::IsNotFound(lease.status())) {
      LogWarn("error retrieving resource lock", {{"lease", opts_.resource_name}, {"error", lease.status().message()}});
      co_return false;
    }
    Object fresh;
    json::object md;
    md["name"] = opts_.resource_name;
    md["namespace"] = opts_.resource_namespace;
    fresh["metadata"] = std::move(md);
    json::object spec;
    spec["holderIdentity"] = opts_.identity;
    spec["leaseDurationSeconds"] = duration_s;
    spec["acquireTime"] = now;
    spec["renewTime"] = now;
    spec["leaseTransitions"] = 0;
    fresh["spec"] = spec;
    auto created = co_await client_.Create(kLeases, opts_.resource_namespace, std::move(fresh));
    if (!created.ok()) {
      LogWarn("error initially creating leader election record", {{"error", created.status().message()}});
      co_return false;
    }
    observed_record_ = json::serialize(spec);
    observed_time_ = clock_.Monotonic();
    co_return true;
  }

  const json::value* sv = lease->if_contains("spec");
  const json::object* spec = sv ? sv->if_object() : nullptr;
  std::string record = spec ? json::serialize(*spec) : "";
  if (record != observed_record_) {
    observed_record_ = record;
    observed_time_ = clock_.Monotonic();
  }
  const std::string holder = StringField(spec, "holderIdentity");
  const int64_t held_for = IntField(spec, "leaseDurationSeconds");
  if (!holder.empty() && holder != opts_.identity && !opts_.sole_replica &&
      observed_time_ + std::chrono::seconds(held_for) > clock_.Monotonic()) {
    co_return false;  // someone else holds an unexpired lease
  }
  json::object next;
  next["holderIdentity"] = opts_.identity;
  next["leaseDurationSeconds"] = duration_s;
  if (holder == opts_.identity && leading_) {
    next["acquireTime"] = StringField(spec, "acquireTime");
    next["renewTime"] = now;
    next["leaseTransitions"] = IntField(spec, "leaseTransitions");
  } else {
    next["acquireTime"] = now;
    next["renewTime"] = now;
    next["leaseTransitions"] = IntField(spec, "leaseTransitions") + (holder == opts_.identity ? 0 : 1);
  }
  Object updated = *lease;
  updated["spec"] = next;
  auto r = co_await client_.Update(kLeases, opts_.resource_namespace, std::move(updated));
  if (!r.ok()) {
    if (!am::IsConflict(r.status())) LogWarn("failed to update lock", {{"error", r.status().message()}});
    co_return false;
  }
  observed_record_ = json::serialize(next);
  observed_time_ = clock_.Monotonic();
  co_return true;
}

Task<bool> LeaderElector::ForeignLeaderLive() {
  if (opts_.defer_to_name.empty()) co_return false;
  if (opts_.defer_to_name == opts_.resource_name && opts_.defer_to_namespace == opts_.resource_namespace) {
    co_return false;  // our own Lease: the election itself decides
  }
  auto lease = co_await client_.Get(kLeases, opts_.defer_to_namespace, opts_.defer_to_name);
  bool live = false;
  std::string holder;
  if (lease.ok()) {
    const json::value* sv = lease->if_contains("spec");
    const json::object* spec = sv ? sv->if_object() : nullptr;
    holder = StringField(spec, "holderIdentity");
    const int64_t duration_s = IntField(spec, "leaseDurationSeconds");
    auto renewed = am::ParseRfc3339Micro(StringField(spec, "renewTime"));
    if (!holder.empty() && holder != opts_.identity && renewed.ok()) {
      live = renewed->ToTimePoint() + std::chrono::seconds(duration_s) > clock_.Now();
    }
  } else if (!am::IsNotFound(lease.status())) {
    LogWarn("error retrieving the kube-controller-manager lease",
            {{"lease", opts_.defer_to_namespace + "/" + opts_.defer_to_name}, {"error", lease.status().message()}});
  }
  if (live && (!standing_down_ || holder != foreign_holder_)) {
    LogInfo("standing down: another controller manager holds its lease",
            {{"lease", opts_.defer_to_namespace + "/" + opts_.defer_to_name}, {"holder", holder}});
  } else if (!live && standing_down_) {
    LogInfo("the other controller manager's lease lapsed: campaigning",
            {{"lease", opts_.defer_to_namespace + "/" + opts_.defer_to_name}});
  }
  standing_down_ = live;
  foreign_holder_ = live ? holder : "";
  co_return live;
}

Task<void> LeaderElector::Release() {
  auto lease = co_await client_.Get(kLeases, opts_.resource_namespace, opts_.resource_name);
  if (!lease.ok()) co_return;
  const json::value* sv = lease->if_contains("spec");
  const json::object* spec = sv ? sv->if_object() : nullptr;
  if (StringField(spec, "holderIdentity") != opts_.identity) co_return;
  const std::string now = Now();
  json::object next;
  next["leaseDurationSeconds"] = 1;
  next["acquireTime"] = now;
  next["renewTime"] = now;
  next["leaseTransitions"] = IntField(spec, "leaseTransitions");
  Object updated = *lease;
  updated["spec"] = std::move(next);
  auto r = co_await client_.Update(kLeases, opts_.resource_namespace, std::move(updated));
  if (!r.ok()) LogWarn("failed to release lock", {{"error", r.status().message()}});
}

Task<void> LeaderElector::Run() {
  if (!opts_.enabled) {
    SetLeading(true);
    while (co_await scope_.Sleep(std::chrono::hours(1))) {
    }
    SetLeading(false);
    co_return;
  }
  std::mt19937_64 rng(std::random_device{}());
  std::uniform_real_distribution<double> jitter(0.0, 1.2);  // client-go's JitterFactor
  LogInfo("attempting to acquire leader lease", {{"lease", opts_.resource_namespace + "/" + opts_.resource_name}});
  while (!scope_.stopped()) {
    bool acquired = false;
    while (!scope_.stopped()) {
      if (!co_await ForeignLeaderLive() && co_await TryAcquireOrRenew()) {
        acquired = true;
        break;
      }
      auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(opts_.retry_period * (1.0 + jitter(rng)));
      if (!co_await scope_.Sleep(wait)) break;
    }
    if (!acquired) break;
    SetLeading(true);
    auto last_renew = clock_.Monotonic();
    bool lost = false;
    bool yielded = false;
    while (co_await scope_.Sleep(opts_.retry_period)) {
      if (co_await ForeignLeaderLive()) {
        yielded = true;
        break;
      }
      if (co_await TryAcquireOrRenew()) {
        last_renew = clock_.Monotonic();
        continue;
      }
      if (clock_.Monotonic() - last_renew >= opts_.renew_deadline) {
        lost = true;
        break;
      }
    }
    if (lost) LogError("leaderelection lost", {{"lease", opts_.resource_namespace + "/" + opts_.resource_name}});
    SetLeading(false);
    if (yielded) {
      co_await Release();  // another replica of ours must not lead either; the foreign Lease is checked first
      continue;
    }
    if (!lost) break;  // stopping
  }
  co_await Release();
}

}  // namespace capstan::controllers
