// auth/authn/authenticator.h: identifies the caller of one request.
//
// Every kube authenticator (x509 client certs, tokens, service accounts, OIDC, webhook, front proxy)
// implements RequestAuthenticator; the union tries them in kube-apiserver's order. Safe to call from any
// I/O thread concurrently.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "apimachinery/status.h"
#include "server/http/http_request.h"
#include "server/http/user_info.h"
#include "util/task.h"

namespace capstan::authn {

using http::UserInfo;

class RequestAuthenticator {
 public:
  virtual ~RequestAuthenticator() = default;
  // A user: authenticated. nullopt: not my kind of credential. An error: it was mine and is bad (401),
  // or my backend failed.
  virtual Task<StatusOr<std::optional<UserInfo>>> Authenticate(const http::HttpRequest& req) = 0;
};

// kube's 401 Status: {"message":"Unauthorized","reason":"Unauthorized","code":401}.
Status UnauthorizedStatus();

// Tries each authenticator in order; the first user wins. If none knows the request, the errors of
// those that rejected it are returned as one 401; if none had an opinion, nullopt.
class UnionAuthenticator : public RequestAuthenticator {
 public:
  explicit UnionAuthenticator(std::vector<std::unique_ptr<RequestAuthenticator>> members)
      : members_(std::move(members)) {}
  Task<StatusOr<std::optional<UserInfo>>> Authenticate(const http::HttpRequest& req) override;

 private:
  std::vector<std::unique_ptr<RequestAuthenticator>> members_;
};

// The outermost authenticator kube builds: the union, then "system:authenticated" added to every
// authenticated user, then (with --anonymous-auth) system:anonymous for requests no one recognised.
// An invalid credential is a 401, never a fall-through to anonymous.
class TopLevelAuthenticator : public RequestAuthenticator {
 public:
  TopLevelAuthenticator(std::unique_ptr<RequestAuthenticator> inner, bool anonymous)
      : inner_(std::move(inner)), anonymous_(anonymous) {}
  Task<StatusOr<std::optional<UserInfo>>> Authenticate(const http::HttpRequest& req) override;

 private:
  std::unique_ptr<RequestAuthenticator> inner_;
  bool anonymous_;
};

}  // namespace capstan::authn
