// auth/authz/abac_authorizer.h: the ABAC authorizer (kube's pkg/auth/authorizer/abac) over the
// --authorization-policy-file: one abac.authorization.kubernetes.io/v1beta1 Policy JSON object per
// line (blank lines and lines starting with '#' skipped; lines without apiVersion are the
// unversioned v0 form and converted as kube converts them). A request is allowed when a policy's
// subject (user and/or group, "*" for any) matches, the request is read-only or the policy is not
// readonly, and either its namespace/resource/apiGroup (each "*" or equal) or its nonResourcePath
// ("*", equal, or a "prefix*") match; otherwise no opinion, "No policy matched.".
//
// The policy list is read once at start and immutable; safe to call from any thread.
#pragma once

#include <string>
#include <vector>

#include "auth/authz/authorizer.h"

namespace capstan::authz {

struct AbacPolicy {
  std::string user;
  std::string group;
  bool readonly = false;
  std::string api_group;
  std::string resource;
  std::string namespace_;
  std::string non_resource_path;
};

class AbacAuthorizer : public Authorizer {
 public:
  explicit AbacAuthorizer(std::vector<AbacPolicy> policies) : policies_(std::move(policies)) {}

  // Reads the policy file; the error names the file and line as kube's does ("error reading policy
  // file <path>, line <n>: <line>: <why>").
  static StatusOr<std::vector<AbacPolicy>> Load(const std::string& path);
  static StatusOr<std::vector<AbacPolicy>> Parse(const std::string& path, const std::string& text);

  Result Decide(const Attributes& a) const;
  Task<Result> Authorize(const Attributes& a) override { co_return Decide(a); }
  RulesResult RulesFor(const http::UserInfo& user, const std::string& namespace_) const override;

 private:
  std::vector<AbacPolicy> policies_;
};

}  // namespace capstan::authz
