#include "controllers/resource_quota_controller.h"

#include <boost/json.hpp>

#include "admission/resource_quota_evaluator.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;
namespace json = boost::json;
namespace quota = capstan::admission::quota;

namespace {

const Gvr kQuotas{"", "v1", "resourcequotas"};

quota::ResourceList ListAt(const Object& o, std::string_view part, std::string_view field) {
  const json::value* v = JsonPath(o, {part, field});
  return quota::ResourceListFromJson(v);
}

// The served group/version/resource for group/resource, preferred version first.
std::optional<Gvr> Resolve(const endpoints::ApiSnapshot& snap, const std::string& group, const std::string& resource) {
  for (const auto& g : snap.groups) {
    if (g.name != group) continue;
    for (const auto& v : g.versions) {
      if (snap.FindResource(group, v, resource, "")) return Gvr{group, v, resource};
    }
  }
  return std::nullopt;
}

std::string KeyOf(const Object& o) { return std::string(am::GetNamespace(o)) + "/" + std::string(am::GetName(o)); }

}  // namespace

std::string_view ResourceQuotaController::Name() const { return kResourceQuotaController; }

void ResourceQuotaController::Start(ControllerContext& ctx) {
  ctx_ = &ctx;
  client_ = &ctx.client();
  queue_ = &ctx.NewQueue("resourcequota_primary");
  InformerOptions qo;
  qo.gvr = kQuotas;
  quotas_ = &ctx.SharedInformer(qo);
  quotas_->AddHandler(EventHandler{
      [this](const Object& q) { queue_->Add(KeyOf(q)); },
      [this](const Object& old_q, const Object& q) {
        // Status writes are this controller's own; only a changed spec.hard needs a sync.
        if (!quota::Equals(ListAt(old_q, "spec", "hard"), ListAt(q, "spec", "hard"))) queue_->Add(KeyOf(q));
      },
      [this](const Object& q) { Replenish("", "resourcequotas", std::string(am::GetNamespace(q))); }});
  Watch(ctx, {"", "v1", "pods"}, false);
  Watch(ctx, {"", "v1", "services"}, false);
  Watch(ctx, {"", "v1", "persistentvolumeclaims"}, false);
  Watch(ctx, {"", "v1", "configmaps"}, true);
  Watch(ctx, {"", "v1", "secrets"}, true);
  Watch(ctx, {"", "v1", "replicationcontrollers"}, true);
  watched_.insert({"", "resourcequotas"});
  ctx.scope().Spawn(Run(ctx));
}

void ResourceQuotaController::Watch(ControllerContext& ctx, const Gvr& gvr, bool metadata_only) {
  if (!watched_.insert({gvr.group, gvr.resource}).second) return;
  InformerOptions o;
  o.gvr = gvr;
  o.metadata_only = metadata_only;
  Informer& inf = ctx.SharedInformer(o);
  std::string group = gvr.group, resource = gvr.resource;
  std::function<void(const Object&, const Object&)> on_update;
  if (!metadata_only) {
    // A change of what the object is charged (a pod turning terminal, a service changing type or
    // ports, a claim's storage) gives quota back or takes more.
    auto e = quota::EvaluatorFor(group, resource);
    on_update = [this, e, group, resource](const Object& old_o, const Object& o) {
      auto now = quota::Clock::now();
      if (!quota::Equals(e->Usage(old_o, now), e->Usage(o, now))) Replenish(group, resource, std::string(am::GetNamespace(o)));
    };
  }
  inf.AddHandler(EventHandler{nullptr, std::move(on_update), [this, group, resource](const Object& o) {
                                Replenish(group, resource, std::string(am::GetNamespace(o)));
                              }});
}

void ResourceQuotaController::WatchCounted(const std::string& group, const std::string& resource) {
  if (!ctx_ || watched_.count({group, resource})) return;
  auto snap = client_->Snapshot();
  auto gvr = Resolve(*snap, group, resource);
  if (!gvr) return;  // not served (yet): the periodic resync still counts it once it is
  Watch(*ctx_, *gvr, true);
}

void ResourceQuotaController::Replenish(const std::string& group, const std::string& resource, const std::string& ns) {
  auto e = quota::EvaluatorFor(group, resource);
  quotas_->ForEach([&](const Object& q) {
    if (am::GetNamespace(q) != ns) return;
    if (!e->MatchingResources(quota::Names(ListAt(q, "spec", "hard"))).empty()) queue_->Add(KeyOf(q));
  });
}

Task<void> ResourceQuotaController::Run(ControllerContext& ctx) {
  if (!co_await quotas_->WaitForSync()) co_return;
  LogInfo("Starting controller", {{"controller", std::string(kResourceQuotaController)}});
  WorkerOptions wo;
  wo.controller = std::string(kResourceQuotaController);
  wo.workers = opts_.workers;
  RunWorkers(ctx, *queue_, wo, [this](const std::string& key) { return Sync(key); });
  ctx.scope().Spawn(Resync(ctx));
}

Task<void> ResourceQuotaController::Resync(ControllerContext& ctx) {
  while (co_await ctx.scope().Sleep(opts_.resync_period)) {
    quotas_->ForEach([this](const Object& q) { queue_->Add(KeyOf(q)); });
  }
}

Task<SyncResult> ResourceQuotaController::Sync(const std::string& key) {
  size_t slash = key.find('/');
  std::string ns = key.substr(0, slash), name = key.substr(slash + 1);
  const Object* cached = quotas_->Get(ns, name);
  if (!cached) co_return SyncResult::Ok();
  Object q = *cached;
  quota::ResourceList hard = ListAt(q, "spec", "hard");
  quota::ResourceList old_used = ListAt(q, "status", "used");
  bool dirty = !quota::Equals(hard, ListAt(q, "status", "hard")) || !JsonPath(q, {"status", "hard"}) ||
               !JsonPath(q, {"status", "used"});
  std::vector<std::string> names = quota::Names(hard);

  // kube's CalculateUsage: each evaluator measures the hard resources it knows, over the objects of
  // the namespace that match the quota's scopes.
  auto evaluators = quota::EvaluatorsForHard(names);
  std::vector<std::string> potential;
  for (const auto& e : evaluators) {
    auto m = e->MatchingResources(names);
    potential.insert(potential.end(), m.begin(), m.end());
  }
  std::vector<std::string> matched = quota::Intersection(names, potential);
  auto scopes = quota::ScopeRequirementsOf(q);
  auto snap = client_->Snapshot();
  auto now = quota::Clock::now();
  quota::ResourceList usage;
  Status error;
  for (const auto& e : evaluators) {
    auto mine = quota::Intersection(e->MatchingResources(matched), matched);
    if (mine.empty()) continue;
    WatchCounted(e->Group(), e->Resource());
    quota::ResourceList stats;
    for (const auto& n : mine) stats[n] = quota::Quantity();
    auto gvr = Resolve(*snap, e->Group(), e->Resource());
    if (!gvr) {
      error = Status(404, "NotFound", "the server could not find the requested resource (" + e->Resource() + ")");
      std::vector<std::string> rest;
      for (const auto& n : matched) {
        if (std::find(mine.begin(), mine.end(), n) == mine.end()) rest.push_back(n);
      }
      matched = rest;
      continue;
    }
    registry::ListOptions lo;
    lo.resource_version = "0";
    auto items = co_await client_->List(*gvr, ns, lo);
    if (!items.ok()) {
      error = items.status();
      std::vector<std::string> rest;
      for (const auto& n : matched) {
        if (std::find(mine.begin(), mine.end(), n) == mine.end()) rest.push_back(n);
      }
      matched = rest;
      continue;
    }
    for (const auto& item : items->items) {
      bool in_scope = true;
      for (const auto& s : scopes) in_scope = in_scope && e->MatchesScope(s, item);
      if (in_scope) stats = quota::Add(stats, e->Usage(item, now));
    }
    usage = quota::Add(usage, stats);
  }
  usage = quota::Mask(usage, matched);
  quota::ResourceList used = old_used;
  for (const auto& [k, v] : usage) used[k] = v;
  used = quota::Mask(used, names);
  dirty = dirty || !quota::Equals(used, old_used);
  if (dirty) {
    json::object st;
    st["hard"] = quota::ResourceListToJson(hard);
    st["used"] = quota::ResourceListToJson(used);
    q["status"] = std::move(st);
    auto r = co_await client_->Update(kQuotas, ns, std::move(q), "status");
    if (!r.ok() && !am::IsNotFound(r.status())) co_return SyncResult::Retry(r.TakeStatus());
  }
  if (!error.ok()) co_return SyncResult::Retry(std::move(error));
  co_return SyncResult::Ok();
}

}  // namespace capstan::controllers
