#include "cmd/authentication.h"

#include <mutex>

#include "api/authentication/authentication.h"
#include "api/core/serviceaccount_token.h"
#include "auth/authn/issuer_discovery.h"
#include "cmd/kubeconfig.h"
#include "server/http/responses.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::cmd {

namespace {

// A served core/v1 object, read as a GET would (no admission, no authorization).
Task<StatusOr<boost::json::object>> GetServed(const endpoints::ApiRegistry* apis, std::string resource, std::string ns,
                                              std::string name) {
  auto snap = apis->Snapshot();
  const auto* e = snap->FindResource("", "v1", resource, "");
  if (!e || !e->getter) co_return Status(500, "InternalError", resource + " are not served");
  registry::Context ctx;
  ctx.namespace_ = ns;
  co_return co_await e->getter->Get(ctx, name, {});
}

StatusOr<std::string> FileOrData(const std::string& file, const std::string& data) {
  if (!data.empty() || file.empty()) return data;
  return ReadFileToString(file);
}

// The token webhook's kubeconfig → where and how to call it.
StatusOr<authn::WebhookClientConfig> LoadWebhookConfig(const std::string& path) {
  auto kc = LoadKubeconfigFile(path);
  if (!kc.ok()) return kc.TakeStatus();
  auto target = ResolveCurrentContext(*kc);
  if (!target.ok()) return target.TakeStatus();
  authn::WebhookClientConfig w;
  w.server = target->cluster.server;
  auto ca = FileOrData(target->cluster.certificate_authority, target->cluster.certificate_authority_data);
  if (!ca.ok()) return ca.TakeStatus();
  w.tls.ca_pem = std::move(*ca);
  w.tls.server_name = target->cluster.tls_server_name;
  w.tls.insecure_skip_verify = target->cluster.insecure_skip_tls_verify;
  auto cert = FileOrData(target->user.client_certificate, target->user.client_certificate_data);
  if (!cert.ok()) return cert.TakeStatus();
  auto key = FileOrData(target->user.client_key, target->user.client_key_data);
  if (!key.ok()) return key.TakeStatus();
  w.tls.client_cert_pem = std::move(*cert);
  w.tls.client_key_pem = std::move(*key);
  w.bearer_token = target->user.token;
  if (w.bearer_token.empty() && !target->user.token_file.empty()) {
    auto t = ReadFileToString(target->user.token_file);
    if (!t.ok()) return t.TakeStatus();
    w.bearer_token = std::string(TrimSpace(*t));
  }
  return w;
}

}  // namespace

StatusOr<std::unique_ptr<AuthenticationSetup>> AuthenticationSetup::Create(const Options& o, const Pki& pki,
                                                                           const endpoints::ApiRegistry& apis,
                                                                           std::function<std::string()> server_url,
                                                                           MetricsRegistry* metrics,
                                                                           std::string apiserver_id_hash) {
  std::unique_ptr<AuthenticationSetup> s(new AuthenticationSetup());
  s->apis_ = &apis;
  s->server_url_ = std::move(server_url);
  authn::AuthenticationConfig c = o.authentication;
  c.anonymous = o.anonymous_auth;
  c.anonymous_set = o.given.count("anonymous-auth") > 0;
  if (auto it = o.given.find("authentication-config"); it != o.given.end() && !it->second.empty()) {
    c.authentication_config_file = it->second.back();
  }
  for (const auto& [flag, values] : o.given) c.oidc_flags_set = c.oidc_flags_set || StartsWith(flag, "oidc-");
  c.client_ca_file = o.client_ca_file.empty() ? pki.ca_cert_file : o.client_ca_file;
  if (c.service_account_issuers.empty()) c.service_account_issuers = {kDefaultServiceAccountIssuer};
  if (c.service_account_signing_key_file.empty()) c.service_account_signing_key_file = pki.sa_key_file;

  authn::AuthenticationDeps deps;
  const endpoints::ApiRegistry* api_ptr = &apis;
  deps.getter = [api_ptr](const std::string& resource, const std::string& ns, const std::string& name) {
    return GetServed(api_ptr, resource, ns, name);
  };
  deps.metrics = metrics;
  deps.apiserver_id_hash = std::move(apiserver_id_hash);
  if (!c.oidc_issuer_url.empty() || !c.webhook_config_file.empty() || !c.authentication_config_file.empty()) {
    s->http_ = std::make_unique<server::HttpClientEngine>();
    deps.http = s->http_.get();
  }
  if (!c.webhook_config_file.empty()) {
    auto w = LoadWebhookConfig(c.webhook_config_file);
    if (!w.ok()) return Status(500, "InternalError", "--authentication-token-webhook-config-file: " + w.status().message());
    deps.webhook = std::move(*w);
  }
  auto a = authn::BuildAuthentication(c, std::move(deps));
  if (!a.ok()) return a.TakeStatus();
  s->authn_ = std::move(*a);
  s->authn_->StartConfigReload();
  LogInfo("authentication", {{"authenticators", Join(s->authn_->names(), ",")},
                             {"issuer", Join(s->authn_->issuers(), ",")}});
  return s;
}

AuthenticationSetup::~AuthenticationSetup() = default;

std::vector<registry::RestResource> AuthenticationSetup::AuthenticationApi(const registry::GroupDeps& deps) {
  api::authentication::AuthenticationApiOptions opts;
  opts.api_audiences = authn_->api_audiences();
  authn::Authentication* a = authn_.get();
  opts.review = [a](const std::string& token, const std::vector<std::string>& audiences)
      -> Task<StatusOr<api::authentication::ReviewedToken>> {
    auto r = co_await a->ReviewToken(token, audiences);
    api::authentication::ReviewedToken out;
    if (!r.ok()) {
      out.error = r.status().message();
    } else if (r->has_value()) {
      out.authenticated = true;
      out.user = (*r)->user;
      out.audiences = (*r)->audiences;
    }
    co_return out;
  };
  return api::authentication::Install(deps, std::move(opts));
}

std::vector<registry::RestResource> AuthenticationSetup::ServiceAccountTokenApi(const registry::GroupDeps& deps) {
  const authn::ServiceAccountTokenGenerator* gen = authn_->token_generator();
  if (!gen) return {};
  api::core::ServiceAccountTokenOptions opts;
  opts.api_audiences = authn_->api_audiences();
  opts.max_expiration_seconds = authn_->max_token_expiration_seconds();
  opts.extend_expiration = authn_->extend_token_expiration();
  const endpoints::ApiRegistry* apis = apis_;
  opts.get = [apis](const std::string& resource, const std::string& ns, const std::string& name) {
    return GetServed(apis, resource, ns, name);
  };
  opts.sign = [gen](const api::core::TokenClaimsSpec& spec) -> StatusOr<std::string> {
    authn::BoundTokenSpec b;
    b.namespace_ = spec.namespace_;
    b.service_account = {spec.service_account.name, spec.service_account.uid};
    auto ref = [](const std::optional<api::core::TokenClaimsSpec::Ref>& r) -> std::optional<authn::ObjectRef> {
      if (!r) return std::nullopt;
      return authn::ObjectRef{r->name, r->uid};
    };
    b.pod = ref(spec.pod);
    b.secret = ref(spec.secret);
    b.node = ref(spec.node);
    b.audiences = spec.audiences;
    b.expiration_seconds = spec.expiration_seconds;
    b.warn_after_seconds = spec.warn_after_seconds;
    b.now = spec.now;
    auto t = gen->GenerateBound(b);
    if (!t.ok()) return t.TakeStatus();
    LogDebug("issued a service account token", {{"credential-id", "JTI=" + t->jti}, {"subject", spec.service_account.name}});
    return std::move(t->token);
  };
  return api::core::ServiceAccountToken(deps, std::move(opts));
}

void AuthenticationSetup::InstallDiscoveryRoutes(server::Router& router) {
  if (authn_->issuers().empty()) return;
  const std::string issuer = authn_->issuers()[0];
  auto url = http::ParseHttpUrl(issuer);
  if (!url || url->scheme != "https") {
    LogInfo("service account issuer discovery is disabled: the issuer is not an https URL", {{"issuer", issuer}});
    return;
  }
  // Rendered at the first request, when the serving address (for the default JWKS URI) is known.
  struct Docs {
    std::once_flag once;
    StatusOr<authn::IssuerDiscovery> docs = Status(500, "InternalError", "not rendered");
  };
  auto docs = std::make_shared<Docs>();
  authn::Authentication* a = authn_.get();
  std::function<std::string()> server_url = server_url_;
  auto get = [docs, a, issuer, server_url]() -> const StatusOr<authn::IssuerDiscovery>& {
    std::call_once(docs->once, [&] {
      std::string jwks = a->jwks_uri_flag();
      if (jwks.empty()) jwks = server_url() + authn::kJwksPath;
      docs->docs = authn::IssuerDiscovery::Create(issuer, jwks, a->service_account_keys());
      if (!docs->docs.ok()) LogWarn("service account issuer discovery", {{"error", docs->docs.status().message()}});
    });
    return docs->docs;
  };
  auto serve = [get](bool jwks) {
    return [get, jwks](http::RequestContext& ctx) -> Task<void> {
      if (ctx.request.method != "GET" && ctx.request.method != "HEAD") {
        co_await http::RespondStatus(ctx, Status(405, "MethodNotAllowed", "the server does not allow this method on the requested resource"));
        co_return;
      }
      const auto& d = get();
      if (!d.ok()) {
        co_await http::RespondStatus(ctx, Status(404, "NotFound", "the server could not find the requested resource"));
        co_return;
      }
      http::HttpResponse resp;
      resp.headers.Set("Content-Type", jwks ? "application/jwk-set+json" : "application/json");
      ctx.writer->extra_headers().Set("Cache-Control", "public, max-age=3600");
      resp.body = jwks ? d->jwks_json() : d->configuration_json();
      co_await ctx.writer->Respond(std::move(resp));
    };
  };
  router.Handle(authn::kOpenIdConfigurationPath, serve(false));
  router.Handle(authn::kJwksPath, serve(true));
}

}  // namespace capstan::cmd
