#include "controllers/clusterroleaggregation/aggregation_controller.h"

#include <algorithm>
#include <boost/json.hpp>

#include "apimachinery/errors.h"
#include "apimachinery/labels.h"
#include "apimachinery/object_meta.h"
#include "util/log.h"

namespace capstan::controllers {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const Gvr kClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles"};

const json::array* Selectors(const Object& role) {
  const auto* agg = role.if_contains("aggregationRule");
  if (!agg || !agg->is_object()) return nullptr;
  const auto* sels = agg->get_object().if_contains("clusterRoleSelectors");
  return sels && sels->is_array() ? &sels->get_array() : nullptr;
}

const json::object* Labels(const Object& o) {
  const auto* md = o.if_contains("metadata");
  if (!md || !md->is_object()) return nullptr;
  const auto* l = md->get_object().if_contains("labels");
  return l && l->is_object() ? &l->get_object() : nullptr;
}

}  // namespace

json::array ClusterRoleAggregationController::AggregatedRules(const Object& role, const std::vector<const Object*>& all) {
  json::array rules;
  const json::array* sels = Selectors(role);
  if (!sels) return rules;
  std::vector<const Object*> sorted = all;
  std::sort(sorted.begin(), sorted.end(),
            [](const Object* a, const Object* b) { return am::GetName(*a) < am::GetName(*b); });
  const std::string self(am::GetName(role));
  for (const auto& sel_v : *sels) {
    auto sel = am::LabelSelectorFromJson(&sel_v);
    if (!sel.ok()) continue;
    for (const Object* other : sorted) {
      if (am::GetName(*other) == self) continue;
      if (!sel->Matches(Labels(*other))) continue;
      const auto* other_rules = other->if_contains("rules");
      if (!other_rules || !other_rules->is_array()) continue;
      for (const auto& r : other_rules->get_array()) {
        if (std::find(rules.begin(), rules.end(), r) == rules.end()) rules.push_back(r);
      }
    }
  }
  return rules;
}

void ClusterRoleAggregationController::Start(ControllerContext& ctx) {
  client_ = &ctx.client();
  queue_ = &ctx.NewQueue("ClusterRoleAggregator");
  InformerOptions o;
  o.gvr = kClusterRoles;
  roles_ = &ctx.SharedInformer(o);
  roles_->AddHandler(EventHandler{[this](const Object&) { EnqueueAggregated(); },
                                  [this](const Object&, const Object&) { EnqueueAggregated(); },
                                  [this](const Object&) { EnqueueAggregated(); }});
  ctx.scope().Spawn(Run(ctx));
}

void ClusterRoleAggregationController::EnqueueAggregated() {
  roles_->ForEach([this](const Object& o) {
    if (Selectors(o)) queue_->Add(std::string(am::GetName(o)));
  });
}

Task<void> ClusterRoleAggregationController::Run(ControllerContext& ctx) {
  if (!co_await roles_->WaitForSync()) co_return;
  LogInfo("Starting controller", {{"controller", std::string(kClusterRoleAggregationController)}});
  EnqueueAggregated();
  WorkerOptions wo;
  wo.controller = std::string(kClusterRoleAggregationController);
  wo.workers = 5;
  RunWorkers(ctx, *queue_, wo, [this](const std::string& key) { return Sync(key); });
}

Task<SyncResult> ClusterRoleAggregationController::Sync(const std::string& name) {
  const Object* role = roles_->Get("", name);
  if (!role || !Selectors(*role)) co_return SyncResult::Ok();
  std::vector<const Object*> all;
  roles_->ForEach([&](const Object& o) { all.push_back(&o); });
  json::array want = AggregatedRules(*role, all);
  const auto* have = role->if_contains("rules");
  if (have && have->is_array() && have->get_array() == want) co_return SyncResult::Ok();
  if ((!have || have->is_null()) && want.empty()) co_return SyncResult::Ok();
  auto r = co_await client_->Mutate(kClusterRoles, "", name, [want](Object& obj) -> StatusOr<bool> {
    if (!Selectors(obj)) return false;
    const auto* cur = obj.if_contains("rules");
    if (cur && cur->is_array() && cur->get_array() == want) return false;
    obj["rules"] = want;
    return true;
  });
  if (r.ok() || am::IsNotFound(r.status())) co_return SyncResult::Ok();
  co_return SyncResult::Retry(r.TakeStatus());
}

}  // namespace capstan::controllers
