// api/authorization/authorization.h: the authorization.k8s.io/v1 group: subjectaccessreviews (may
// this user do that?), localsubjectaccessreviews (the same, within one namespace),
// selfsubjectaccessreviews (may I? `kubectl auth can-i`) and selfsubjectrulesreviews (what may I do
// in this namespace? `kubectl auth can-i --list`). All are create-only and store nothing.
//
// The API layer does not depend on the authorizers: cmd/ passes an AccessReviewer that runs the
// server's own authorizer union and a RulesReviewer over its rule resolvers. Thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "apimachinery/user_info.h"
#include "registry/rest_resource.h"

namespace capstan::api::authorization {

// What a review asks about (kube's authorizer.AttributesRecord as a review builds it).
struct ReviewAttributes {
  UserInfo user;
  bool resource_request = false;
  std::string verb;
  std::string namespace_;
  std::string group;
  std::string version;
  std::string resource;
  std::string subresource;
  std::string name;
  std::string path;
};

struct ReviewDecision {
  bool allowed = false;
  bool denied = false;
  std::string reason;
  std::string evaluation_error;
};

struct ResourceRule {
  std::vector<std::string> verbs, api_groups, resources, resource_names;
};
struct NonResourceRule {
  std::vector<std::string> verbs, non_resource_urls;
};
struct RulesDecision {
  std::vector<ResourceRule> resource_rules;
  std::vector<NonResourceRule> non_resource_rules;
  bool incomplete = false;
  std::string evaluation_error;
};

using AccessReviewer = std::function<Task<ReviewDecision>(const ReviewAttributes& attrs)>;
using RulesReviewer = std::function<RulesDecision(const UserInfo& user, const std::string& namespace_)>;

struct AuthorizationApiOptions {
  AccessReviewer review;
  RulesReviewer rules;
};

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps, AuthorizationApiOptions opts);

// kube's ValidateSubjectAccessReviewSpec (self: the SelfSubjectAccessReviewSpec rules) at `path`.
ErrorList ValidateAccessReviewSpec(const registry::Object& spec, bool self, const FieldPath& path);

}  // namespace capstan::api::authorization
