#include "cel/admission_expressions.h"

#include "cel/crd_rules.h"

namespace capstan::cel {

namespace {

// kube's BuildRequestType (uid, object and oldObject left out).
TypePtr RequestType() {
  static const TypePtr kType = [] {
    TypePtr str = Primitive(TypeKind::kString);
    TypePtr gvk = ObjectType("kubernetes.GroupVersionKind", {{"group", str}, {"version", str}, {"kind", str}});
    TypePtr gvr = ObjectType("kubernetes.GroupVersionResource", {{"group", str}, {"version", str}, {"resource", str}});
    TypePtr user = ObjectType("kubernetes.UserInfo", {{"username", str},
                                                  {"uid", str},
                                                  {"groups", ListOf(str)},
                                                  {"extra", MapOf(str, ListOf(str))}});
    return ObjectType("kubernetes.AdmissionRequest", {{"kind", gvk},
                                                  {"resource", gvr},
                                                  {"subResource", str},
                                                  {"requestKind", gvk},
                                                  {"requestResource", gvr},
                                                  {"requestSubResource", str},
                                                  {"name", str},
                                                  {"namespace", str},
                                                  {"operation", str},
                                                  {"userInfo", user},
                                                  {"dryRun", Primitive(TypeKind::kBool)},
                                                  {"options", DynType()}});
  }();
  return kType;
}

std::string ReturnTypeName(ResultType t) {
  switch (t) {
    case ResultType::kBool: return "bool";
    case ResultType::kString: return "string";
    default: return "dyn";
  }
}

}  // namespace

std::shared_ptr<const Env> AdmissionEnv(const AdmissionEnvOptions& opts) {
  std::vector<VariableDecl> vars = {
      {"object", DynType()}, {"oldObject", DynType()}, {"namespaceObject", DynType()}, {"request", RequestType()}};
  if (opts.has_params) vars.push_back({"params", DynType()});
  // TODO: the authorizer library (authorizer.group(...).resource(...).check(...)); until then
  // `authorizer` is declared dyn so such expressions compile, and fail when evaluated.
  if (opts.has_authorizer) {
    vars.push_back({"authorizer", DynType()});
    vars.push_back({"authorizer.requestResource", DynType()});
  }
  vars.push_back({"variables", ObjectType("kubernetes.variables", opts.variables)});
  return std::make_shared<const Env>(Env::Kube()->Extend(std::move(vars)));
}

AdmissionCompileResult CompileAdmissionExpression(std::string_view expression, const Env& env, ResultType want) {
  AdmissionCompileResult out;
  CompileResult cr = Compile(expression, env);
  if (!cr.program) {
    out.error = "compilation failed: " + cr.error;
    return out;
  }
  const TypePtr& t = cr.program->result_type();
  bool ok = want == ResultType::kAny || t == UnknownType();
  if (!ok && want == ResultType::kBool) ok = t && t->kind == TypeKind::kBool;
  if (!ok && (want == ResultType::kString || want == ResultType::kStringOrNull)) ok = t && t->kind == TypeKind::kString;
  if (!ok && want == ResultType::kStringOrNull) ok = t && t->kind == TypeKind::kNull;
  if (!ok) {
    std::string got = t ? TypeString(*t) : "dyn";
    out.error = want == ResultType::kStringOrNull ? "must evaluate to one of [string null_type] but got " + got
                                                  : "must evaluate to " + ReturnTypeName(want) + " but got " + got;
    return out;
  }
  out.program = std::move(cr.program);
  return out;
}

const Value* AdmissionActivation::Resolve(std::string_view name) const {
  if (name == "object") return &v_.object;
  if (name == "oldObject") return &v_.old_object;
  if (name == "request") return &v_.request;
  if (name == "namespaceObject") return &v_.namespace_object;
  if (name == "params") return &v_.params;
  if (name == "variables") return &v_.variables;
  return nullptr;
}

AdmissionEvalResult EvaluateAdmission(const Program& p, const Activation& act, int64_t& budget) {
  AdmissionEvalResult out;
  EvalResult r = p.Eval(act, kPerCallLimit);
  if (static_cast<int64_t>(r.cost) > budget) {
    out.out_of_budget = true;
    out.error = "validation failed due to running out of cost budget, no further validation rules will be run";
    budget = -1;
    return out;
  }
  budget -= static_cast<int64_t>(r.cost);
  if (r.value.IsError()) {
    out.error = "expression '" + p.source() + "' resulted in error: " + r.value.str();
    return out;
  }
  out.value = std::move(r.value);
  return out;
}

}  // namespace capstan::cel
