#include "admission/match_conditions.h"

#include <boost/json.hpp>

#include "admission/admission_review.h"
#include "admission/webhook_config.h"
#include "cel/crd_rules.h"
#include "cel/schema_types.h"

namespace capstan::admission {

namespace json = boost::json;

namespace {

// The CEL value of a JSON object without copying it into a json::value first.
cel::Value ObjectValue(const json::object& o) {
  auto m = std::make_shared<cel::MapValue>();
  m->entries.reserve(o.size());
  for (const auto& [k, x] : o) m->entries.emplace_back(cel::Value::String(std::string(k)), cel::JsonToValue(x, nullptr, false));
  return cel::Value::Map(std::move(m));
}

}  // namespace

std::shared_ptr<const MatchConditions> MatchConditions::Compile(const json::array& conditions, bool has_params) {
  cel::AdmissionEnvOptions opts;
  opts.has_params = has_params;
  opts.has_authorizer = true;
  return Compile(conditions, *cel::AdmissionEnv(opts));
}

std::shared_ptr<const MatchConditions> MatchConditions::Compile(const json::array& conditions, const cel::Env& env) {
  auto out = std::make_shared<MatchConditions>();
  for (const auto& c : conditions) {
    if (!c.is_object()) continue;
    Condition cond;
    cond.name = StringField(c.as_object(), "name");
    cond.expression = StringField(c.as_object(), "expression");
    auto compiled = cel::CompileAdmissionExpression(cond.expression, env, cel::ResultType::kBool);
    cond.program = std::move(compiled.program);
    if (!cond.program) cond.compile_error = "compilation error: " + compiled.error;
    out->conditions_.push_back(std::move(cond));
  }
  return out;
}

MatchConditions::Result MatchConditions::Match(const cel::Activation& act, bool fail_closed) const {
  Result r;
  std::vector<std::string> errors;
  int64_t budget = cel::kRuntimeCostBudget;
  for (const auto& c : conditions_) {
    if (!c.program) {
      errors.push_back(c.compile_error);
      continue;
    }
    auto ev = cel::EvaluateAdmission(*c.program, act, budget);
    if (ev.out_of_budget) {
      // kube: the filter itself fails; failurePolicy decides.
      r.matches = false;
      if (fail_closed) r.error = ev.error;
      return r;
    }
    if (!ev.error.empty()) {
      errors.push_back(ev.error);
      continue;
    }
    if (ev.value.IsBool() && !ev.value.bool_value()) {
      r.matches = false;
      r.failed_condition = c.name;
      return r;
    }
  }
  if (!errors.empty()) {
    r.matches = false;
    if (fail_closed) {
      // utilerrors.NewAggregate's text: one error as is, several as "[a, b]".
      if (errors.size() == 1) {
        r.error = errors[0];
      } else {
        r.error = "[";
        for (size_t i = 0; i < errors.size(); ++i) r.error += (i ? ", " : "") + errors[i];
        r.error += "]";
      }
    }
  }
  return r;
}

json::object AdmissionRequestJson(const Attributes& a) {
  Attributes without_objects = a;
  without_objects.old_object = nullptr;
  json::object review = MakeReview(without_objects, "", nullptr);
  json::object req = std::move(review["request"].as_object());
  req.erase("uid");
  req.erase("object");
  req.erase("oldObject");
  return req;
}

cel::AdmissionValues AdmissionValuesFor(const Attributes& a) {
  cel::AdmissionValues v;
  if (a.object && a.operation != "DELETE") v.object = ObjectValue(*a.object);
  if (a.old_object && a.operation != "CREATE") v.old_object = ObjectValue(*a.old_object);
  v.request = ObjectValue(AdmissionRequestJson(a));
  return v;
}

}  // namespace capstan::admission
