// auth/authn/oidc.h: a JWT authenticator (kube's plugin/pkg/authenticator/token/oidc over go-oidc),
// configured by one JWTAuthenticator of --authentication-config or by the --oidc-* flags translated
// to one (JwtFromOidcFlags, as kube's ToAuthenticationConfig does).
//
// Discovery is asynchronous: at construction a background task fetches the discovery document
// (issuer.discoveryURL, else <issuer>/.well-known/openid-configuration) over HTTPS (trusting
// issuer.certificateAuthority, else the system roots), checks that it names the issuer URL, and
// fetches its jwks_uri; until that succeeds (retried every retry_interval) tokens of this issuer fail
// with "oidc: authenticator not initialized" and Health() says why. Keys rotate: a token whose key id
// is not in the cached key set makes the authenticator fetch the key set again (one fetch shared by
// concurrent requests, at most once per min_refresh_interval) before it gives up.
//
// A token is this authenticator's when its unverified "iss" is the issuer URL (else no opinion). It
// is valid when signed with one of the allowed algorithms by a key of the set, unexpired (exp is
// required; nbf gets 5 minutes of leeway) and issued for one of the audiences. Then, in kube's order:
// the username (the claim with its prefix, "email" requiring email_verified to be true when present,
// or a CEL expression that must give a non-empty string), groups (the claim, a string or a list, with
// its prefix; else an expression giving a string or a list of strings), uid (claim or expression),
// extra (a "jti" becomes the credential-id; then each valueExpression), the required claims, the
// claimValidationRules expressions over `claims`, and the userValidationRules over the `user` built so
// far. Errors carry kube's texts. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "auth/authn/authentication_config.h"
#include "auth/authn/authenticator.h"
#include "server/http/http_client.h"
#include "util/clock.h"
#include "util/metrics.h"

namespace capstan::authn {

struct OidcConfig {
  JwtAuthenticatorConfig jwt;
  std::vector<std::string> signing_algs = {"RS256"};
  std::vector<std::string> disallowed_issuers;  // the service-account issuers
  std::chrono::milliseconds retry_interval{10000};
  std::chrono::milliseconds min_refresh_interval{1000};
  std::chrono::milliseconds fetch_timeout{30000};
  const Clock* clock = &RealClock::Get();
  // apiserver_authentication_jwt_authenticator_latency_seconds{result, jwt_issuer_hash}; null: none.
  HistogramVec* latency = nullptr;
};

// Every algorithm kube's JWT authenticator knows (what --authentication-config allows).
std::vector<std::string> AllJwtSigningAlgorithms();

// The --oidc-* flags as kube's ToAuthenticationConfig turns them into a JWTAuthenticator.
struct OidcFlags {
  std::string issuer_url, client_id, ca_pem, username_claim = "sub", username_prefix, groups_claim, groups_prefix;
  bool username_prefix_set = false;
  std::map<std::string, std::string> required_claims;
};
JwtAuthenticatorConfig JwtFromOidcFlags(const OidcFlags& f);

// kube's --oidc-username-prefix rule: unset and a claim other than "email" → "<issuer>#"; "-" → none.
std::string OidcUsernamePrefix(const std::string& flag_value, bool flag_set, const std::string& username_claim,
                               const std::string& issuer_url);

class OidcAuthenticator : public TokenAuthenticator {
 public:
  // Validates and compiles the configuration (CompileJwtAuthenticator's field errors, aggregated, or
  // an unsupported algorithm) and starts discovery.
  static StatusOr<std::unique_ptr<OidcAuthenticator>> Create(OidcConfig config, http::HttpClientFactory& factory);
  ~OidcAuthenticator() override;

  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override;

  bool initialized() const;
  // OK once discovery succeeded; else kube's "oidc: authenticator for issuer ... is not healthy" reason.
  Status Health() const;
  // Key-set fetches so far (tests check refresh on rotation).
  int64_t key_fetches() const;

  struct State;

 private:
  explicit OidcAuthenticator(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

}  // namespace capstan::authn
