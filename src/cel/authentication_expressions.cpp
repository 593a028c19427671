#include "cel/authentication_expressions.h"

namespace capstan::cel {

std::shared_ptr<const Env> ClaimsEnv() {
  static const std::shared_ptr<const Env> kEnv = std::make_shared<const Env>(
      Env::Kube()->Extend({{"claims", MapOf(Primitive(TypeKind::kString), DynType())}}));
  return kEnv;
}

std::shared_ptr<const Env> UserEnv() {
  static const std::shared_ptr<const Env> kEnv = [] {
    TypePtr str = Primitive(TypeKind::kString);
    TypePtr user = ObjectType("kubernetes.UserInfo", {{"username", str},
                                                     {"uid", str},
                                                     {"groups", ListOf(str)},
                                                     {"extra", MapOf(str, ListOf(str))}});
    return std::make_shared<const Env>(Env::Kube()->Extend({{"user", user}}));
  }();
  return kEnv;
}

bool SelectsField(const Expr& e, std::string_view operand, std::string_view field) {
  if (e.kind == ExprKind::kSelect && e.name == field && e.target && e.target->kind == ExprKind::kIdent &&
      e.target->name == operand) {
    return true;
  }
  // `operand.?field` parses as the call _?._(operand, "field").
  if (e.kind == ExprKind::kCall && !e.target && e.name == "_?._" && e.args.size() == 2 && e.args[0] &&
      e.args[0]->kind == ExprKind::kIdent && e.args[0]->name == operand && e.args[1] &&
      e.args[1]->kind == ExprKind::kConst && e.args[1]->value.kind() == Kind::kString && e.args[1]->value.str() == field) {
    return true;
  }
  if (e.target && SelectsField(*e.target, operand, field)) return true;
  for (const auto& a : e.args) {
    if (a && SelectsField(*a, operand, field)) return true;
  }
  return false;
}

}  // namespace capstan::cel
