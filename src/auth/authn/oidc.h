// auth/authn/oidc.h: OpenID Connect ID tokens (--oidc-issuer-url, --oidc-client-id, --oidc-ca-file,
// --oidc-username-claim, --oidc-username-prefix, --oidc-groups-claim, --oidc-groups-prefix,
// --oidc-signing-algs, --oidc-required-claim), as kube's OIDC authenticator over go-oidc.
//
// Discovery is asynchronous: at construction a background task fetches
// <issuer>/.well-known/openid-configuration over HTTPS (trusting --oidc-ca-file, else the system
// roots), checks that it names the same issuer, and fetches its jwks_uri; until that succeeds (retried
// every retry_interval) tokens of this issuer fail with "oidc: authenticator not initialized" and
// Health() says why. Keys rotate: a token whose key id is not in the cached key set makes the
// authenticator fetch the key set again (one fetch shared by concurrent requests, at most once per
// min_refresh_interval) before it gives up.
//
// A token is this authenticator's when its unverified "iss" is the issuer (else no opinion). It is
// valid when signed with one of the allowed algorithms by a key of the set, unexpired (exp is
// required; nbf gets 5 minutes of leeway), issued for the client id, and carries every required claim
// with its value. The user name is the username claim ("email" requires email_verified to be true when
// present) with the prefix; groups come from the groups claim (a string or a list) with theirs; a
// "jti" becomes the credential-id extra. Thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "auth/authn/authenticator.h"
#include "server/http/http_client.h"
#include "util/clock.h"

namespace capstan::authn {

struct OidcConfig {
  std::string issuer_url;
  std::string client_id;
  std::string ca_pem;  // --oidc-ca-file's content; empty: system roots
  std::string username_claim = "sub";
  std::string username_prefix;  // resolved: see OidcUsernamePrefix
  std::string groups_claim;
  std::string groups_prefix;
  std::vector<std::string> signing_algs = {"RS256"};
  std::map<std::string, std::string> required_claims;
  std::chrono::milliseconds retry_interval{10000};
  std::chrono::milliseconds min_refresh_interval{1000};
  std::chrono::milliseconds fetch_timeout{30000};
  const Clock* clock = &RealClock::Get();
};

// kube's --oidc-username-prefix rule: unset and a claim other than "email" → "<issuer>#"; "-" → none.
std::string OidcUsernamePrefix(const std::string& flag_value, bool flag_set, const std::string& username_claim,
                               const std::string& issuer_url);

class OidcAuthenticator : public TokenAuthenticator {
 public:
  // Checks the configuration (https issuer, client id, algorithms) and starts discovery.
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
