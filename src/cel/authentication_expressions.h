// cel/authentication_expressions.h: CEL for structured authentication (kube's authentication/cel):
// the two environments JWT authenticators compile in, both Env::Kube() plus one variable:
// ClaimsEnv declares `claims`, the token's claims as map(string, dyn) (claim mappings and
// claimValidationRules); UserEnv declares `user`, a kubernetes.UserInfo {username, uid, groups,
// extra} (userValidationRules). Expressions are compiled with CompileAdmissionExpression (kube's
// texts are the same). The Envs are immutable and shared; thread-safe.
#pragma once

#include <memory>
#include <string_view>

#include "cel/program.h"

namespace capstan::cel {

std::shared_ptr<const Env> ClaimsEnv();
std::shared_ptr<const Env> UserEnv();

// Whether the expression selects `operand.field` (or `operand.?field`, or has(operand.field)) anywhere,
// as kube's hasSelectExp looks for claims.email and claims.email_verified.
bool SelectsField(const Expr& e, std::string_view operand, std::string_view field);

}  // namespace capstan::cel
