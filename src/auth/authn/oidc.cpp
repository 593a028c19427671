#include "auth/authn/oidc.h"

#include <boost/json.hpp>
#include <ctime>

#include "auth/authn/flight.h"
#include "auth/authn/jwt.h"
#include "auth/authn/keys.h"
#include "util/log.h"
#include "util/strings.h"
#include "util/timer.h"

namespace capstan::authn {

namespace json = boost::json;

namespace {

constexpr size_t kMaxDocumentBytes = 1 << 20;
constexpr int64_t kNbfLeewaySeconds = 5 * 60;
const char* const kAllAlgorithms[] = {"RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512"};

// Go's time.Time.String() for a UTC instant: "2024-05-01 10:20:30 +0000 UTC".
std::string GoTime(int64_t seconds) {
  time_t t = static_cast<time_t>(seconds);
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[64];
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S +0000 UTC", &tm);
  return buf;
}

std::string GoQuoteList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += " ";
    out += GoQuote(v[i]);
  }
  return out + "]";
}

std::string TrimTrailingSlash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

StatusOr<json::object> ParseJsonObject(const std::string& body, const char* what) {
  json::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) return Status(503, "ServiceUnavailable", std::string("oidc: failed to decode ") + what);
  return std::move(v.get_object());
}

// A claim as a string (kube's unmarshalClaim into a string).
StatusOr<std::string> StringOf(const json::object& claims, const std::string& name) {
  const auto* v = claims.if_contains(name);
  if (!v) return AuthError("claim not present");
  if (!v->is_string()) return AuthError("json: cannot unmarshal " + std::string(v->is_number() ? "number" : v->is_bool() ? "bool" : v->is_array() ? "array" : "object") + " into Go value of type string");
  return std::string(v->get_string());
}

}  // namespace

struct OidcAuthenticator::State : std::enable_shared_from_this<State> {
  OidcConfig config;
  std::unique_ptr<http::HttpClient> client;
  mutable std::mutex mu;
  bool stopped = false;                                // GUARDED_BY(mu)
  bool initialized = false;                            // GUARDED_BY(mu)
  Status health;                                       // GUARDED_BY(mu)
  std::string jwks_uri;                                // GUARDED_BY(mu)
  std::shared_ptr<const std::vector<JwsKey>> keys;     // GUARDED_BY(mu)
  std::shared_ptr<SharedFlight<Status>> refreshing;    // GUARDED_BY(mu)
  std::chrono::steady_clock::time_point last_fetch{};  // GUARDED_BY(mu)
  std::atomic<int64_t> key_fetches{0};

  bool Stopped() const {
    std::lock_guard lock(mu);
    return stopped;
  }

  Task<StatusOr<http::ClientResponse>> Get(const std::string& url) {
    http::ClientRequest req;
    req.url = url;
    req.headers.Add("Accept", "application/json");
    req.timeout = config.fetch_timeout;
    req.max_response_bytes = kMaxDocumentBytes;
    co_return co_await client->Do(std::move(req));
  }

  Task<Status> FetchKeys(std::string uri) {
    key_fetches.fetch_add(1);
    auto resp = co_await Get(uri);
    if (!resp.ok()) co_return Status(503, "ServiceUnavailable", "oidc: get keys failed: " + resp.status().message());
    if (resp->status != 200) {
      co_return Status(503, "ServiceUnavailable", "oidc: get keys failed: " + std::to_string(resp->status) + " " + resp->body.substr(0, 256));
    }
    auto doc = ParseJsonObject(resp->body, "keys");
    if (!doc.ok()) co_return doc.TakeStatus();
    auto keys = ParseJwks(*doc);
    if (!keys.ok()) co_return keys.TakeStatus();
    std::lock_guard lock(mu);
    this->keys = std::make_shared<const std::vector<JwsKey>>(std::move(*keys));
    last_fetch = std::chrono::steady_clock::now();
    co_return Status();
  }

  Task<Status> Discover() {
    std::string issuer = config.issuer_url;
    auto resp = co_await Get(TrimTrailingSlash(issuer) + "/.well-known/openid-configuration");
    if (!resp.ok()) co_return resp.TakeStatus();
    if (resp->status != 200) {
      co_return Status(503, "ServiceUnavailable", std::to_string(resp->status) + ": " + resp->body.substr(0, 256));
    }
    auto doc = ParseJsonObject(resp->body, "provider discovery object");
    if (!doc.ok()) co_return doc.TakeStatus();
    std::string got_issuer, uri;
    if (const auto* v = doc->if_contains("issuer"); v && v->is_string()) got_issuer = std::string(v->get_string());
    if (const auto* v = doc->if_contains("jwks_uri"); v && v->is_string()) uri = std::string(v->get_string());
    if (got_issuer != issuer) {
      co_return Status(503, "ServiceUnavailable", "oidc: issuer did not match the issuer returned by provider, expected " +
                                                      GoQuote(issuer) + " got " + GoQuote(got_issuer));
    }
    if (uri.empty()) co_return Status(503, "ServiceUnavailable", "provider did not return JWKS URL");
    CO_RETURN_IF_ERROR(co_await FetchKeys(uri));
    std::lock_guard lock(mu);
    jwks_uri = uri;
    initialized = true;
    health = Status();
    co_return Status();
  }

  // Refetches the key set (shared by concurrent callers, rate-limited).
  Task<Status> Refresh() {
    std::shared_ptr<SharedFlight<Status>> flight;
    bool leader = false;
    std::string uri;
    {
      std::lock_guard lock(mu);
      if (refreshing) {
        flight = refreshing;
      } else {
        if (std::chrono::steady_clock::now() - last_fetch < config.min_refresh_interval) co_return Status();
        flight = refreshing = std::make_shared<SharedFlight<Status>>();
        leader = true;
        uri = jwks_uri;
      }
    }
    if (!leader) co_return co_await flight->Wait();
    Status st = co_await FetchKeys(uri);
    if (!st.ok()) LogWarn("oidc authenticator: refreshing the key set failed", {{"issuer", config.issuer_url}, {"error", st.message()}});
    {
      std::lock_guard lock(mu);
      refreshing.reset();
    }
    flight->Finish(st);
    co_return st;
  }
};

namespace {

Task<void> InitLoop(std::shared_ptr<OidcAuthenticator::State> s) {
  while (!s->Stopped()) {
    Status st = co_await s->Discover();
    if (st.ok()) {
      LogInfo("oidc authenticator initialized", {{"issuer", s->config.issuer_url}});
      co_return;
    }
    LogError("oidc authenticator: initializing plugin", {{"issuer", s->config.issuer_url}, {"error", st.message()}});
    {
      std::lock_guard lock(s->mu);
      s->health = st;
    }
    co_await SleepFor(s->config.retry_interval);
  }
}

}  // namespace

std::string OidcUsernamePrefix(const std::string& flag_value, bool flag_set, const std::string& username_claim,
                               const std::string& issuer_url) {
  if (flag_value == "-") return "";
  if ((!flag_set || flag_value.empty()) && username_claim != "email") return issuer_url + "#";
  return flag_value;
}

StatusOr<std::unique_ptr<OidcAuthenticator>> OidcAuthenticator::Create(OidcConfig config, http::HttpClientFactory& factory) {
  auto url = http::ParseHttpUrl(config.issuer_url);
  if (!url || url->scheme != "https") {
    return Status(500, "InternalError", "oidc-issuer-url (" + config.issuer_url + ") must be a valid URL and use https");
  }
  if (config.client_id.empty()) return Status(500, "InternalError", "oidc-client-id is required with oidc-issuer-url");
  if (config.username_claim.empty()) return Status(500, "InternalError", "oidc-username-claim must not be empty");
  for (const auto& alg : config.signing_algs) {
    bool ok = false;
    for (const char* a : kAllAlgorithms) ok = ok || alg == a;
    if (!ok) return Status(500, "InternalError", "oidc: unsupported signing alg: " + GoQuote(alg));
  }
  http::ClientTlsConfig tls;
  tls.ca_pem = config.ca_pem;
  auto client = factory.NewClient(tls);
  if (!client.ok()) return Status(500, "InternalError", "oidc: " + client.status().message());
  auto state = std::make_shared<State>();
  state->config = std::move(config);
  state->client = std::move(*client);
  state->health = Status(503, "ServiceUnavailable", "oidc: authenticator for issuer " + GoQuote(state->config.issuer_url) +
                                                        " is not initialized");
  std::unique_ptr<OidcAuthenticator> a(new OidcAuthenticator(state));
  Spawn(InitLoop(state));
  return a;
}

OidcAuthenticator::~OidcAuthenticator() {
  std::lock_guard lock(state_->mu);
  state_->stopped = true;
}

bool OidcAuthenticator::initialized() const {
  std::lock_guard lock(state_->mu);
  return state_->initialized;
}

Status OidcAuthenticator::Health() const {
  std::lock_guard lock(state_->mu);
  if (state_->initialized) return Status();
  return Status(503, "ServiceUnavailable", "oidc: authenticator for issuer " + GoQuote(state_->config.issuer_url) +
                                                " is not healthy: " + state_->health.message());
}

int64_t OidcAuthenticator::key_fetches() const { return state_->key_fetches.load(); }

Task<AuthResult> OidcAuthenticator::AuthenticateToken(const std::string& token, const Audiences&) {
  auto s = state_;
  const OidcConfig& c = s->config;
  auto iss = PeekIssuer(token);
  if (!iss || *iss != c.issuer_url) co_return std::optional<Response>();
  std::shared_ptr<const std::vector<JwsKey>> keys;
  {
    std::lock_guard lock(s->mu);
    if (!s->initialized) co_return AuthError("oidc: authenticator not initialized");
    keys = s->keys;
  }
  const std::string prefix = "oidc: verify token: ";
  auto jwt = ParseJwt(token);
  if (!jwt.ok()) co_return AuthError(prefix + "oidc: malformed jwt: " + jwt.status().message());
  // go-oidc's checks, in its order: issuer, expiry, not-before, algorithm, signature.
  auto claimed_iss = StringClaim(jwt->claims, "iss");
  if (!claimed_iss.ok() || claimed_iss->value_or("") != c.issuer_url) {
    co_return AuthError(prefix + "oidc: id token issued by a different provider, expected " + GoQuote(c.issuer_url) +
                        " got " + GoQuote(claimed_iss.ok() ? claimed_iss->value_or("") : ""));
  }
  auto exp = NumericDateClaim(jwt->claims, "exp");
  auto nbf = NumericDateClaim(jwt->claims, "nbf");
  if (!exp.ok() || !nbf.ok()) co_return AuthError(prefix + "oidc: failed to unmarshal claims: invalid numeric date");
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(c.clock->Now().time_since_epoch()).count();
  int64_t exp_s = exp->value_or(-62135596800);  // Go's zero time
  if (exp_s < now) co_return AuthError(prefix + "oidc: token is expired (Token Expiry: " + GoTime(exp_s) + ")");
  if (nbf->has_value() && now + kNbfLeewaySeconds < **nbf) {
    co_return AuthError(prefix + "oidc: current time " + GoTime(now) + " before the nbf (not before) time: " + GoTime(**nbf));
  }
  if (std::find(c.signing_algs.begin(), c.signing_algs.end(), jwt->alg) == c.signing_algs.end()) {
    co_return AuthError(prefix + "oidc: id token signed with unsupported algorithm, expected " + GoQuoteList(c.signing_algs) +
                        " got " + GoQuote(jwt->alg));
  }
  auto try_keys = [&](const std::vector<JwsKey>& set) {
    for (const auto& k : set) {
      if (!jwt->kid.empty() && k.KeyId() != jwt->kid) continue;
      if (VerifyJwt(*jwt, k).ok()) return true;
    }
    return false;
  };
  bool verified = keys && try_keys(*keys);
  if (!verified) {
    // Perhaps the provider rotated its keys: fetch the set again and retry once.
    Status st = co_await s->Refresh();
    if (!st.ok()) co_return AuthError(prefix + "failed to verify signature: fetching keys " + st.message());
    {
      std::lock_guard lock(s->mu);
      keys = s->keys;
    }
    verified = keys && try_keys(*keys);
  }
  if (!verified) co_return AuthError(prefix + "failed to verify signature: failed to verify id token signature");

  auto aud = AudienceClaim(jwt->claims);
  if (!aud.ok()) co_return AuthError(prefix + "oidc: failed to unmarshal claims: " + aud.status().message());
  if (std::find(aud->begin(), aud->end(), c.client_id) == aud->end()) {
    co_return AuthError("oidc: expected audience in " + GoQuoteList({c.client_id}) + " got " + GoQuoteList(*aud));
  }
  const json::object& claims = jwt->claims;
  auto username = StringOf(claims, c.username_claim);
  if (!username.ok()) co_return AuthError("oidc: parse username claims " + GoQuote(c.username_claim) + ": " + username.status().message());
  if (c.username_claim == "email") {
    if (const auto* ev = claims.if_contains("email_verified")) {
      if (!ev->is_bool()) co_return AuthError("oidc: parse 'email_verified' claim: json: cannot unmarshal into Go value of type bool");
      if (!ev->get_bool()) co_return AuthError("oidc: email not verified");
    }
  }
  Response r;
  r.user.name = c.username_prefix + *username;
  if (!c.groups_claim.empty()) {
    if (const auto* g = claims.if_contains(c.groups_claim)) {
      std::vector<std::string> groups;
      if (g->is_string()) {
        groups.emplace_back(g->get_string());
      } else if (g->is_array()) {
        for (const auto& x : g->get_array()) {
          if (!x.is_string()) co_return AuthError("oidc: parse groups claim " + GoQuote(c.groups_claim) + ": json: cannot unmarshal array into Go value of type string");
          groups.emplace_back(x.get_string());
        }
      } else {
        co_return AuthError("oidc: parse groups claim " + GoQuote(c.groups_claim) + ": json: cannot unmarshal into Go value of type string");
      }
      for (auto& grp : groups) r.user.groups.push_back(c.groups_prefix + grp);
    }
  }
  if (const auto* jti = claims.if_contains("jti"); jti && jti->is_string()) {
    r.user.extra["authentication.kubernetes.io/credential-id"] = {"JTI=" + std::string(jti->get_string())};
  }
  for (const auto& [claim, want] : c.required_claims) {
    if (!claims.contains(claim)) co_return AuthError("oidc: required claim " + claim + " not present in ID token");
    auto got = StringOf(claims, claim);
    if (!got.ok()) co_return AuthError("oidc: parse claim " + claim + ": " + got.status().message());
    if (*got != want) {
      co_return AuthError("oidc: required claim " + claim + " value does not match. Got = " + *got + ", want = " + want);
    }
  }
  r.expires = std::chrono::system_clock::time_point(std::chrono::seconds(exp_s));
  co_return std::optional<Response>(std::move(r));
}

}  // namespace capstan::authn
