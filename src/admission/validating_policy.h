// admission/validating_policy.h: one ValidatingAdmissionPolicy and its bindings, compiled once per
// object version, and their evaluation for a request, as kube's policy/validating validator.
//
// CompilePolicy compiles the policy's matchConditions, variables (in order, each seeing the ones
// before it as `variables.<name>`), validations (expression: bool, messageExpression: string) and
// auditAnnotations (valueExpression: string or null) in kube's admission environment. A policy whose
// expression does not compile evaluates it to kube's "compilation error: ..." text, which its
// failurePolicy decides (as kube, where validation at creation keeps such policies rare).
//
// Evaluate runs one policy for one binding's parameter: matchConditions (false: nothing to say; an
// error: a decision by failurePolicy), then every validation, answering one decision per validation:
// admit, or deny with its message (messageExpression's trimmed single-line string, else message,
// else "failed expression: <expression>") and reason (default Invalid); an evaluation error is a deny
// under failurePolicy Fail and an admit under Ignore. Variables are evaluated once per evaluation, in
// order, an error staying in the variable until an expression reads it.
// Immutable once compiled; Evaluate may run concurrently.
#pragma once

#include <boost/json/object.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admission/match_conditions.h"
#include "admission/policy_match.h"

namespace capstan::admission {

struct CompiledExpression {
  std::string expression;
  std::shared_ptr<const cel::Program> program;
  std::string compile_error;  // "compilation error: ..." when program is null
};

struct CompiledValidation {
  CompiledExpression expression;
  std::string message;
  std::optional<CompiledExpression> message_expression;
  std::string reason;  // "" : Invalid
};

struct CompiledAuditAnnotation {
  std::string key;
  CompiledExpression value;
};

struct CompiledPolicy {
  std::string name;
  std::string failure_policy = "Fail";
  std::optional<std::pair<std::string, std::string>> param_kind;  // apiVersion, kind
  MatchResources match_constraints;
  std::shared_ptr<const MatchConditions> match_conditions;
  std::vector<std::pair<std::string, CompiledExpression>> variables;
  std::vector<CompiledValidation> validations;
  std::vector<CompiledAuditAnnotation> audit_annotations;
};

struct PolicyBinding {
  std::string name;
  std::string policy_name;
  MatchResources match_resources;
  bool has_match_resources = false;
  std::vector<std::string> validation_actions;
  // paramRef
  bool has_param_ref = false;
  std::string param_name, param_namespace;
  std::optional<apimachinery::LabelSelector> param_selector;
  std::string parameter_not_found_action = "Deny";
};

std::shared_ptr<const CompiledPolicy> CompilePolicy(const boost::json::object& policy);
PolicyBinding ParseBinding(const boost::json::object& binding);

struct PolicyDecision {
  enum Action { kAdmit, kDeny } action = kAdmit;
  bool eval_error = false;
  // An audit annotation that failed under failurePolicy Fail: a denial whatever the binding's
  // validationActions (kube's AuditAnnotationActionError).
  bool audit_annotation_error = false;
  std::string message;
  std::string reason;  // for denials: "" means Invalid
  size_t expression_index = 0;
  double elapsed_seconds = 0;  // the expression's evaluation
};

// kube's ErrorType of a decision, the error_type label of apiserver_validating_admission_policy_*:
// "no_error" for an admitted evaluation, else by the message: "compile_error", "out_of_budget",
// "invalid_error" (also for a plain denial, as kube labels it).
const char* PolicyDecisionErrorType(const PolicyDecision& d);

struct PolicyAuditAnnotation {
  std::string key, value;
};

struct PolicyResult {
  std::vector<PolicyDecision> decisions;
  std::vector<PolicyAuditAnnotation> audit_annotations;
};

// `values`: object, oldObject, request, namespaceObject and params set; variables are filled here.
PolicyResult EvaluatePolicy(const CompiledPolicy& p, cel::AdmissionValues values);

}  // namespace capstan::admission
