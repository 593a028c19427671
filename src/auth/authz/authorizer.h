// auth/authz/authorizer.h: decides whether a user may do what a request asks (kube's authorizer.Authorizer).
//
// --authorization-mode lists authorizers; the union asks them in order and the first Allow or Deny
// wins. Attributes are built from the request info and the authenticated user. An authorizer may also
// list the rules a user holds in a namespace (kube's RuleResolver, for SelfSubjectRulesReview and
// `kubectl auth can-i --list`); those that cannot leave the default, which contributes nothing.
// Safe to call from any I/O thread concurrently.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "server/http/request_info.h"
#include "server/http/user_info.h"
#include "util/task.h"

namespace capstan::authz {

struct Attributes {
  http::UserInfo user;
  std::string verb;
  bool resource_request = false;
  std::string namespace_;
  std::string api_group;
  std::string api_version;
  std::string resource;
  std::string subresource;
  std::string name;
  std::string path;  // for non-resource requests
  // The request's raw selectors, for list, watch and deletecollection (kube's AuthorizeWithSelectors).
  std::string field_selector;
  std::string label_selector;

  // get, list and watch (kube's IsReadOnly).
  bool IsReadOnly() const { return verb == "get" || verb == "list" || verb == "watch"; }

  static Attributes FromRequest(const http::UserInfo& user, const http::RequestInfo& info);
};

enum class Decision { kDeny, kAllow, kNoOpinion };

struct Result {
  Decision decision = Decision::kNoOpinion;
  std::string reason;
  // An evaluation error (a webhook that could not be reached): with no Allow, the request fails with
  // 500 InternalError as in kube; SubjectAccessReviews report it as status.evaluationError.
  std::string error;
};

// What a user may do in a namespace, as SelfSubjectRulesReview reports it.
struct ResourceRuleInfo {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
};
struct NonResourceRuleInfo {
  std::vector<std::string> verbs;
  std::vector<std::string> non_resource_urls;
};
struct RulesResult {
  std::vector<ResourceRuleInfo> resource_rules;
  std::vector<NonResourceRuleInfo> non_resource_rules;
  bool incomplete = false;  // the authorizer may allow more than it could list
  std::string error;
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Task<Result> Authorize(const Attributes& a) = 0;
  // The rules `user` holds in `namespace_` (cluster-wide ones included). Default: none, complete.
  virtual RulesResult RulesFor(const http::UserInfo& user, const std::string& namespace_) const { return {}; }
};

class AlwaysAllow : public Authorizer {
 public:
  Task<Result> Authorize(const Attributes&) override { co_return Result{Decision::kAllow, "", ""}; }
  RulesResult RulesFor(const http::UserInfo& user, const std::string& namespace_) const override;
};

// As kube's: no opinion (so a later mode may still allow), with the reason every denial then carries.
class AlwaysDeny : public Authorizer {
 public:
  Task<Result> Authorize(const Attributes&) override {
    co_return Result{Decision::kNoOpinion, "Everything is forbidden.", ""};
  }
};

// system:masters may do anything, as in kube (the privileged-group authorizer in front of every mode).
class PrivilegedGroupAuthorizer : public Authorizer {
 public:
  Task<Result> Authorize(const Attributes& a) override;
};

// Capstan's default until RBAC is configured: every authenticated user is allowed; anonymous callers
// reach only the public health and version endpoints.
class AuthenticatedOnly : public Authorizer {
 public:
  Task<Result> Authorize(const Attributes& a) override;
};

class UnionAuthorizer : public Authorizer {
 public:
  explicit UnionAuthorizer(std::vector<std::shared_ptr<Authorizer>> members) : members_(std::move(members)) {}
  explicit UnionAuthorizer(std::vector<std::unique_ptr<Authorizer>> members)
      : members_(std::make_move_iterator(members.begin()), std::make_move_iterator(members.end())) {}
  // The first Allow or Deny, as that member gave it (its own error); otherwise no opinion with the
  // members' reasons (one per line) and their errors aggregated (kube's union).
  Task<Result> Authorize(const Attributes& a) override;
  // Every member's rules; incomplete when any member's are; errors aggregated.
  RulesResult RulesFor(const http::UserInfo& user, const std::string& namespace_) const override;

 private:
  std::vector<std::shared_ptr<Authorizer>> members_;
};

// The 403 message kube gives, e.g. `configmaps is forbidden: User "alice" cannot list resource
// "configmaps" in API group "" in the namespace "default"` (reason appended as ": <reason>").
std::string ForbiddenMessage(const Attributes& a, const std::string& reason);
// The whole 403 Status (details: name, group, kind = resource), as kube's ForbiddenStatusError.
Status ForbiddenStatus(const Attributes& a, const std::string& reason);

// kube's utilerrors.NewAggregate(errs).Error(): "" for none, the message for one, "[a, b]" for more
// (duplicates dropped).
std::string AggregateErrors(const std::vector<std::string>& errs);

}  // namespace capstan::authz
