// cel/admission_expressions.h: CEL for admission (kube's admission/plugin/cel): the environment that
// webhook matchConditions and ValidatingAdmissionPolicy expressions compile in, and compiling one
// expression with the result types it must have, with kube's texts.
//
// The environment is Env::Kube() plus the variables kube declares (object, oldObject: dyn;
// request: kubernetes.AdmissionRequest with kind/resource/.../userInfo/dryRun/options;
// namespaceObject: dyn; params when a paramKind is set; `variables` with the policy's composited
// variables typed by their compiled result types). CompileAdmissionExpression answers kube's
// compile errors ("compilation failed: ERROR: <input>:1:1: ...", "must evaluate to bool but got
// int") for field errors at creation and for evaluation errors ("compilation error: ...").
// Evaluate answers kube's evaluation error text ("expression '<e>' resulted in error: <why>").
//
// Envs and programs are immutable; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cel/program.h"

namespace capstan::cel {

struct AdmissionEnvOptions {
  bool has_params = false;
  bool has_authorizer = false;
  // Composited variables declared so far (name, result type): `variables.<name>`.
  std::vector<std::pair<std::string, TypePtr>> variables;
};

std::shared_ptr<const Env> AdmissionEnv(const AdmissionEnvOptions& opts);

enum class ResultType { kBool, kString, kStringOrNull, kAny };

struct AdmissionCompileResult {
  std::shared_ptr<const Program> program;  // null on failure
  std::string error;                        // kube's Detail text
};

AdmissionCompileResult CompileAdmissionExpression(std::string_view expression, const Env& env, ResultType want);

// Values of the activation (null Value for an absent object).
struct AdmissionValues {
  Value object, old_object, request, namespace_object, params, variables;
};

class AdmissionActivation : public Activation {
 public:
  explicit AdmissionActivation(AdmissionValues v) : v_(std::move(v)) {}
  const Value* Resolve(std::string_view name) const override;
  AdmissionValues& values() { return v_; }

 private:
  AdmissionValues v_;
};

// Runs one compiled expression; an evaluation error is returned as kube's text. `budget` is the
// remaining request budget, decremented by the cost; exhausting it is kube's out-of-budget error.
struct AdmissionEvalResult {
  Value value;
  std::string error;         // "" when value holds the result
  bool out_of_budget = false;
};
AdmissionEvalResult EvaluateAdmission(const Program& p, const Activation& act, int64_t& budget);

}  // namespace capstan::cel
