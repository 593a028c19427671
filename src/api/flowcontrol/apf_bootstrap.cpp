// api/flowcontrol/apf_bootstrap.cpp: kube 1.32's API Priority and Fairness bootstrap configuration
// (k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap) and the ensurer that creates and reconciles it at
// start (kube's pkg/registry/flowcontrol/ensurer), plus the FlowSchemas' Dangling condition.
#include <map>
#include <set>

#include "api/common.h"
#include "api/flowcontrol/flowcontrol.h"
#include "api/flowcontrol/flowcontrol_validation.h"
#include "api/networking/validators.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::api::flowcontrol {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr std::string_view kAutoUpdate = "apf.kubernetes.io/autoupdate-spec";

Object Meta(std::string_view kind, std::string_view name, json::value spec) {
  Object o;
  o["apiVersion"] = "flowcontrol.apiserver.k8s.io/v1";
  o["kind"] = kind;
  o["metadata"] = json::object{{"name", name}, {"annotations", json::object{{kAutoUpdate, "true"}}}};
  o["spec"] = std::move(spec);
  return o;
}

Object Level(std::string_view name, std::string_view spec) { return Meta("PriorityLevelConfiguration", name, json::parse(spec)); }

Object Limited(std::string_view name, int shares, int lendable, int queues, int hand) {
  json::object limited{{"nominalConcurrencyShares", shares},
                       {"lendablePercent", lendable},
                       {"limitResponse", json::object{{"type", "Queue"},
                                                      {"queuing", json::object{{"queues", queues},
                                                                               {"handSize", hand},
                                                                               {"queueLengthLimit", 50}}}}}};
  return Meta("PriorityLevelConfiguration", name, json::object{{"type", "Limited"}, {"limited", std::move(limited)}});
}

json::value Group(std::string_view name) { return json::object{{"kind", "Group"}, {"group", json::object{{"name", name}}}}; }
json::value User(std::string_view name) { return json::object{{"kind", "User"}, {"user", json::object{{"name", name}}}}; }
json::value KubeSystemSa(std::string_view name) {
  return json::object{{"kind", "ServiceAccount"},
                      {"serviceAccount", json::object{{"name", name}, {"namespace", "kube-system"}}}};
}

json::value ResourceRule(json::array verbs, json::array groups, json::array resources, bool cluster_scope) {
  json::object r{{"verbs", std::move(verbs)}, {"apiGroups", std::move(groups)}, {"resources", std::move(resources)},
                 {"namespaces", json::array{"*"}}};
  if (cluster_scope) r["clusterScope"] = true;
  return r;
}

json::value AllResources() { return ResourceRule({"*"}, {"*"}, {"*"}, true); }
json::value AllNonResources() { return json::object{{"verbs", json::array{"*"}}, {"nonResourceURLs", json::array{"*"}}}; }

json::value Rule(json::array subjects, json::array resource_rules, json::array non_resource_rules) {
  json::object r{{"subjects", std::move(subjects)}};
  if (!resource_rules.empty()) r["resourceRules"] = std::move(resource_rules);
  if (!non_resource_rules.empty()) r["nonResourceRules"] = std::move(non_resource_rules);
  return r;
}

Object Schema(std::string_view name, std::string_view level, int precedence, std::string_view method, json::value rule) {
  json::object spec{{"priorityLevelConfiguration", json::object{{"name", level}}}, {"matchingPrecedence", precedence}};
  if (!method.empty()) spec["distinguisherMethod"] = json::object{{"type", method}};
  spec["rules"] = json::array{std::move(rule)};
  return Meta("FlowSchema", name, std::move(spec));
}

json::value AllRule(json::array subjects) { return Rule(std::move(subjects), {AllResources()}, {AllNonResources()}); }

// ---- the ensurer ----

struct Ops {
  registry::Getter* getter = nullptr;
  registry::Lister* lister = nullptr;
  registry::Creater* creater = nullptr;
  registry::Updater* updater = nullptr;
  registry::GracefulDeleter* deleter = nullptr;
  bool ok() const { return getter && lister && creater && updater && deleter; }
};

Ops OpsOf(registry::Storage& s) {
  return {dynamic_cast<registry::Getter*>(&s), dynamic_cast<registry::Lister*>(&s), dynamic_cast<registry::Creater*>(&s),
          dynamic_cast<registry::Updater*>(&s), dynamic_cast<registry::GracefulDeleter*>(&s)};
}

// kube's shouldUpdateSpec for suggested objects: the annotation when it parses as a boolean, else
// "only while nobody changed it" (generation 1).
bool SuggestedMayUpdate(const Object& current) {
  for (const auto& [k, v] : am::GetAnnotations(current)) {
    if (k != kAutoUpdate) continue;
    std::string lower = ToLower(v);
    if (v == "1" || lower == "t" || lower == "true") return true;
    if (v == "0" || lower == "f" || lower == "false") return false;
  }
  return am::GetGeneration(current) == 1;
}

bool AutoUpdateTrue(const Object& o) {
  for (const auto& [k, v] : am::GetAnnotations(o)) {
    std::string lower = ToLower(v);
    if (k == kAutoUpdate) return v == "1" || lower == "t" || lower == "true";
  }
  return false;
}

// The spec the object should have: the bootstrap one (the exempt level keeps its tunables).
json::value WantedSpec(const Object& bootstrap, const Object& current, bool mandatory) {
  json::value spec = bootstrap.at("spec");
  if (mandatory && am::GetName(bootstrap) == "exempt" && StringAt(bootstrap, "kind") == "PriorityLevelConfiguration") {
    if (const json::value* exempt = PathAt(current, {"spec", "exempt"}); exempt && exempt->is_object()) {
      spec.as_object()["exempt"] = *exempt;
    }
  }
  return spec;
}

Task<Status> Ensure(const Ops& ops, const Object& bootstrap, bool mandatory) {
  registry::Context ctx;
  std::string name(am::GetName(bootstrap));
  auto current = co_await ops.getter->Get(ctx, name, {});
  if (!current.ok()) {
    if (!am::IsNotFound(current.status())) co_return current.TakeStatus();
    auto created = co_await ops.creater->Create(ctx, bootstrap, {});
    if (!created.ok() && !am::IsAlreadyExists(created.status())) co_return created.TakeStatus();
    co_return Status();
  }
  if (!mandatory && !SuggestedMayUpdate(*current)) co_return Status();
  json::value want = WantedSpec(bootstrap, *current, mandatory);
  const json::value* have = current->if_contains("spec");
  // The stored spec went through Go's zero-value rules; compare as kube's semantic equality does.
  bool same_spec = OmitZeroValues(want) == OmitZeroValues(have ? *have : json::value());
  if (same_spec && AutoUpdateTrue(*current)) co_return Status();
  auto updated = co_await ops.updater->Update(
      ctx, name,
      [want](const Object* cur) -> Task<StatusOr<Object>> {
        if (!cur) co_return am::NewNotFound({"flowcontrol.apiserver.k8s.io", ""}, "");
        Object next = *cur;
        next["spec"] = want;
        am::SetAnnotation(next, kAutoUpdate, "true");
        co_return next;
      },
      {});
  if (!updated.ok() && !am::IsNotFound(updated.status()) && !am::IsConflict(updated.status())) {
    co_return updated.TakeStatus();
  }
  co_return Status();
}

// Deletes what an earlier configuration created (autoupdate-spec true) and this one no longer has.
Task<Status> RemoveDangling(const Ops& ops, const std::set<std::string>& wanted) {
  registry::Context ctx;
  auto all = co_await ops.lister->List(ctx, {});
  if (!all.ok()) co_return all.TakeStatus();
  for (const auto& o : all->items) {
    std::string name(am::GetName(o));
    if (wanted.count(name) || !AutoUpdateTrue(o)) continue;
    registry::DeleteOptions opts;
    opts.precondition_uid = std::string(am::GetUid(o));
    opts.precondition_resource_version = std::string(am::GetResourceVersion(o));
    auto deleted = co_await ops.deleter->Delete(ctx, name, opts);
    if (!deleted.ok() && !am::IsNotFound(deleted.status()) && !am::IsConflict(deleted.status())) {
      co_return deleted.TakeStatus();
    }
  }
  co_return Status();
}

// Sets each FlowSchema's Dangling condition as kube's APF controller does.
Task<Status> MarkDangling(const Ops& schemas, registry::Updater& status, const Ops& levels) {
  registry::Context ctx;
  auto pls = co_await levels.lister->List(ctx, {});
  if (!pls.ok()) co_return pls.TakeStatus();
  std::set<std::string> names;
  for (const auto& pl : pls->items) names.insert(std::string(am::GetName(pl)));
  auto fss = co_await schemas.lister->List(ctx, {});
  if (!fss.ok()) co_return fss.TakeStatus();
  for (const auto& fs : fss->items) {
    const json::value* plv = PathAt(fs, {"spec", "priorityLevelConfiguration", "name"});
    std::string pl = plv && plv->is_string() ? std::string(plv->get_string()) : "";
    bool found = names.count(pl) > 0;
    json::object cond{{"type", "Dangling"},
                      {"status", found ? "False" : "True"},
                      {"lastTransitionTime", am::FormatRfc3339(am::Timestamp::Now())},
                      {"reason", found ? "Found" : "NotFound"},
                      {"message", found ? "This FlowSchema references the PriorityLevelConfiguration object named " +
                                              GoQuote(pl) + " and it exists"
                                        : "This FlowSchema references the PriorityLevelConfiguration object named " +
                                              GoQuote(pl) + " but there is no such object"}};
    bool current_same = false;
    const json::value* conditions = PathAt(fs, {"status", "conditions"});
    if (conditions && conditions->is_array()) {
      for (const auto& c : conditions->get_array()) {
        if (!c.is_object() || StringAt(c.get_object(), "type") != "Dangling") continue;
        current_same = StringAt(c.get_object(), "status") == StringAt(cond, "status") &&
                       StringAt(c.get_object(), "reason") == StringAt(cond, "reason") &&
                       StringAt(c.get_object(), "message") == StringAt(cond, "message");
      }
    }
    if (current_same) continue;
    auto r = co_await status.Update(
        ctx, std::string(am::GetName(fs)),
        [cond](const Object* cur) -> Task<StatusOr<Object>> {
          if (!cur) co_return am::NewNotFound({"flowcontrol.apiserver.k8s.io", "flowschemas"}, "");
          Object next = *cur;
          json::object& st = catalog::Child(next, "status");
          json::array conditions;
          if (const json::value* c = st.if_contains("conditions"); c && c->is_array()) {
            for (const auto& e : c->get_array()) {
              if (!(e.is_object() && StringAt(e.get_object(), "type") == "Dangling")) conditions.push_back(e);
            }
          }
          conditions.push_back(cond);
          st["conditions"] = std::move(conditions);
          co_return next;
        },
        {});
    if (!r.ok() && !am::IsNotFound(r.status()) && !am::IsConflict(r.status())) co_return r.TakeStatus();
  }
  co_return Status();
}

}  // namespace

std::vector<registry::Object> MandatoryPriorityLevels() {
  return {Level("catch-all", R"({"type":"Limited","limited":{"nominalConcurrencyShares":5,"lendablePercent":0,
                                 "limitResponse":{"type":"Reject"}}})"),
          Level("exempt", R"({"type":"Exempt","exempt":{"nominalConcurrencyShares":0,"lendablePercent":0}})")};
}

std::vector<registry::Object> SuggestedPriorityLevels() {
  return {Limited("system", 30, 33, 64, 6),          Limited("node-high", 40, 25, 64, 6),
          Limited("leader-election", 10, 0, 16, 4),  Limited("workload-high", 40, 50, 128, 6),
          Limited("workload-low", 100, 90, 128, 6),  Limited("global-default", 20, 50, 128, 6)};
}

std::vector<registry::Object> MandatoryFlowSchemas() {
  return {Schema("exempt", "exempt", 1, "", AllRule({Group("system:masters")})),
          Schema("catch-all", "catch-all", 10000, "ByUser",
                 AllRule({Group("system:unauthenticated"), Group("system:authenticated")}))};
}

std::vector<registry::Object> SuggestedFlowSchemas() {
  json::array leases_verbs{"get", "create", "update"};
  return {
      Schema("system-nodes", "system", 500, "ByUser", AllRule({Group("system:nodes")})),
      Schema("system-node-high", "node-high", 400, "ByUser",
             Rule({Group("system:nodes")},
                  {ResourceRule({"*"}, {""}, {"nodes", "nodes/status"}, true),
                   ResourceRule({"*"}, {"coordination.k8s.io"}, {"leases"}, false)},
                  {})),
      Schema("probes", "exempt", 2, "",
             Rule({Group("system:unauthenticated"), Group("system:authenticated")}, {},
                  {json::object{{"verbs", json::array{"get"}}, {"nonResourceURLs", json::array{"/healthz", "/readyz", "/livez"}}}})),
      Schema("system-leader-election", "leader-election", 100, "ByUser",
             Rule({User("system:kube-controller-manager"), User("system:kube-scheduler"), KubeSystemSa("*")},
                  {ResourceRule(leases_verbs, {"coordination.k8s.io"}, {"leases"}, false)}, {})),
      Schema("workload-leader-election", "leader-election", 200, "ByUser",
             Rule({KubeSystemSa("*")},
                  {ResourceRule(leases_verbs, {""}, {"endpoints", "configmaps"}, false),
                   ResourceRule(leases_verbs, {"coordination.k8s.io"}, {"leases"}, false)},
                  {})),
      Schema("endpoint-controller", "workload-high", 150, "ByUser",
             Rule({User("system:kube-controller-manager"), KubeSystemSa("endpoint-controller"),
                   KubeSystemSa("endpointslicemirroring-controller")},
                  {ResourceRule(leases_verbs, {""}, {"endpoints"}, false)}, {})),
      Schema("kube-controller-manager", "workload-high", 800, "ByNamespace", AllRule({User("system:kube-controller-manager")})),
      Schema("kube-scheduler", "workload-high", 800, "ByNamespace", AllRule({User("system:kube-scheduler")})),
      Schema("kube-system-service-accounts", "workload-high", 900, "ByNamespace", AllRule({KubeSystemSa("*")})),
      Schema("service-accounts", "workload-low", 9000, "ByUser", AllRule({Group("system:serviceaccounts")})),
      Schema("global-default", "global-default", 9900, "ByUser",
             AllRule({Group("system:unauthenticated"), Group("system:authenticated")})),
  };
}

Task<Status> EnsureApfConfiguration(registry::Storage& flowschemas, registry::Storage& flowschema_status,
                                    registry::Storage& priority_levels) {
  Ops fs = OpsOf(flowschemas);
  Ops pl = OpsOf(priority_levels);
  auto* status = dynamic_cast<registry::Updater*>(&flowschema_status);
  if (!fs.ok() || !pl.ok() || !status) co_return am::NewInternalError("flowcontrol resources are not served");
  std::set<std::string> pl_names, fs_names;
  // Suggested objects first, then the mandatory ones (kube's order), priority levels before schemas.
  for (const auto& o : SuggestedPriorityLevels()) {
    pl_names.insert(std::string(am::GetName(o)));
    CO_RETURN_IF_ERROR(co_await Ensure(pl, o, false));
  }
  for (const auto& o : MandatoryPriorityLevels()) {
    pl_names.insert(std::string(am::GetName(o)));
    CO_RETURN_IF_ERROR(co_await Ensure(pl, o, true));
  }
  for (const auto& o : SuggestedFlowSchemas()) {
    fs_names.insert(std::string(am::GetName(o)));
    CO_RETURN_IF_ERROR(co_await Ensure(fs, o, false));
  }
  for (const auto& o : MandatoryFlowSchemas()) {
    fs_names.insert(std::string(am::GetName(o)));
    CO_RETURN_IF_ERROR(co_await Ensure(fs, o, true));
  }
  CO_RETURN_IF_ERROR(co_await RemoveDangling(fs, fs_names));
  CO_RETURN_IF_ERROR(co_await RemoveDangling(pl, pl_names));
  co_return co_await MarkDangling(fs, *status, pl);
}

}  // namespace capstan::api::flowcontrol
