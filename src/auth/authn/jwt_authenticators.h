// auth/authn/jwt_authenticators.h: the JWT authenticators of one AuthenticationConfiguration (kube's
// jwtAuthenticatorWithCancel) and the token authenticator that forwards to the set in effect, so that
// a reloaded --authentication-config replaces them while requests keep the set they started with.
//
// A token goes to each authenticator in order; the first answer or error ends the search (kube's
// tokenunion.NewFailOnError). Health() is every authenticator's health, aggregated: a reload swaps in
// a new set only once it is healthy (its issuers discovered), as kube's updateAuthenticationConfig.
// With `base.latency` each authenticator's answers (not its "another issuer") are timed into
// apiserver_authentication_jwt_authenticator_latency_seconds{result, jwt_issuer_hash}, as kube's
// instrumentedAuthenticator. Thread-safe.
#pragma once

#include <memory>
#include <string>
#include <mutex>
#include <vector>

#include "apimachinery/sha256.h"
#include "auth/authn/oidc.h"

namespace capstan::authn {

// kube's getHash: "sha256:<hex>" of an issuer URL, the jwt_issuer_hash label.
inline std::string JwtIssuerHash(const std::string& issuer) { return apimachinery::Sha256Label(issuer); }

class JwtAuthenticatorSet : public TokenAuthenticator {
 public:
  // `base` carries everything but the JWTAuthenticator (algorithms, disallowed issuers, timings).
  static StatusOr<std::shared_ptr<JwtAuthenticatorSet>> Create(const std::vector<JwtAuthenticatorConfig>& jwt,
                                                               const OidcConfig& base, http::HttpClientFactory& factory);
  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override;
  Status Health() const;
  size_t size() const { return members_.size(); }

 private:
  struct Member {
    std::unique_ptr<OidcAuthenticator> authenticator;
    HistogramVec* latency = nullptr;  // null: not timed
    std::string issuer_hash;
  };
  std::vector<Member> members_;
};

class ReloadableJwtAuthenticator : public TokenAuthenticator {
 public:
  explicit ReloadableJwtAuthenticator(std::shared_ptr<JwtAuthenticatorSet> initial) : current_(std::move(initial)) {}
  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override {
    std::shared_ptr<JwtAuthenticatorSet> cur = Load();
    co_return co_await cur->AuthenticateToken(token, audiences);
  }
  std::shared_ptr<JwtAuthenticatorSet> Load() const {
    std::lock_guard lock(mu_);
    return current_;
  }
  void Store(std::shared_ptr<JwtAuthenticatorSet> next) {
    std::lock_guard lock(mu_);
    current_ = std::move(next);
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<JwtAuthenticatorSet> current_;
};

}  // namespace capstan::authn
