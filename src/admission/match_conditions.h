// admission/match_conditions.h: CEL matchConditions of admission webhooks (and, with params, of
// ValidatingAdmissionPolicies), as kube's webhook/matchconditions matcher.
//
// Compile compiles each condition once, when the configuration is read (a condition that does not
// compile keeps kube's "compilation error: ..." text and fails when evaluated). Match evaluates them in
// order with the request's variables: any false -> no match (whatever errors came before); otherwise
// errors -> failurePolicy Fail: an error (kube's aggregate of the evaluation texts), Ignore: no match;
// otherwise a match. AdmissionValuesFor builds kube's variables of a request (object, oldObject,
// request as kube's AdmissionRequest).
// Immutable once compiled; Match may run concurrently.
#pragma once

#include <boost/json/array.hpp>
#include <memory>
#include <string>
#include <vector>

#include "admission/plugin.h"
#include "cel/admission_expressions.h"

namespace capstan::admission {

class MatchConditions {
 public:
  struct Condition {
    std::string name;
    std::string expression;
    std::shared_ptr<const cel::Program> program;  // null when it did not compile
    std::string compile_error;
  };
  struct Result {
    bool matches = true;
    std::string failed_condition;  // the condition that was false
    std::string error;             // "" unless an evaluation error decides (failurePolicy Fail)
  };

  // `conditions`: the matchConditions list ({name, expression} objects).
  static std::shared_ptr<const MatchConditions> Compile(const boost::json::array& conditions, bool has_params);
  // In a given environment (a policy's, with its variables).
  static std::shared_ptr<const MatchConditions> Compile(const boost::json::array& conditions, const cel::Env& env);

  Result Match(const cel::Activation& act, bool fail_closed) const;
  bool empty() const { return conditions_.empty(); }

 private:
  std::vector<Condition> conditions_;
};

// kube's CreateAdmissionRequest as JSON: MakeReview's request without uid, object and oldObject.
boost::json::object AdmissionRequestJson(const Attributes& a);

// object (null for DELETE), oldObject (null on CREATE) and request of `a`.
cel::AdmissionValues AdmissionValuesFor(const Attributes& a);

}  // namespace capstan::admission
