#include "auth/authn/build.h"

#include <fstream>
#include <sstream>

#include "apimachinery/config_document.h"
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
#include "util/timer.h"

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

// A token authenticator shared with another owner (the reloadable JWT authenticators).
class SharedToken : public TokenAuthenticator {
 public:
  explicit SharedToken(std::shared_ptr<TokenAuthenticator> t) : t_(std::move(t)) {}
  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override {
    co_return co_await t_->AuthenticateToken(token, audiences);
  }

 private:
  std::shared_ptr<TokenAuthenticator> t_;
};

}  // namespace

struct Authentication::Reload {
  std::string path;
  std::chrono::milliseconds interval{1000};
  std::optional<AnonymousAuthConfig> anonymous;  // the file's at start: a reload may not change it
  OidcConfig base;
  http::HttpClientFactory* http = nullptr;
  std::shared_ptr<ReloadableJwtAuthenticator> target;
  std::unique_ptr<ConfigReloadMetrics> metrics;  // null: none
  std::chrono::milliseconds health_timeout{60000};

  std::mutex mu;
  std::string data;      // GUARDED_BY(mu): the bytes last acted on
  bool stopped = false;  // GUARDED_BY(mu)
  bool started = false;  // GUARDED_BY(mu)
  bool checking = false;  // GUARDED_BY(mu): one check at a time

  bool Stopped() {
    std::lock_guard lock(mu);
    return stopped;
  }
  void Record(const char* status) {
    if (metrics) metrics->Record(status);
  }

  // One check at a time (the periodic one or a caller's).
  Task<ReloadOutcome> Check() {
    {
      std::lock_guard lock(mu);
      if (checking) co_return ReloadOutcome::kUnchanged;
      checking = true;
    }
    ReloadOutcome out = co_await CheckOnce();
    std::lock_guard lock(mu);
    checking = false;
    co_return out;
  }

  // kube's authentication config controller callback (pkg/kubeapiserver/options/authentication.go).
  Task<ReloadOutcome> CheckOnce() {
    auto fail = [this](const std::string& what, const std::string& error) {
      LogError(what, {{"path", path}, {"error", error}});
      Record("failure");
      return ReloadOutcome::kFailed;
    };
    auto bytes = apimachinery::ReadConfigFile(path);
    if (!bytes.ok()) co_return fail("failed to read authentication config file", bytes.status().message());
    {
      std::lock_guard lock(mu);
      if (*bytes == data) co_return ReloadOutcome::kUnchanged;
    }
    auto track = [this, &bytes] {
      std::lock_guard lock(mu);
      data = *bytes;
    };
    auto decoded = DecodeAuthenticationConfiguration(*bytes);
    if (!decoded.ok()) {
      track();  // never valid: stop retrying until the file changes
      co_return fail("failed to load authentication config", decoded.status().message());
    }
    ErrorList errs = ValidateAuthenticationConfiguration(*decoded, base.disallowed_issuers);
    if (decoded->anonymous != anonymous) {
      errs.push_back(ForbiddenError(FieldPath("anonymous"), "changed from initial configuration file"));
    }
    if (!errs.empty()) {
      track();
      co_return fail("failed to validate authentication config", AggregateMessage(errs));
    }
    if (!http) co_return fail("failed to update authentication config", "no HTTP client");
    auto set = JwtAuthenticatorSet::Create(decoded->jwt, base, *http);
    if (!set.ok()) co_return fail("failed to update authentication config", set.status().message());
    // The new issuers must be discovered before they take over (kube polls their health for a minute).
    const auto deadline = std::chrono::steady_clock::now() + health_timeout;
    Status health = (*set)->Health();
    while (!health.ok() && std::chrono::steady_clock::now() < deadline && !Stopped()) {
      co_await SleepFor(std::chrono::milliseconds(100));
      health = (*set)->Health();
    }
    if (!health.ok()) co_return fail("failed to update authentication config", health.message());
    target->Store(std::move(*set));
    track();
    LogInfo("reloaded authentication config", {{"path", path}});
    Record("success");
    co_return ReloadOutcome::kReloaded;
  }
};

namespace {

Task<void> ReloadLoop(std::shared_ptr<Authentication::Reload> r) {
  while (!r->Stopped()) {
    co_await SleepFor(r->interval);
    if (r->Stopped()) break;
    co_await r->Check();
  }
}

}  // namespace

Task<Authentication::ReloadOutcome> Authentication::CheckConfigFile() {
  if (!reload_) co_return ReloadOutcome::kUnchanged;
  auto r = reload_;
  co_return co_await r->Check();
}

void Authentication::StartConfigReload() {
  if (!reload_) return;
  {
    std::lock_guard lock(reload_->mu);
    if (reload_->started || reload_->stopped) return;
    reload_->started = true;
  }
  Spawn(ReloadLoop(reload_));
}

void Authentication::StopConfigReload() {
  if (!reload_) return;
  std::lock_guard lock(reload_->mu);
  reload_->stopped = true;
}

Authentication::~Authentication() { StopConfigReload(); }

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

  // The JWT and anonymous authenticators: from --authentication-config, else from the flags
  // (kube's ToAuthenticationConfig).
  AuthenticationConfiguration structured;
  std::string structured_data;
  OidcConfig jwt_base;
  jwt_base.disallowed_issuers = c.service_account_issuers;
  jwt_base.clock = deps.clock;
  if (deps.metrics) {
    jwt_base.latency = &deps.metrics->NewHistogramVec(
        "apiserver_authentication_jwt_authenticator_latency_seconds",
        "Latency of jwt authentication operations in seconds. This is the time spent authenticating a token for cache "
        "miss only (i.e. when the token is not found in the cache).",
        {"result", "jwt_issuer_hash"}, {.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10});
  }
  if (!c.authentication_config_file.empty()) {
    if (c.oidc_flags_set) return Status(500, "InternalError", "authentication-config file and oidc-* flags are mutually exclusive");
    auto data = apimachinery::ReadConfigFile(c.authentication_config_file);
    if (!data.ok()) return data.TakeStatus();
    structured_data = std::move(*data);
    auto decoded = DecodeAuthenticationConfiguration(structured_data);
    if (!decoded.ok()) return Status(500, "InternalError", decoded.status().message());
    structured = std::move(*decoded);
    jwt_base.signing_algs = AllJwtSigningAlgorithms();
  } else if (!c.oidc_issuer_url.empty() && !c.oidc_client_id.empty()) {
    OidcFlags f;
    f.issuer_url = c.oidc_issuer_url;
    f.client_id = c.oidc_client_id;
    if (!c.oidc_ca_file.empty()) {
      auto pem = ReadWholeFile(c.oidc_ca_file, "oidc-ca-file");
      if (!pem.ok()) return pem.TakeStatus();
      f.ca_pem = std::move(*pem);
    }
    f.username_claim = c.oidc_username_claim;
    f.username_prefix = c.oidc_username_prefix;
    f.username_prefix_set = c.oidc_username_prefix_set;
    f.groups_claim = c.oidc_groups_claim;
    f.groups_prefix = c.oidc_groups_prefix;
    f.required_claims = c.oidc_required_claims;
    structured.jwt.push_back(JwtFromOidcFlags(f));
    jwt_base.signing_algs = c.oidc_signing_algs;
  } else if (c.oidc_flags_set || !c.oidc_issuer_url.empty() || !c.oidc_client_id.empty()) {
    return Status(500, "InternalError",
                  "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set");
  }
  AnonymousAuthConfig anonymous{c.anonymous, {}};
  if (structured.anonymous) {
    if (c.anonymous_set) {
      return Status(500, "InternalError",
                    "anonymous: Forbidden: --anonynous-auth flag cannot be set when anonymous field is configured in "
                    "authentication configuration file");
    }
    anonymous = *structured.anonymous;
  }
  if (ErrorList errs = ValidateAuthenticationConfiguration(structured, c.service_account_issuers); !errs.empty()) {
    return Status(500, "InternalError", AggregateMessage(errs));
  }
  const bool jwt_configured = !c.authentication_config_file.empty() || !structured.jwt.empty();

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
  // The JWT authenticators after the service accounts, as kube.
  if (jwt_configured) {
    if (!deps.http) return Status(500, "InternalError", "the JWT authenticators need an HTTP client");
    auto set = JwtAuthenticatorSet::Create(structured.jwt, jwt_base, *deps.http);
    if (!set.ok()) return set.TakeStatus();
    a->jwt_ = std::make_shared<ReloadableJwtAuthenticator>(std::move(*set));
    token_auths.push_back(std::make_unique<AudienceAgnosticToken>(implicit, std::make_unique<SharedToken>(a->jwt_)));
    a->names_.push_back(c.authentication_config_file.empty() ? "oidc" : "jwt");
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
  if (anonymous.enabled) a->names_.push_back("anonymous");
  a->top_ = std::make_unique<TopLevelAuthenticator>(std::make_unique<UnionAuthenticator>(std::move(request_auths)),
                                                    anonymous.enabled, a->api_audiences_, anonymous.condition_paths);
  if (!c.authentication_config_file.empty()) {
    auto r = std::make_shared<Authentication::Reload>();
    r->path = c.authentication_config_file;
    r->interval = c.authentication_config_reload_interval;
    r->data = std::move(structured_data);
    r->anonymous = structured.anonymous;
    r->base = std::move(jwt_base);
    r->http = deps.http;
    r->target = a->jwt_;
    if (deps.metrics) {
      r->metrics = std::make_unique<ConfigReloadMetrics>(
          *deps.metrics, "authentication",
          "Total number of automatic reloads of authentication configuration split by status and apiserver identity.",
          "Timestamp of the last automatic reload of authentication configuration split by status and apiserver identity.",
          deps.apiserver_id_hash);
    }
    a->reload_ = std::move(r);
  }
  return a;
}

}  // namespace capstan::authn
