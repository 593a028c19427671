// api/policy/poddisruptionbudget.cpp: policy/v1 PodDisruptionBudgets: kube's
// ValidatePodDisruptionBudget (minAvailable and maxUnavailable exclusive, int or percent up to 100%,
// the selector, unhealthyPodEvictionPolicy), generation bumps on spec changes, the status subresource
// with kube's status validation, and kube's printer (NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED
// DISRUPTIONS AGE). The Eviction kind is served by pods/eviction (core).
#include <set>

#include "api/apps/apps.h"
#include "api/apps/workload_util.h"
#include "api/common.h"
#include "api/policy/policy.h"
#include "apimachinery/labels.h"
#include "apimachinery/object_meta.h"
#include "util/strings.h"

namespace capstan::api::policy {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

const Object kEmpty;

const Object& Spec(const Object& o) {
  const Object* s = ObjectAt(o, "spec");
  return s ? *s : kEmpty;
}

std::string IntOrStringText(const json::value* v) {
  if (!v || v->is_null()) return "N/A";
  if (v->is_string()) return std::string(v->get_string());
  if (v->is_int64()) return std::to_string(v->get_int64());
  return json::serialize(*v);
}

// Go's %#v of the internal PodDisruptionBudgetSpec (what kube prints when both bounds are set).
std::string GoSpec(const Object& spec) {
  auto ios = [&](const char* key) -> std::string {
    const auto* v = spec.if_contains(key);
    return v && !v->is_null() ? "(*intstr.IntOrString)(0xc000000000)" : "(*intstr.IntOrString)(nil)";
  };
  const auto* sel = spec.if_contains("selector");
  const auto* uhp = spec.if_contains("unhealthyPodEvictionPolicy");
  return "policy.PodDisruptionBudgetSpec{MinAvailable:" + ios("minAvailable") +
         ", Selector:(*v1.LabelSelector)" + (sel && !sel->is_null() ? "(0xc000000000)" : "(nil)") +
         ", MaxUnavailable:" + ios("maxUnavailable") + ", UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)" +
         (uhp && !uhp->is_null() ? "(0xc000000000)" : "(nil)") + "}";
}

ErrorList ValidatePdbSpec(const Object& pdb) {
  const Object& spec = Spec(pdb);
  FieldPath p("spec");
  ErrorList errs;
  const json::value* min = spec.if_contains("minAvailable");
  const json::value* max = spec.if_contains("maxUnavailable");
  if (min && min->is_null()) min = nullptr;
  if (max && max->is_null()) max = nullptr;
  if (min && max) errs.push_back(apps::InvalidRendered(p, GoSpec(spec), "minAvailable and maxUnavailable cannot be both set"));
  if (min) {
    for (auto& e : apps::ValidatePositiveIntOrPercent(*min, p.Child("minAvailable"))) errs.push_back(std::move(e));
    for (auto& e : apps::IsNotMoreThan100Percent(*min, p.Child("minAvailable"))) errs.push_back(std::move(e));
  }
  if (max) {
    for (auto& e : apps::ValidatePositiveIntOrPercent(*max, p.Child("maxUnavailable"))) errs.push_back(std::move(e));
    for (auto& e : apps::IsNotMoreThan100Percent(*max, p.Child("maxUnavailable"))) errs.push_back(std::move(e));
  }
  if (const auto* sel = spec.if_contains("selector"); sel && !sel->is_null()) {
    for (auto& e : am::ValidateLabelSelector(*sel, p.Child("selector"))) errs.push_back(std::move(e));
  }
  if (const auto* u = spec.if_contains("unhealthyPodEvictionPolicy"); u && u->is_string()) {
    std::string v(u->get_string());
    if (v != "IfHealthyBudget" && v != "AlwaysAllow") {
      errs.push_back(NotSupportedError(p.Child("unhealthyPodEvictionPolicy"), v, {"AlwaysAllow", "IfHealthyBudget"}));
    }
  }
  return errs;
}

// kube's ValidateConditions for metav1.Condition lists (the common mistakes: type, status, reason,
// lastTransitionTime, duplicates).
void ValidateConditions(const json::array* conds, const FieldPath& p, ErrorList& errs) {
  if (!conds) return;
  std::set<std::string> seen;
  for (size_t i = 0; i < conds->size(); ++i) {
    if (!(*conds)[i].is_object()) continue;
    const Object& c = (*conds)[i].get_object();
    FieldPath cp = p.Index(i);
    std::string type = StringAt(c, "type");
    if (!type.empty() && !seen.insert(type).second) errs.push_back(DuplicateError(cp.Child("type"), type));
    for (const auto& m : am::IsQualifiedName(type)) errs.push_back(InvalidError(cp.Child("type"), type, m));
    std::string status = StringAt(c, "status");
    if (status != "True" && status != "False" && status != "Unknown") {
      errs.push_back(NotSupportedError(cp.Child("status"), status, {"False", "True", "Unknown"}));
    }
    if (auto g = apps::OptInt(&c, "observedGeneration"); g && *g < 0) {
      errs.push_back(InvalidError(cp.Child("observedGeneration"), *g, "must be greater than or equal to zero"));
    }
    if (StringAt(c, "lastTransitionTime").empty()) errs.push_back(RequiredError(cp.Child("lastTransitionTime"), "must be set"));
    std::string reason = StringAt(c, "reason");
    if (reason.empty()) {
      errs.push_back(RequiredError(cp.Child("reason"), "must be set"));
    } else {
      if (reason.size() > 1024) errs.push_back(TooLongError(cp.Child("reason"), 1024));
      bool ok = (reason[0] >= 'A' && reason[0] <= 'Z') || (reason[0] >= 'a' && reason[0] <= 'z');
      for (char ch : reason) {
        ok = ok && ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                    ch == ',' || ch == ':');
      }
      ok = ok && reason.back() != ',' && reason.back() != ':';
      if (!ok) {
        errs.push_back(InvalidError(cp.Child("reason"), reason,
                                    am::RegexError("a condition reason must start with alphabetic character, optionally "
                                                   "followed by a string of alphanumeric characters or '_,:', and must end "
                                                   "with an alphanumeric character or '_'",
                                                   "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?",
                                                   {"my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB"})));
      }
    }
    if (StringAt(c, "message").size() > 32768) errs.push_back(TooLongError(cp.Child("message"), 32768));
  }
}

ErrorList ValidatePdbStatus(const Object& pdb, const Object&) {
  const Object* st = ObjectAt(pdb, "status");
  const Object& s = st ? *st : kEmpty;
  FieldPath p("status");
  ErrorList errs;
  ValidateConditions(ArrayAt(s, "conditions"), p.Child("conditions"), errs);
  for (const char* f : {"disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"}) {
    apps::CheckNonnegative(s, f, p.Child(f), errs);
  }
  return errs;
}

class PdbStrategy : public registry::DefaultStrategy {
 public:
  PdbStrategy() : DefaultStrategy(Options{.has_status = true, .track_generation = true}) {}

  ErrorList Validate(const registry::Context&, const Object& pdb) const override { return ValidatePdbSpec(pdb); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& pdb, const Object&) const override {
    return ValidatePdbSpec(pdb);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Min Available", "string", "", "The minimum number of pods that must be available.", 0},
            {"Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.", 0},
            {"Allowed Disruptions", "integer", "", "Calculated number of pods that may be disrupted at this time.", 0},
            registry::AgeColumn()};
  }
  json::array TableCells(const Object& pdb) const override {
    const Object& spec = Spec(pdb);
    const Object* st = ObjectAt(pdb, "status");
    return {json::value(am::GetName(pdb)), json::value(IntOrStringText(spec.if_contains("minAvailable"))),
            json::value(IntOrStringText(spec.if_contains("maxUnavailable"))), st ? IntAt(*st, "disruptionsAllowed") : 0,
            json::value(AgeCell(pdb))};
  }
};

}  // namespace

std::vector<registry::RestResource> PodDisruptionBudgets(const registry::GroupDeps& deps) {
  registry::ResourceSpec spec;
  spec.info = MakeInfo({"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true,
                        {"pdb"}, {}, "io.k8s.api.policy.v1.PodDisruptionBudget"});
  auto strategy = std::make_shared<PdbStrategy>();
  spec.strategy = strategy;
  auto out = registry::MakeResource(deps, spec);
  apps::AddStatus(out, std::make_shared<apps::WorkloadStatusStrategy>(strategy, false, ValidatePdbStatus));
  return out;
}

}  // namespace capstan::api::policy
