// auth/authz/authorizer.h: decides whether a user may do what a request asks (kube's authorizer.Authorizer).
//
// --authorization-mode lists authorizers; the union asks them in order and the first Allow or Deny
// wins. Attributes are built from the request info and the authenticated user. Safe to call from any
// I/O thread concurrently.
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

  static Attributes FromRequest(const http::UserInfo& user, const http::RequestInfo& info);
};

enum class Decision { kDeny, kAllow, kNoOpinion };

struct Result {
  Decision decision = Decision::kNoOpinion;
  std::string reason;
};

class Authorizer {
 public:
  virtual ~Authorizer() = default;
  virtual Task<Result> Authorize(const Attributes& a) = 0;
};

class AlwaysAllow : public Authorizer {
 public:
  Task<Result> Authorize(const Attributes&) override { co_return Result{Decision::kAllow, ""}; }
};

class AlwaysDeny : public Authorizer {
 public:
  Task<Result> Authorize(const Attributes&) override { co_return Result{Decision::kDeny, "Everything is forbidden."}; }
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
  explicit UnionAuthorizer(std::vector<std::unique_ptr<Authorizer>> members) : members_(std::move(members)) {}
  Task<Result> Authorize(const Attributes& a) override;

 private:
  std::vector<std::unique_ptr<Authorizer>> members_;
};

// The 403 message kube gives, e.g. `configmaps is forbidden: User "alice" cannot list resource
// "configmaps" in API group "" in the namespace "default"` (reason appended as ": <reason>").
std::string ForbiddenMessage(const Attributes& a, const std::string& reason);
// The whole 403 Status (details: name, group, kind = resource), as kube's ForbiddenStatusError.
Status ForbiddenStatus(const Attributes& a, const std::string& reason);

}  // namespace capstan::authz
