#include "auth/authz/webhook_match_conditions.h"

#include <boost/json.hpp>
#include <set>

#include "cel/admission_expressions.h"
#include "cel/authorization_expressions.h"
#include "cel/crd_rules.h"
#include "cel/schema_types.h"
#include "util/strings.h"

namespace capstan::authz {

namespace json = boost::json;

namespace {

constexpr size_t kMaxConditions = 64;

json::array Strings(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

// kube's convertObjectToUnstructured: every string field present, even empty ones.
json::object RequestJson(const Attributes& a) {
  json::object extra;
  for (const auto& [k, vals] : a.user.extra) extra[k] = Strings(vals);
  json::object spec{{"user", a.user.name}, {"groups", Strings(a.user.groups)}, {"uid", a.user.uid}, {"extra", std::move(extra)}};
  if (a.resource_request) {
    spec["resourceAttributes"] = json::object{{"namespace", a.namespace_}, {"verb", a.verb},
                                              {"group", a.api_group},      {"version", a.api_version},
                                              {"resource", a.resource},    {"subresource", a.subresource},
                                              {"name", a.name}};
  } else {
    spec["nonResourceAttributes"] = json::object{{"verb", a.verb}, {"path", a.path}};
  }
  return spec;
}

}  // namespace

WebhookMatchConditions::Compiled WebhookMatchConditions::Compile(const std::vector<std::string>& expressions,
                                                                 const FieldPath& path) {
  Compiled out;
  if (expressions.size() > kMaxConditions) {
    out.errors.push_back(TooManyError(path.Child("matchConditions"), static_cast<int>(expressions.size()),
                                      static_cast<int>(kMaxConditions)));
    return out;
  }
  auto conditions = std::make_shared<WebhookMatchConditions>();
  std::set<std::string> seen;
  const auto env = cel::AuthorizationEnv();
  for (size_t i = 0; i < expressions.size(); ++i) {
    const std::string& e = expressions[i];
    FieldPath p = path.Child("matchConditions").Index(i).Child("expression");
    if (TrimSpace(e).empty()) {
      out.errors.push_back(RequiredError(p, ""));
      continue;
    }
    if (!seen.insert(e).second) {
      out.errors.push_back(DuplicateError(p, e));
      continue;
    }
    auto compiled = cel::CompileAdmissionExpression(e, *env, cel::ResultType::kBool);
    if (!compiled.program) {
      out.errors.push_back(InvalidError(p, e, compiled.error));
      continue;
    }
    conditions->programs_.push_back(std::move(compiled.program));
  }
  if (out.errors.empty() && !conditions->programs_.empty()) out.conditions = std::move(conditions);
  return out;
}

WebhookMatchConditions::Outcome WebhookMatchConditions::Match(const Attributes& a) const {
  cel::MapActivation act;
  act.Bind("request", cel::JsonToValue(json::value(RequestJson(a)), nullptr, false));
  std::vector<std::string> errors;
  int64_t budget = cel::kRuntimeCostBudget;
  for (const auto& p : programs_) {
    auto ev = cel::EvaluateAdmission(*p, act, budget);
    if (!ev.error.empty()) {
      errors.push_back("cel evaluation error: " + ev.error);
      if (ev.out_of_budget) break;
      continue;
    }
    if (!ev.value.IsBool()) {
      errors.push_back("cel evaluation error: expression '" + p->source() + "' eval result type should be bool");
      continue;
    }
    if (!ev.value.bool_value()) return Outcome{false, ""};
  }
  if (!errors.empty()) return Outcome{false, AggregateErrors(errors)};
  return Outcome{};
}

}  // namespace capstan::authz
