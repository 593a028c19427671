#include "auth/authz/webhook_match_conditions.h"

#include <boost/json.hpp>
#include <set>

#include "apimachinery/fields.h"
#include "apimachinery/labels.h"
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
    json::object ra{{"namespace", a.namespace_}, {"verb", a.verb},         {"group", a.api_group},
                    {"version", a.api_version}, {"resource", a.resource}, {"subresource", a.subresource},
                    {"name", a.name}};
    AddSelectorAttributes(a, ra);
    spec["resourceAttributes"] = std::move(ra);
  } else {
    spec["nonResourceAttributes"] = json::object{{"verb", a.verb}, {"path", a.path}};
  }
  return spec;
}

json::object Requirement(const std::string& key, const char* op, const std::vector<std::string>& values) {
  json::object r{{"key", key}, {"operator", op}};
  if (!values.empty()) r["values"] = Strings(values);
  return r;
}

}  // namespace

void AddSelectorAttributes(const Attributes& a, json::object& resource_attributes) {
  if (!a.field_selector.empty()) {
    if (auto fs = apimachinery::ParseFieldSelector(a.field_selector); fs.ok()) {
      json::array reqs;
      for (const auto& r : fs->Requirements()) reqs.push_back(Requirement(r.field, r.not_equals ? "NotIn" : "In", {r.value}));
      if (!reqs.empty()) resource_attributes["fieldSelector"] = json::object{{"requirements", std::move(reqs)}};
    }
  }
  if (!a.label_selector.empty()) {
    if (auto ls = apimachinery::ParseLabelSelector(a.label_selector); ls.ok()) {
      using Op = apimachinery::SelectorOp;
      json::array reqs;
      for (const auto& r : ls->Requirements()) {
        const char* op = nullptr;
        switch (r.op()) {
          case Op::kEquals: case Op::kDoubleEquals: case Op::kIn: op = "In"; break;
          case Op::kNotEquals: case Op::kNotIn: op = "NotIn"; break;
          case Op::kExists: op = "Exists"; break;
          case Op::kDoesNotExist: op = "DoesNotExist"; break;
          default: break;
        }
        if (op) reqs.push_back(Requirement(r.key(), op, r.values()));
      }
      if (!reqs.empty()) resource_attributes["labelSelector"] = json::object{{"requirements", std::move(reqs)}};
    }
  }
}

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
