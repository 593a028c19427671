#include "auth/authn/build.h"

#include <fstream>
#include <sstream>

#include "auth/authn/basic_auth.h"
#include "auth/authn/bearer_token.h"
#include "auth/authn/bootstrap_token.h"
#include "auth/authn/request_header.h"
#include "auth/authn/service_account.h"
#include "auth/authn/token_authenticator.h"
#include "auth/authn/token_file.h"
#include "auth/authn/x509.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::authn {

namespace {

constexpr int64_t kMinMaxExpiration = 3600;
constexpr int64_t kMaxMaxExpiration = int64_t{1} << 32;

Status FlagError(const std::string& flag, const Status& st) {
  return Status(500, "InternalError", "--" + flag + ": " + st.message());
}

StatusOr<std::string> ReadWholeFile(const std::string& path, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(500, "InternalError", "--" + flag + ": cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Task<AuthResult> Authentication::ReviewToken(const std::string& token, const Audiences& audiences) {
  http::HttpRequest req;
  req.method = "POST";
  req.headers.Add("Authorization", "Bearer " + token);
  co_return co_await top_->AuthenticateRequest(req, audiences.empty() ? api_audiences_ : audiences);
}

StatusOr<std::unique_ptr<Authentication>> BuildAuthentication(const AuthenticationConfig& c, AuthenticationDeps deps) {
  auto a = std::make_unique<Authentication>();
  a->issuers_ = c.service_account_issuers;
  a->api_audiences_ = c.api_audiences.empty() ? c.service_account_issuers : c.api_audiences;
  a->extend_expiration_ = c.service_account_extend_token_expiration;
  a->jwks_uri_ = c.service_account_jwks_uri;
  const Audiences& implicit = a->api_audiences_;

  std::vector<std::unique_ptr<RequestAuthenticator>> request_auths;
  std::vector<std::unique_ptr<TokenAuthenticator>> token_auths;

  // Front proxy, then basic auth: the local request methods.
  if (!c.requestheader_client_ca_file.empty()) {
    RequestHeaderConfig rh;
    rh.client_ca_file = c.requestheader_client_ca_file;
    rh.allowed_names = c.requestheader_allowed_names;
    rh.username_headers = c.requestheader_username_headers;
    rh.uid_headers = c.requestheader_uid_headers;
    rh.group_headers = c.requestheader_group_headers;
    rh.extra_header_prefixes = c.requestheader_extra_headers_prefix;
    auto r = RequestHeaderAuthenticator::Create(std::move(rh));
    if (!r.ok()) return r.TakeStatus();
    a->requestheader_verifier_ = &(*r)->verifier();
    request_auths.push_back(std::make_unique<AudienceAgnosticRequest>(implicit, std::move(*r)));
    a->names_.push_back("requestheader");
  }
  if (!c.basic_auth_file.empty()) {
    auto r = BasicAuthAuthenticator::FromFile(c.basic_auth_file);
    if (!r.ok()) return FlagError("basic-auth-file", r.status());
    LogWarn("--basic-auth-file is insecure: passwords are sent with every request and cannot be rotated without a "
            "restart; kube removed it in 1.19. Prefer client certificates, tokens or OIDC.",
            {{"file", c.basic_auth_file}});
    request_auths.push_back(std::make_unique<AudienceAgnosticRequest>(implicit, std::move(*r)));
    a->names_.push_back("basic-auth");
  }
  // X509 client certificates.
  if (!c.client_ca_file.empty()) {
    auto r = X509Authenticator::FromFile(c.client_ca_file);
    if (!r.ok()) return FlagError("client-ca-file", r.status());
    a->client_ca_verifier_ = r->get();
    request_auths.push_back(std::move(*r));
    a->names_.push_back("x509");
  }

  // Bearer tokens: local methods first, then remote ones.
  if (!c.token_auth_file.empty()) {
    auto r = StaticTokenAuthenticator::FromFile(c.token_auth_file);
    if (!r.ok()) return FlagError("token-auth-file", r.status());
    token_auths.push_back(std::make_unique<AudienceAgnosticToken>(implicit, std::move(*r)));
    a->names_.push_back("token-file");
  }

  // Service accounts: the signing key, then the verification keys (default: the signing key's file).
  if (c.service_account_max_token_expiration.count() != 0) {
    int64_t max = std::chrono::duration_cast<std::chrono::seconds>(c.service_account_max_token_expiration).count();
    if (max < kMinMaxExpiration || max > kMaxMaxExpiration) {
      return Status(500, "InternalError", "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
    }
    a->max_expiration_seconds_ = max;
  }
  if (!c.service_account_signing_key_file.empty()) {
    auto key = LoadPrivateKeyFile(c.service_account_signing_key_file);
    if (!key.ok()) return FlagError("service-account-signing-key-file", key.status());
    if (c.service_account_issuers.empty()) {
      return Status(500, "InternalError", "--service-account-issuer is required with --service-account-signing-key-file");
    }
    a->generator_ = std::make_unique<ServiceAccountTokenGenerator>(c.service_account_issuers[0], std::move(*key));
  }
  std::vector<std::string> key_files = c.service_account_key_files;
  if (key_files.empty() && !c.service_account_signing_key_file.empty()) key_files.push_back(c.service_account_signing_key_file);
  std::vector<JwsKey> keys;
  for (const auto& f : key_files) {
    auto k = LoadKeysFile(f);
    if (!k.ok()) return FlagError("service-account-key-file", k.status());
    for (auto& x : *k) keys.push_back(x.PublicOnly());
  }
  if (a->generator_) {
    bool covered = false;
    for (const auto& k : keys) covered = covered || k.KeyId() == a->generator_->key().KeyId();
    if (!covered) {
      LogWarn("the service-account signing key is not among the --service-account-key-file keys: tokens it signs "
              "will not authenticate");
    }
  }
  a->public_keys_ = keys;
  if (!key_files.empty()) {
    ServiceAccountAuthConfig legacy;
    legacy.issuers = {kLegacyServiceAccountIssuer};
    legacy.keys = keys;
    legacy.implicit_audiences = implicit;
    legacy.lookup = c.service_account_lookup;
    legacy.getter = deps.getter;
    legacy.clock = deps.clock;
    token_auths.push_back(std::make_unique<ServiceAccountTokenAuthenticator>(ServiceAccountTokenAuthenticator::Kind::kLegacy,
                                                                              std::move(legacy)));
    a->names_.push_back("serviceaccount-legacy");
  }
  if (!c.service_account_issuers.empty() && !keys.empty()) {
    ServiceAccountAuthConfig bound;
    bound.issuers = c.service_account_issuers;
    bound.keys = keys;
    bound.implicit_audiences = implicit;
    bound.getter = deps.getter;
    bound.clock = deps.clock;
    token_auths.push_back(std::make_unique<ServiceAccountTokenAuthenticator>(ServiceAccountTokenAuthenticator::Kind::kBound,
                                                                              std::move(bound)));
    a->names_.push_back("serviceaccount");
  }
  if (c.enable_bootstrap_token_auth) {
    token_auths.push_back(
        std::make_unique<AudienceAgnosticToken>(implicit, std::make_unique<BootstrapTokenAuthenticator>(deps.getter, deps.clock)));
    a->names_.push_back("bootstrap-token");
  }
  // OIDC after the service accounts, as kube.
  if (!c.oidc_issuer_url.empty()) {
    if (!deps.http) return Status(500, "InternalError", "--oidc-issuer-url needs an HTTP client");
    OidcConfig oc;
    oc.issuer_url = c.oidc_issuer_url;
    oc.client_id = c.oidc_client_id;
    if (!c.oidc_ca_file.empty()) {
      auto pem = ReadWholeFile(c.oidc_ca_file, "oidc-ca-file");
      if (!pem.ok()) return pem.TakeStatus();
      oc.ca_pem = std::move(*pem);
    }
    oc.username_claim = c.oidc_username_claim;
    oc.username_prefix = OidcUsernamePrefix(c.oidc_username_prefix, c.oidc_username_prefix_set, c.oidc_username_claim,
                                            c.oidc_issuer_url);
    oc.groups_claim = c.oidc_groups_claim;
    oc.groups_prefix = c.oidc_groups_prefix;
    oc.signing_algs = c.oidc_signing_algs;
    oc.required_claims = c.oidc_required_claims;
    oc.clock = deps.clock;
    auto r = OidcAuthenticator::Create(std::move(oc), *deps.http);
    if (!r.ok()) return r.TakeStatus();
    a->oidc_ = r->get();
    token_auths.push_back(std::make_unique<AudienceAgnosticToken>(implicit, std::move(*r)));
    a->names_.push_back("oidc");
  } else if (!c.oidc_client_id.empty()) {
    return Status(500, "InternalError", "oidc-issuer-url and oidc-client-id must be specified together");
  }
  if (!c.webhook_config_file.empty()) {
    if (!deps.http || !deps.webhook) return Status(500, "InternalError", "--authentication-token-webhook-config-file was not loaded");
    WebhookTokenConfig wc;
    wc.client = *deps.webhook;
    wc.version = c.webhook_version;
    wc.implicit_audiences = implicit;
    auto r = WebhookTokenAuthenticator::Create(std::move(wc), *deps.http);
    if (!r.ok()) return FlagError("authentication-token-webhook-config-file", r.status());
    TokenCacheOptions wopts;
    wopts.success_ttl = c.webhook_cache_ttl;
    wopts.failure_ttl = c.webhook_cache_ttl;
    wopts.cache_errors = false;
    wopts.clock = deps.clock;
    token_auths.push_back(std::make_unique<CachedTokenAuthenticator>(std::move(*r), wopts));
    a->names_.push_back("webhook");
  }

  if (!token_auths.empty()) {
    std::unique_ptr<TokenAuthenticator> tokens = std::make_unique<TokenUnion>(std::move(token_auths));
    if (c.token_success_cache_ttl.count() > 0 || c.token_failure_cache_ttl.count() > 0) {
      TokenCacheOptions topts;
      topts.success_ttl = c.token_success_cache_ttl;
      topts.failure_ttl = c.token_failure_cache_ttl;
      topts.cache_errors = true;
      topts.clock = deps.clock;
      auto cached = std::make_unique<CachedTokenAuthenticator>(std::move(tokens), topts);
      a->cache_ = cached.get();
      tokens = std::move(cached);
    }
    std::shared_ptr<TokenAuthenticator> shared(std::move(tokens));
    request_auths.push_back(std::make_unique<BearerTokenAuthenticator>(shared));
    request_auths.push_back(std::make_unique<WebSocketProtocolAuthenticator>(shared));
  }
  if (c.anonymous) a->names_.push_back("anonymous");
  a->top_ = std::make_unique<TopLevelAuthenticator>(std::make_unique<UnionAuthenticator>(std::move(request_auths)),
                                                    c.anonymous, a->api_audiences_);
  return a;
}

}  // namespace capstan::authn
