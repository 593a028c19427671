// auth/authn/authenticator.h: identifies the caller of one request.
//
// Every kube authenticator implements one of two interfaces. A RequestAuthenticator looks at the whole
// request (x509 client certs, front-proxy headers, basic auth, the bearer-token header); a
// TokenAuthenticator judges one bearer token (static tokens, service-account JWTs, bootstrap tokens,
// OIDC, the TokenReview webhook). Both answer with kube's three outcomes: a Response (authenticated),
// nullopt (not my kind of credential: no opinion), or an error Status (it was mine and it is bad, or my
// backend failed; always a 401 "Unauthorized" to the client, the message is for logs and TokenReview).
//
// Audiences follow kube's authenticator.Audiences: the audiences the caller wants the credential to be
// valid for (the server's --api-audiences for ordinary requests, a TokenReview's spec.audiences). An
// empty list means "no audience restriction". A Response lists the audiences it is valid for.
//
// The union tries members in kube-apiserver's order; TopLevelAuthenticator adds system:authenticated
// and, with --anonymous-auth, turns "nobody knew this request" into system:anonymous. An invalid
// credential is a 401, never a fall-through to anonymous. Every class here is safe to call from any I/O
// thread concurrently.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "server/http/http_request.h"
#include "server/http/user_info.h"
#include "util/task.h"

namespace capstan::authn {

using http::UserInfo;
using Audiences = std::vector<std::string>;

// The audiences of `want` that `have` also lists, in `want`'s order (kube's Audiences.Intersect).
Audiences IntersectAudiences(const Audiences& have, const Audiences& want);

struct Response {
  UserInfo user;
  Audiences audiences;  // the audiences the credential was found valid for
  // When the credential stops being valid (a JWT's exp); caches never keep a result past it.
  std::optional<std::chrono::system_clock::time_point> expires;
};

using AuthResult = StatusOr<std::optional<Response>>;

class RequestAuthenticator {
 public:
  virtual ~RequestAuthenticator() = default;
  virtual Task<AuthResult> AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) = 0;

  // The authentication filter's entry point: the configured audiences, the user only.
  Task<StatusOr<std::optional<UserInfo>>> Authenticate(const http::HttpRequest& req);
};

class TokenAuthenticator {
 public:
  virtual ~TokenAuthenticator() = default;
  virtual Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) = 0;
};

// kube's 401 Status: {"message":"Unauthorized","reason":"Unauthorized","code":401}.
Status UnauthorizedStatus();
// A failed authentication with its reason (kept for logs and TokenReview status.error).
Status AuthError(std::string message);
// kube's utilerrors aggregate: one error as is, several deduplicated as "[a, b]".
Status AggregateAuthErrors(const std::vector<Status>& errors);

// Tries each authenticator in order; the first user wins. If none knows the request, the errors of
// those that rejected it are returned as one (kube's aggregate); if none had an opinion, nullopt.
class UnionAuthenticator : public RequestAuthenticator {
 public:
  explicit UnionAuthenticator(std::vector<std::unique_ptr<RequestAuthenticator>> members)
      : members_(std::move(members)) {}
  Task<AuthResult> AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) override;

 private:
  std::vector<std::unique_ptr<RequestAuthenticator>> members_;
};

// The outermost authenticator kube builds: the union, then "system:authenticated" added to every
// authenticated user, then (with --anonymous-auth) system:anonymous for requests no one recognised.
// Requests with no explicit audiences are judged for `api_audiences` (--api-audiences, default the
// service-account issuer), and a response valid only for other audiences is rejected, as kube's
// authentication filter does.
class TopLevelAuthenticator : public RequestAuthenticator {
 public:
  // `anonymous_paths`: when not empty, anonymous requests are allowed for these paths only (the
  // conditions of an AuthenticationConfiguration's anonymous authenticator).
  TopLevelAuthenticator(std::unique_ptr<RequestAuthenticator> inner, bool anonymous, Audiences api_audiences = {},
                        std::vector<std::string> anonymous_paths = {})
      : inner_(std::move(inner)),
        anonymous_(anonymous),
        api_audiences_(std::move(api_audiences)),
        anonymous_paths_(std::move(anonymous_paths)) {}
  Task<AuthResult> AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) override;
  const Audiences& api_audiences() const { return api_audiences_; }

 private:
  std::unique_ptr<RequestAuthenticator> inner_;
  bool anonymous_;
  Audiences api_audiences_;
  std::vector<std::string> anonymous_paths_;
};

}  // namespace capstan::authn
