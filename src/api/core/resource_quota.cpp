// api/core/resource_quota.cpp: core/v1 ResourceQuotas: kube's validation of hard limits, scopes and
// scope selectors, the spec/status split (the quota controller writes status.hard and status.used
// through resourcequotas/status), and the printer (NAME AGE REQUEST LIMIT, "resource: used/hard").
#include <set>

#include "api/core/core_helpers.h"
#include "api/core/core_resources.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/quantity.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

bool StandardQuotaResource(std::string_view n) {
  static const std::set<std::string, std::less<>> kStandard = {
      "pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims",
      "services.nodeports", "services.loadbalancers", "requests.cpu", "requests.memory", "requests.storage",
      "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage", "cpu", "memory",
      "ephemeral-storage", "storage"};
  return kStandard.count(n) || StartsWith(n, "hugepages-") || StartsWith(n, "requests.hugepages-");
}

bool IntegerQuotaResource(std::string_view n) {
  return n == "pods" || n == "services" || n == "replicationcontrollers" || n == "resourcequotas" || n == "secrets" ||
         n == "configmaps" || n == "persistentvolumeclaims" || n == "services.nodeports" || n == "services.loadbalancers" ||
         StartsWith(n, "count/");
}

ErrorList ValidateList(const json::value* v, const FieldPath& p) {
  ErrorList errs;
  if (!v || !v->is_object()) return errs;
  for (const auto& k : SortedKeys(&v->get_object())) {
    FieldPath kp = p.Key(k);
    auto more = ProblemsAt(am::IsQualifiedName(k), kp, k);
    errs.insert(errs.end(), more.begin(), more.end());
    if (more.empty() && k.find('/') == std::string::npos && !StandardQuotaResource(k)) {
      errs.push_back(InvalidError(kp, k, "must be a standard resource for quota"));
    }
    const auto& q = v->get_object().at(k);
    more = ValidateNonnegativeQuantity(q, kp);
    errs.insert(errs.end(), more.begin(), more.end());
    auto parsed = am::ParseQuantityJson(q);
    if (parsed.ok() && IntegerQuotaResource(k) && parsed->MilliValue() % 1000 != 0) {
      FieldError e = InvalidError(kp, "", "must be an integer");
      e.omit_value = true;
      e.detail = parsed->String() + ": must be an integer";
      errs.push_back(std::move(e));
    }
  }
  return errs;
}

class QuotaStrategy : public registry::DefaultStrategy {
 public:
  QuotaStrategy() : DefaultStrategy(Options{.has_status = true}) {}
  void PrepareForCreate(const registry::Context& ctx, Object& rq) const override {
    DefaultStrategy::PrepareForCreate(ctx, rq);
    rq["status"] = json::object();
  }
  ErrorList Validate(const registry::Context&, const Object& rq) const override {
    ErrorList errs = ValidateList(PathAt(rq, {"spec", "hard"}), FieldPath("spec").Child("hard"));
    static const std::vector<std::string> kScopes = {"BestEffort", "CrossNamespacePodAffinity", "NotBestEffort",
                                                     "NotTerminating", "PriorityClass", "Terminating"};
    if (const auto* scopes = PathAt(rq, {"spec", "scopes"}); scopes && scopes->is_array()) {
      std::set<std::string> seen;
      for (size_t i = 0; i < scopes->get_array().size(); ++i) {
        std::string s = StrOf(&scopes->get_array()[i]);
        if (std::find(kScopes.begin(), kScopes.end(), s) == kScopes.end()) {
          errs.push_back(NotSupportedError(FieldPath("spec").Child("scopes"), s, kScopes));
        }
        seen.insert(s);
      }
      if (seen.count("BestEffort") && seen.count("NotBestEffort")) {
        errs.push_back(InvalidError(FieldPath("spec").Child("scopes"), "", "conflicting scopes"));
        errs.back().omit_value = true;
        errs.back().detail = GoStringSlice(std::vector<std::string>(seen.begin(), seen.end())) + ": conflicting scopes";
      }
      if (seen.count("Terminating") && seen.count("NotTerminating")) {
        errs.push_back(InvalidError(FieldPath("spec").Child("scopes"), "", "conflicting scopes"));
        errs.back().omit_value = true;
        errs.back().detail = GoStringSlice(std::vector<std::string>(seen.begin(), seen.end())) + ": conflicting scopes";
      }
    }
    if (const auto* ss = PathAt(rq, {"spec", "scopeSelector", "matchExpressions"}); ss && ss->is_array()) {
      for (size_t i = 0; i < ss->get_array().size(); ++i) {
        const auto& e = ss->get_array()[i];
        if (!e.is_object()) continue;
        FieldPath p = FieldPath("spec").Child("scopeSelector").Child("matchExpressions").Index(i);
        std::string scope = StrOf(e.get_object().if_contains("scopeName"));
        if (std::find(kScopes.begin(), kScopes.end(), scope) == kScopes.end()) {
          errs.push_back(NotSupportedError(p.Child("scopeName"), scope, kScopes));
        }
        std::string op = StrOf(e.get_object().if_contains("operator"));
        if (op != "In" && op != "NotIn" && op != "Exists" && op != "DoesNotExist") {
          errs.push_back(NotSupportedError(p.Child("operator"), op, {"DoesNotExist", "Exists", "In", "NotIn"}));
        }
      }
    }
    return errs;
  }
  ErrorList ValidateUpdate(const registry::Context& ctx, const Object& rq, const Object&) const override {
    return Validate(ctx, rq);
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(), registry::AgeColumn(),
            {"Request", "string", "", "Request represents a minimum amount of cpu/memory that a container may consume.", 0},
            {"Limit", "string", "",
             "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.", 0}};
  }
  json::array TableCells(const Object& rq) const override {
    std::string request, limit;
    const auto* hard = PathAt(rq, {"spec", "hard"});
    for (const auto& k : SortedKeys(hard && hard->is_object() ? &hard->get_object() : nullptr)) {
      auto q = [&](const char* which) {
        const auto* v = PathAt(rq, {"status", which, k});
        if (!v) return std::string("0");
        auto parsed = am::ParseQuantityJson(*v);
        return parsed.ok() ? parsed->String() : StrOf(v);
      };
      std::string entry = k + ": " + q("used") + "/" + q("hard") + ", ";
      auto pieces = Split(k, '.');
      if (pieces.size() > 1 && pieces[0] == "limits") {
        limit += entry;
      } else {
        request += entry;
      }
    }
    auto trim = [](std::string s) {
      if (EndsWith(s, ", ")) s.resize(s.size() - 2);
      return s;
    };
    return {json::value(am::GetName(rq)), json::value(AgeCell(rq)), json::value(trim(request)), json::value(trim(limit))};
  }
};

class QuotaStatusStrategy : public registry::StatusStrategy {
 public:
  using StatusStrategy::StatusStrategy;
  ErrorList ValidateUpdate(const registry::Context&, const Object& rq, const Object&) const override {
    ErrorList errs = ValidateList(PathAt(rq, {"status", "hard"}), FieldPath("status").Child("hard"));
    ErrorList more = ValidateList(PathAt(rq, {"status", "used"}), FieldPath("status").Child("used"));
    errs.insert(errs.end(), more.begin(), more.end());
    return errs;
  }
};

}  // namespace

std::vector<registry::RestResource> ResourceQuotas(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"", "v1", "resourcequotas", "resourcequota", "ResourceQuota", true, {"quota"}, {},
                        "io.k8s.api.core.v1.ResourceQuota"});
  auto strategy = std::make_shared<QuotaStrategy>();
  return MakeCoreResource(deps, info, strategy, std::make_shared<QuotaStatusStrategy>(strategy));
}

}  // namespace capstan::api::core
