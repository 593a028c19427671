#include "auth/authn/jwt_authenticators.h"

#include <chrono>

namespace capstan::authn {

StatusOr<std::shared_ptr<JwtAuthenticatorSet>> JwtAuthenticatorSet::Create(const std::vector<JwtAuthenticatorConfig>& jwt,
                                                                           const OidcConfig& base,
                                                                           http::HttpClientFactory& factory) {
  auto set = std::make_shared<JwtAuthenticatorSet>();
  for (const auto& j : jwt) {
    OidcConfig c = base;
    c.jwt = j;
    ASSIGN_OR_RETURN(auto a, OidcAuthenticator::Create(std::move(c), factory));
    Member m{std::move(a), base.latency, base.latency ? JwtIssuerHash(j.url) : ""};
    set->members_.push_back(std::move(m));
  }
  return set;
}

Task<AuthResult> JwtAuthenticatorSet::AuthenticateToken(const std::string& token, const Audiences& audiences) {
  for (auto& m : members_) {
    const auto start = std::chrono::steady_clock::now();
    auto r = co_await m.authenticator->AuthenticateToken(token, audiences);
    if (r.ok() && !r->has_value()) continue;  // another issuer's token: not timed
    if (m.latency) {
      m.latency->With({r.ok() ? "success" : "failure", m.issuer_hash})
          ->Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    co_return r;
  }
  co_return std::optional<Response>();
}

Status JwtAuthenticatorSet::Health() const {
  std::vector<Status> errors;
  for (const auto& m : members_) {
    if (Status st = m.authenticator->Health(); !st.ok()) errors.push_back(std::move(st));
  }
  return AggregateAuthErrors(errors);
}

}  // namespace capstan::authn
