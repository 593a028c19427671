// auth/authn/token_authenticator.h: compositions of TokenAuthenticators, as kube builds them.
//
// TokenUnion tries token authenticators in order (static file, service accounts, bootstrap, OIDC,
// webhook): the first success wins, errors are aggregated, and when no member had an opinion the
// union has none either. AudienceAgnosticToken wraps an authenticator whose credentials are not bound
// to audiences (static tokens, bootstrap tokens): it is consulted only when the wanted audiences
// include one of the server's own (--api-audiences), and its responses are valid for those.
// Thread-safe: members are called concurrently.
#pragma once

#include <memory>
#include <vector>

#include "auth/authn/authenticator.h"

namespace capstan::authn {

class TokenUnion : public TokenAuthenticator {
 public:
  explicit TokenUnion(std::vector<std::unique_ptr<TokenAuthenticator>> members) : members_(std::move(members)) {}
  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override;
  size_t size() const { return members_.size(); }

 private:
  std::vector<std::unique_ptr<TokenAuthenticator>> members_;
};

class AudienceAgnosticToken : public TokenAuthenticator {
 public:
  AudienceAgnosticToken(Audiences implicit, std::unique_ptr<TokenAuthenticator> delegate)
      : implicit_(std::move(implicit)), delegate_(std::move(delegate)) {}
  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override;

 private:
  Audiences implicit_;
  std::unique_ptr<TokenAuthenticator> delegate_;
};

// The same rule for request authenticators (the front proxy, basic auth).
class AudienceAgnosticRequest : public RequestAuthenticator {
 public:
  AudienceAgnosticRequest(Audiences implicit, std::unique_ptr<RequestAuthenticator> delegate)
      : implicit_(std::move(implicit)), delegate_(std::move(delegate)) {}
  Task<AuthResult> AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) override;

 private:
  Audiences implicit_;
  std::unique_ptr<RequestAuthenticator> delegate_;
};

}  // namespace capstan::authn
