#include "admission/validating_policy.h"

#include <chrono>

#include <boost/json.hpp>

#include "apimachinery/object_meta.h"
#include "cel/crd_rules.h"
#include "util/strings.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

// kube's celconfig.MaxEvaluatedMessageExpressionSizeBytes.
constexpr size_t kMaxMessageSize = 5 * 1024;

const json::object* Obj(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

const json::array* Arr(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_array() ? &v->as_array() : nullptr;
}

CompiledExpression CompileOne(const std::string& expression, const cel::Env& env, cel::ResultType want) {
  CompiledExpression c;
  c.expression = expression;
  auto r = cel::CompileAdmissionExpression(expression, env, want);
  c.program = std::move(r.program);
  if (!c.program) c.compile_error = "compilation error: " + r.error;
  return c;
}

// A result: the value, or kube's error text.
cel::AdmissionEvalResult Run(const CompiledExpression& c, const cel::Activation& act, int64_t& budget) {
  if (!c.program) {
    cel::AdmissionEvalResult r;
    r.error = c.compile_error;
    return r;
  }
  return cel::EvaluateAdmission(*c.program, act, budget);
}

}  // namespace

std::shared_ptr<const CompiledPolicy> CompilePolicy(const json::object& policy) {
  auto p = std::make_shared<CompiledPolicy>();
  p->name = std::string(am::GetName(policy));
  static const json::object kEmpty;
  const json::object* spec_ptr = Obj(policy, "spec");
  const json::object& spec = spec_ptr ? *spec_ptr : kEmpty;
  if (std::string fp = StringField(spec, "failurePolicy"); !fp.empty()) p->failure_policy = fp;
  if (const json::object* pk = Obj(spec, "paramKind")) p->param_kind = std::make_pair(StringField(*pk, "apiVersion"), StringField(*pk, "kind"));
  p->match_constraints = ParseMatchResources(Obj(spec, "matchConstraints"));

  cel::AdmissionEnvOptions opts;
  opts.has_params = p->param_kind.has_value();
  opts.has_authorizer = true;
  if (const json::array* vars = Arr(spec, "variables")) {
    for (const auto& v : *vars) {
      if (!v.is_object()) continue;
      auto env = cel::AdmissionEnv(opts);
      std::string name = StringField(v.as_object(), "name");
      CompiledExpression c = CompileOne(StringField(v.as_object(), "expression"), *env, cel::ResultType::kAny);
      opts.variables.emplace_back(name, c.program ? c.program->result_type() : cel::DynType());
      p->variables.emplace_back(name, std::move(c));
    }
  }
  auto env = cel::AdmissionEnv(opts);
  cel::AdmissionEnvOptions message_opts = opts;
  message_opts.has_authorizer = false;
  auto message_env = cel::AdmissionEnv(message_opts);
  if (const json::array* mc = Arr(spec, "matchConditions"); mc && !mc->empty()) {
    p->match_conditions = MatchConditions::Compile(*mc, *env);
  }
  if (const json::array* vals = Arr(spec, "validations")) {
    for (const auto& v : *vals) {
      if (!v.is_object()) continue;
      const json::object& o = v.as_object();
      CompiledValidation cv;
      cv.expression = CompileOne(StringField(o, "expression"), *env, cel::ResultType::kBool);
      cv.message = StringField(o, "message");
      cv.reason = StringField(o, "reason");
      if (std::string me = StringField(o, "messageExpression"); !me.empty()) {
        cv.message_expression = CompileOne(me, *message_env, cel::ResultType::kString);
      }
      p->validations.push_back(std::move(cv));
    }
  }
  if (const json::array* anns = Arr(spec, "auditAnnotations")) {
    for (const auto& a : *anns) {
      if (!a.is_object()) continue;
      CompiledAuditAnnotation ca;
      ca.key = StringField(a.as_object(), "key");
      ca.value = CompileOne(StringField(a.as_object(), "valueExpression"), *message_env, cel::ResultType::kStringOrNull);
      p->audit_annotations.push_back(std::move(ca));
    }
  }
  return p;
}

PolicyBinding ParseBinding(const json::object& binding) {
  PolicyBinding b;
  b.name = std::string(am::GetName(binding));
  static const json::object kEmpty;
  const json::object* spec_ptr = Obj(binding, "spec");
  const json::object& spec = spec_ptr ? *spec_ptr : kEmpty;
  b.policy_name = StringField(spec, "policyName");
  if (const json::object* mr = Obj(spec, "matchResources")) {
    b.has_match_resources = true;
    b.match_resources = ParseMatchResources(mr);
  }
  if (const json::array* actions = Arr(spec, "validationActions")) {
    for (const auto& a : *actions) {
      if (a.is_string()) b.validation_actions.emplace_back(a.as_string());
    }
  }
  if (const json::object* pr = Obj(spec, "paramRef")) {
    b.has_param_ref = true;
    b.param_name = StringField(*pr, "name");
    b.param_namespace = StringField(*pr, "namespace");
    if (const json::value* sel = pr->if_contains("selector"); sel && !sel->is_null()) {
      auto parsed = am::LabelSelectorFromJson(sel);
      if (parsed.ok()) b.param_selector = std::move(*parsed);
    }
    if (std::string action = StringField(*pr, "parameterNotFoundAction"); !action.empty()) b.parameter_not_found_action = action;
  }
  return b;
}

PolicyResult EvaluatePolicy(const CompiledPolicy& p, cel::AdmissionValues values) {
  PolicyResult out;
  const bool fail = p.failure_policy != "Ignore";
  auto error_decision = [&](std::string message) {
    PolicyDecision d;
    d.action = fail ? PolicyDecision::kDeny : PolicyDecision::kAdmit;
    d.eval_error = true;
    d.message = std::move(message);
    return d;
  };
  int64_t budget = cel::kRuntimeCostBudget;
  // Variables first, in order, so that later ones and every expression can read earlier ones.
  auto vars = std::make_shared<cel::MapValue>();
  vars->object_type = "kubernetes.variables";
  values.variables = cel::Value::Map(vars);
  cel::AdmissionActivation act(std::move(values));
  for (const auto& [name, expr] : p.variables) {
    auto r = Run(expr, act, budget);
    if (r.out_of_budget) {
      out.decisions.push_back(error_decision(r.error));
      return out;
    }
    vars->entries.emplace_back(cel::Value::String(name), r.error.empty() ? r.value : cel::Value::Error(r.error));
    act.values().variables = cel::Value::Map(vars);
  }
  if (p.match_conditions) {
    auto m = p.match_conditions->Match(act, fail);
    if (!m.error.empty()) {
      out.decisions.push_back(error_decision(m.error));
      return out;
    }
    if (!m.matches) return out;
  }
  for (size_t i = 0; i < p.validations.size(); ++i) {
    const CompiledValidation& v = p.validations[i];
    const auto start = std::chrono::steady_clock::now();
    auto r = Run(v.expression, act, budget);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    PolicyDecision d;
    if (r.out_of_budget || !r.error.empty()) d = error_decision(r.error);
    d.expression_index = i;
    d.elapsed_seconds = elapsed;
    if (!d.eval_error && !(r.value.IsBool() && r.value.bool_value())) {
      d.action = PolicyDecision::kDeny;
      d.reason = v.reason.empty() ? "Invalid" : v.reason;
      std::string message;
      if (v.message_expression) {
        auto m = Run(*v.message_expression, act, budget);
        if (m.error.empty() && m.value.kind() == cel::Kind::kString) {
          message = std::string(TrimSpace(m.value.str()));
          if (message.size() > kMaxMessageSize || message.find('\n') != std::string::npos) message.clear();
        }
      }
      if (message.empty() && !v.message.empty()) message = std::string(TrimSpace(v.message));
      if (message.empty()) message = "failed expression: " + std::string(TrimSpace(v.expression.expression));
      d.message = std::move(message);
    }
    out.decisions.push_back(std::move(d));
  }
  for (const auto& a : p.audit_annotations) {
    const auto start = std::chrono::steady_clock::now();
    auto r = Run(a.value, act, budget);
    if (!r.error.empty()) {
      if (fail) {
        PolicyDecision d = error_decision(r.error);
        d.audit_annotation_error = true;
        d.elapsed_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        out.decisions.push_back(std::move(d));
      }
      continue;
    }
    if (r.value.kind() == cel::Kind::kString) {
      std::string value(TrimSpace(r.value.str()));
      if (!value.empty()) out.audit_annotations.push_back({a.key, std::move(value)});
    }
  }
  return out;
}

const char* PolicyDecisionErrorType(const PolicyDecision& d) {
  if (!d.eval_error && d.action == PolicyDecision::kAdmit) return "no_error";
  if (d.message.starts_with("compilation")) return "compile_error";
  if (d.message.starts_with("validation failed due to running out of cost budget")) return "out_of_budget";
  return "invalid_error";
}

}  // namespace capstan::admission
