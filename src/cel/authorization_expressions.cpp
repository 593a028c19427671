#include "cel/authorization_expressions.h"

namespace capstan::cel {

namespace {

// kube's buildRequestType, with the selector attributes of AuthorizeWithSelectors (on in 1.32).
TypePtr SubjectAccessReviewSpecType() {
  TypePtr str = Primitive(TypeKind::kString);
  TypePtr requirement =
      ObjectType("kubernetes.SelectorRequirement", {{"key", str}, {"operator", str}, {"values", ListOf(str)}});
  TypePtr field_selector =
      ObjectType("kubernetes.FieldSelectorAttributes", {{"rawSelector", str}, {"requirements", ListOf(requirement)}});
  TypePtr label_selector =
      ObjectType("kubernetes.LabelSelectorAttributes", {{"rawSelector", str}, {"requirements", ListOf(requirement)}});
  TypePtr resource = ObjectType("kubernetes.ResourceAttributes", {{"namespace", str},
                                                              {"verb", str},
                                                              {"group", str},
                                                              {"version", str},
                                                              {"resource", str},
                                                              {"subresource", str},
                                                              {"name", str},
                                                              {"fieldSelector", field_selector},
                                                              {"labelSelector", label_selector}});
  TypePtr non_resource = ObjectType("kubernetes.NonResourceAttributes", {{"path", str}, {"verb", str}});
  return ObjectType("kubernetes.SubjectAccessReviewSpec", {{"resourceAttributes", resource},
                                                       {"nonResourceAttributes", non_resource},
                                                       {"user", str},
                                                       {"groups", ListOf(str)},
                                                       {"extra", MapOf(str, ListOf(str))},
                                                       {"uid", str}});
}

}  // namespace

std::shared_ptr<const Env> AuthorizationEnv() {
  static const std::shared_ptr<const Env> kEnv =
      std::make_shared<const Env>(Env::Kube()->Extend({{"request", SubjectAccessReviewSpecType()}}));
  return kEnv;
}

}  // namespace capstan::cel
