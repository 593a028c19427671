// auth/authn/build.h: builds the authenticator kube-apiserver would build from the same flags, in
// kube's order:
//
//   front proxy (request headers) → basic auth file → x509 client certificates →
//   bearer token and WebSocket protocol, over one token cache (success 10 s) in front of the token
//   union: static token file → legacy service-account tokens → bound service-account tokens →
//   bootstrap tokens → JWT authenticators → token webhook (with its own cache,
//   --authentication-token-webhook-cache-ttl)
//
// wrapped by TopLevelAuthenticator (system:authenticated, then anonymous). The JWT authenticators and
// the anonymous authenticator come from --authentication-config (authentication_config.h) or, as kube
// translates them, from the --oidc-* flags and --anonymous-auth; the two ways exclude each other with
// kube's errors. With --authentication-config the file is checked every reload interval (kube:
// fsnotify and a minute's poll): a changed file that decodes, validates (its anonymous part unchanged)
// and whose issuers all become healthy within a minute replaces the JWT authenticators; otherwise it
// is logged and the set in effect stays. Outcomes are kube's
// apiserver_authentication_config_controller_automatic_reloads_total{status, apiserver_id_hash} and
// ..._automatic_reload_last_timestamp_seconds. Static tokens, bootstrap
// tokens, the front proxy and basic auth are audience-agnostic: they count for --api-audiences only.
// It also loads the service-account signing key for the TokenRequest API and keeps the public keys
// for the issuer's discovery documents. Configuration errors (unreadable files, bad flags) are
// reported with the flag's name. Thread-safe once built.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/authn/authenticator.h"
#include "auth/authn/config.h"
#include "auth/authn/keys.h"
#include "auth/authn/object_getter.h"
#include "auth/authn/jwt_authenticators.h"
#include "auth/authn/oidc.h"
#include "auth/authn/token_cache.h"
#include "auth/authn/x509.h"
#include "auth/authn/token_generator.h"
#include "auth/authn/webhook_token.h"
#include "server/http/http_client.h"
#include "util/clock.h"
#include "util/metrics.h"

namespace capstan::authn {

struct AuthenticationDeps {
  ObjectGetter getter;                          // service accounts, secrets, pods, nodes
  http::HttpClientFactory* http = nullptr;      // OIDC and the token webhook
  std::optional<WebhookClientConfig> webhook;   // resolved from --authentication-token-webhook-config-file
  const Clock* clock = &RealClock::Get();
  MetricsRegistry* metrics = nullptr;  // the reload metrics and the JWT latency; null: none
  std::string apiserver_id_hash;       // their label ("sha256:<hex>")
};

class Authentication {
 public:
  RequestAuthenticator& authenticator() { return *top_; }
  // Audiences the server's own tokens are for (--api-audiences, default the issuers).
  const Audiences& api_audiences() const { return api_audiences_; }
  // Null when no signing key is configured (the TokenRequest API is then unavailable).
  const ServiceAccountTokenGenerator* token_generator() const { return generator_.get(); }
  const std::vector<std::string>& issuers() const { return issuers_; }
  const std::vector<JwsKey>& service_account_keys() const { return public_keys_; }
  int64_t max_token_expiration_seconds() const { return max_expiration_seconds_; }
  bool extend_token_expiration() const { return extend_expiration_; }
  const std::string& jwks_uri_flag() const { return jwks_uri_; }
  // The JWT authenticators in effect (null when neither --authentication-config nor --oidc-* is given).
  std::shared_ptr<JwtAuthenticatorSet> jwt() const { return jwt_ ? jwt_->Load() : nullptr; }
  CachedTokenAuthenticator* token_cache() const { return cache_; }
  // The verifiers of --client-ca-file and --requestheader-client-ca-file (null when not given), whose
  // bundles are replaced when the files change.
  X509Authenticator* client_ca_verifier() const { return client_ca_verifier_; }
  X509Authenticator* requestheader_verifier() const { return requestheader_verifier_; }
  // The authenticators in use, in order (for the start-up log).
  const std::vector<std::string>& names() const { return names_; }

  // A TokenReview: the whole authenticator on a request that carries only "Authorization: Bearer
  // <token>", for `audiences` (the API audiences when empty).
  Task<AuthResult> ReviewToken(const std::string& token, const Audiences& audiences);

  enum class ReloadOutcome { kUnchanged, kReloaded, kFailed };
  // One check of --authentication-config now (the periodic check calls it).
  Task<ReloadOutcome> CheckConfigFile();
  // Starts the periodic checks (nothing without --authentication-config); Stop ends them.
  void StartConfigReload();
  void StopConfigReload();
  ~Authentication();

  struct Reload;

 private:
  friend StatusOr<std::unique_ptr<Authentication>> BuildAuthentication(const AuthenticationConfig&, AuthenticationDeps);
  std::unique_ptr<TopLevelAuthenticator> top_;
  Audiences api_audiences_;
  std::unique_ptr<ServiceAccountTokenGenerator> generator_;
  std::vector<std::string> issuers_;
  std::vector<JwsKey> public_keys_;
  int64_t max_expiration_seconds_ = 0;
  bool extend_expiration_ = true;
  std::string jwks_uri_;
  std::shared_ptr<ReloadableJwtAuthenticator> jwt_;  // shared with the chain
  std::shared_ptr<Reload> reload_;
  CachedTokenAuthenticator* cache_ = nullptr;  // owned by the chain
  X509Authenticator* client_ca_verifier_ = nullptr;      // owned by the chain
  X509Authenticator* requestheader_verifier_ = nullptr;  // owned by the chain
  std::vector<std::string> names_;
};

StatusOr<std::unique_ptr<Authentication>> BuildAuthentication(const AuthenticationConfig& config, AuthenticationDeps deps);

}  // namespace capstan::authn
