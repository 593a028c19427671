// auth/authz/webhook_match_conditions.h: the CEL matchConditions of an authorization webhook
// (kube's authorization/cel CELMatcher): which requests are sent to the webhook at all.
//
// Compile checks the list as kube's compileMatchConditions does (at most 64, none empty, no
// duplicate, each compiling to bool in cel::AuthorizationEnv) and reports field errors under
// `path` with kube's texts. Match evaluates the conditions in order over the request's
// SubjectAccessReview spec (v1, every string field present): any false skips the webhook (whatever
// errors came before it); otherwise errors decide ("cel evaluation error: expression '<e>' resulted
// in error: <why>", aggregated as kube's utilerrors), and the webhook's failurePolicy applies;
// otherwise the webhook is called.
// Immutable once compiled; Match may run concurrently.
#pragma once

#include <boost/json/object.hpp>
#include <memory>
#include <string>
#include <vector>

#include "apimachinery/field_errors.h"
#include "auth/authz/authorizer.h"

namespace capstan::cel {
class Program;
}

namespace capstan::authz {

class WebhookMatchConditions {
 public:
  struct Compiled {
    std::shared_ptr<const WebhookMatchConditions> conditions;  // null when there are none or errors
    ErrorList errors;
  };
  static Compiled Compile(const std::vector<std::string>& expressions, const FieldPath& path);

  struct Outcome {
    bool matches = true;
    std::string error;  // evaluation errors and no false condition
  };
  Outcome Match(const Attributes& a) const;

 private:
  std::vector<std::shared_ptr<const cel::Program>> programs_;
};

// kube's AuthorizeWithSelectors (beta, on in 1.32): the request's field and label selectors as a
// SubjectAccessReview's resourceAttributes.fieldSelector / .labelSelector {"requirements": [...]}
// (field =, == -> In, != -> NotIn; label =, ==, in -> In, !=, notin -> NotIn, exists, !key ->
// DoesNotExist; gt/lt dropped), added to `resource_attributes` when there are any. A selector that
// does not parse adds nothing.
void AddSelectorAttributes(const Attributes& a, boost::json::object& resource_attributes);

}  // namespace capstan::authz
