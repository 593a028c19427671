// cel/authorization_expressions.h: CEL for the matchConditions of authorization webhooks (kube's
// authorization/cel): the environment they compile in, Env::Kube() plus `request`, a
// kubernetes.SubjectAccessReviewSpec as authorization.k8s.io/v1 has it (resourceAttributes with its
// fieldSelector and labelSelector, nonResourceAttributes, user, groups, extra, uid). Expressions are
// compiled with CompileAdmissionExpression (kube's texts are the same) and must evaluate to bool.
// The Env is immutable and shared; thread-safe.
#pragma once

#include <memory>

#include "cel/program.h"

namespace capstan::cel {

std::shared_ptr<const Env> AuthorizationEnv();

}  // namespace capstan::cel
