// api/scheduling/priority_class.cpp: scheduling.k8s.io/v1 PriorityClasses (cluster-scoped): kube's
// SetDefaults_PriorityClass (preemptionPolicy PreemptLowerPriority), ValidatePriorityClass(Update)
// ("system-" names reserved for the system classes with their values, user values at most 10^9,
// value and preemptionPolicy immutable), the system classes' protection from deletion, and the
// printer (NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY).
#include "api/common.h"
#include "api/networking/validators.h"
#include "api/scheduling/scheduling.h"
#include "api/scheduling/scheduling_descriptions.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "util/strings.h"

namespace capstan::api::scheduling {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

constexpr std::string_view kSystemPrefix = "system-";

// kube's IsKnownSystemPriorityClass: empty when `name` is a system class with these value and
// globalDefault, else why not.
std::string SystemClassProblem(std::string_view name, int64_t value, bool global_default) {
  for (const auto& spc : SystemPriorityClasses()) {
    if (name != spc.name) continue;
    if (value != spc.value) return "value of " + std::string(name) + " PriorityClass must be " + std::to_string(spc.value);
    if (global_default) return "globalDefault of " + std::string(name) + " PriorityClass must be false";
    return "";
  }
  return std::string(name) + " is not a known system priority class";
}

ErrorList ValidatePreemptionPolicy(const Object& pc) {
  ErrorList errs;
  const json::value* v = pc.if_contains("preemptionPolicy");
  if (!v || v->is_null()) return errs;
  std::string policy = v->is_string() ? std::string(v->get_string()) : "";
  if (policy.empty()) {
    errs.push_back(RequiredError(FieldPath("preemptionPolicy"), ""));
  } else if (policy != "PreemptLowerPriority" && policy != "Never") {
    errs.push_back(NotSupportedError(FieldPath("preemptionPolicy"), policy, {"PreemptLowerPriority", "Never"}));
  }
  return errs;
}

class PriorityClassStrategy : public registry::DefaultStrategy {
 public:
  PriorityClassStrategy() : DefaultStrategy(Options{.namespaced = false}) {}

  void PrepareForCreate(const registry::Context&, Object& pc) const override { Default(pc); }
  void PrepareForUpdate(const registry::Context&, Object& pc, const Object&) const override { Default(pc); }
  ErrorList Validate(const registry::Context&, const Object& pc) const override {
    ErrorList errs;
    std::string name(am::GetName(pc));
    int64_t value = IntAt(pc, "value");
    if (StartsWith(name, kSystemPrefix)) {
      if (std::string problem = SystemClassProblem(name, value, BoolAt(pc, "globalDefault")); !problem.empty()) {
        errs.push_back(ForbiddenError(FieldPath("metadata").Child("name"),
                                      "priority class names with '" + std::string(kSystemPrefix) +
                                          "' prefix are reserved for system use only. error: " + problem));
      }
    } else if (value > kHighestUserDefinablePriority) {
      errs.push_back(ForbiddenError(FieldPath("value"), "maximum allowed value of a user defined priority is " +
                                                            std::to_string(kHighestUserDefinablePriority)));
    }
    ErrorList more = ValidatePreemptionPolicy(pc);
    errs.insert(errs.end(), more.begin(), more.end());
    return errs;
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& pc, const Object& old) const override {
    ErrorList errs;
    if (IntAt(pc, "value") != IntAt(old, "value")) {
      errs.push_back(ForbiddenError(FieldPath("value"), "may not be changed in an update."));
    }
    catalog::CheckImmutable(errs, pc.if_contains("preemptionPolicy"), old.if_contains("preemptionPolicy"),
                            FieldPath("preemptionPolicy"));
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Value", "integer", "", kValue, 0},
            {"Global-Default", "boolean", "", kGlobalDefault, 0},
            registry::AgeColumn(),
            {"PreemptionPolicy", "string", "", kPreemptionPolicy, 0}};
  }
  json::array TableCells(const Object& pc) const override {
    return {json::value(am::GetName(pc)), IntAt(pc, "value"), json::value(BoolAt(pc, "globalDefault")),
            json::value(AgeCell(pc)), json::value(StringAt(pc, "preemptionPolicy"))};
  }

 private:
  static void Default(Object& pc) { catalog::DefaultField(pc, "preemptionPolicy", "PreemptLowerPriority"); }
};

// The priority classes' Store: the system classes cannot be deleted (kube's REST.Delete).
class PriorityClassStore : public registry::OwningStore {
 public:
  using OwningStore::OwningStore;
  Task<StatusOr<registry::DeleteOutcome>> Delete(const registry::Context& ctx, const std::string& name,
                                                 const registry::DeleteOptions& opts) override {
    for (const auto& spc : SystemPriorityClasses()) {
      if (name == spc.name) {
        co_return am::NewForbidden(Info().GroupResource(), name, "this is a system priority class and cannot be deleted");
      }
    }
    co_return co_await OwningStore::Delete(ctx, name, opts);
  }
};

}  // namespace

const std::vector<SystemPriorityClass>& SystemPriorityClasses() {
  static const std::vector<SystemPriorityClass> classes = {
      {"system-node-critical", kSystemCriticalPriority + 1000,
       "Used for system critical pods that must not be moved from their current node."},
      {"system-cluster-critical", kSystemCriticalPriority,
       "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary."},
  };
  return classes;
}

std::vector<registry::RestResource> PriorityClasses(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"scheduling.k8s.io", "v1", "priorityclasses", "priorityclass", "PriorityClass", false, {"pc"}, {},
                        "io.k8s.api.scheduling.v1.PriorityClass"});
  auto strategy = std::make_shared<PriorityClassStrategy>();
  spec.strategy = strategy;
  std::vector<registry::RestResource> out = registry::MakeResource(deps, spec);
  // The same Store, with the deletion guard.
  auto* made = dynamic_cast<registry::Store*>(out.front().storage.get());
  if (made) out.front().storage = std::make_shared<PriorityClassStore>(made->config(), strategy);
  return out;
}

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) { return PriorityClasses(deps); }

Task<Status> EnsureSystemPriorityClasses(registry::Storage& priorityclasses) {
  auto* getter = dynamic_cast<registry::Getter*>(&priorityclasses);
  auto* creater = dynamic_cast<registry::Creater*>(&priorityclasses);
  if (!getter || !creater) co_return am::NewInternalError("priorityclasses are not served");
  for (const auto& spc : SystemPriorityClasses()) {
    registry::Context ctx;
    auto existing = co_await getter->Get(ctx, spc.name, {});
    if (existing.ok()) continue;
    if (!am::IsNotFound(existing.status())) co_return existing.TakeStatus();
    Object pc;
    pc["apiVersion"] = "scheduling.k8s.io/v1";
    pc["kind"] = "PriorityClass";
    pc["metadata"] = json::object{{"name", spc.name}};
    pc["value"] = spc.value;
    pc["description"] = spc.description;
    auto created = co_await creater->Create(ctx, std::move(pc), {});
    if (!created.ok() && !am::IsAlreadyExists(created.status())) co_return created.TakeStatus();
  }
  co_return Status();
}

}  // namespace capstan::api::scheduling
