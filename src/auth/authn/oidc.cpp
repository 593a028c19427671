#include "auth/authn/oidc.h"

#include <boost/json.hpp>
#include <ctime>

#include "auth/authn/flight.h"
#include "auth/authn/jwt.h"
#include "auth/authn/keys.h"
#include "cel/admission_expressions.h"
#include "cel/crd_rules.h"
#include "cel/schema_types.h"
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
  ClaimMappingPrograms programs;
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
    const std::string& issuer = config.jwt.url;
    auto resp = co_await Get(config.jwt.discovery_url.empty() ? TrimTrailingSlash(issuer) + "/.well-known/openid-configuration"
                                                              : config.jwt.discovery_url);
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
    if (!st.ok()) LogWarn("oidc authenticator: refreshing the key set failed", {{"issuer", config.jwt.url}, {"error", st.message()}});
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
      LogInfo("oidc authenticator initialized", {{"issuer", s->config.jwt.url}});
      co_return;
    }
    LogError("oidc authenticator: initializing plugin", {{"issuer", s->config.jwt.url}, {"error", st.message()}});
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

std::vector<std::string> AllJwtSigningAlgorithms() { return {std::begin(kAllAlgorithms), std::end(kAllAlgorithms)}; }

JwtAuthenticatorConfig JwtFromOidcFlags(const OidcFlags& f) {
  JwtAuthenticatorConfig j;
  j.url = f.issuer_url;
  j.audiences = {f.client_id};
  j.certificate_authority = f.ca_pem;
  j.username.claim = f.username_claim;
  j.username.prefix = OidcUsernamePrefix(f.username_prefix, f.username_prefix_set, f.username_claim, f.issuer_url);
  if (!f.groups_claim.empty()) {
    j.groups.claim = f.groups_claim;
    j.groups.prefix = f.groups_prefix;
  }
  for (const auto& [claim, value] : f.required_claims) j.claim_validation_rules.push_back({claim, value, "", ""});
  return j;
}

StatusOr<std::unique_ptr<OidcAuthenticator>> OidcAuthenticator::Create(OidcConfig config, http::HttpClientFactory& factory) {
  CompiledJwtAuthenticator compiled = CompileJwtAuthenticator(config.jwt, config.disallowed_issuers);
  if (!compiled.errors.empty()) return Status(500, "InternalError", AggregateMessage(compiled.errors));
  if (config.signing_algs.empty()) config.signing_algs = {"RS256"};
  for (const auto& alg : config.signing_algs) {
    bool ok = false;
    for (const char* a : kAllAlgorithms) ok = ok || alg == a;
    if (!ok) return Status(500, "InternalError", "oidc: unsupported signing alg: " + GoQuote(alg));
  }
  http::ClientTlsConfig tls;
  tls.ca_pem = config.jwt.certificate_authority;
  auto client = factory.NewClient(tls);
  if (!client.ok()) return Status(500, "InternalError", "oidc: " + client.status().message());
  auto state = std::make_shared<State>();
  state->config = std::move(config);
  state->programs = std::move(compiled.programs);
  state->client = std::move(*client);
  state->health = Status(503, "ServiceUnavailable", "oidc: authenticator for issuer " + GoQuote(state->config.jwt.url) +
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
  return Status(503, "ServiceUnavailable", "oidc: authenticator for issuer " + GoQuote(state_->config.jwt.url) +
                                                " is not healthy: " + state_->health.message());
}

int64_t OidcAuthenticator::key_fetches() const { return state_->key_fetches.load(); }

namespace {

// One claims or user expression; an evaluation error is kube's "expression '<e>' resulted in error: ...".
StatusOr<cel::Value> Evaluate(const cel::Program& p, const char* variable, const cel::Value& input) {
  cel::MapActivation act;
  act.Bind(variable, input);
  int64_t budget = cel::kRuntimeCostBudget;
  auto ev = cel::EvaluateAdmission(p, act, budget);
  if (!ev.error.empty()) return AuthError(ev.error);
  return ev.value;
}

// kube's convertCELValueToStringList: a string or a list of strings; "", [] and null are none.
StatusOr<std::vector<std::string>> StringList(const cel::Value& v) {
  std::vector<std::string> out;
  if (v.kind() == cel::Kind::kString) {
    if (!v.str().empty()) out.push_back(v.str());
    return out;
  }
  if (v.kind() == cel::Kind::kNull) return out;
  if (v.kind() != cel::Kind::kList) return AuthError("expression must return a string or a list of strings");
  for (const auto& x : v.list().items) {
    if (x.kind() != cel::Kind::kString) return AuthError("expression must return a string or a list of strings");
    if (!x.str().empty()) out.push_back(x.str());
  }
  return out;
}

// kube's checkValidationRulesEvaluation.
Status CheckRules(const std::vector<std::pair<ClaimMappingPrograms::ProgramPtr, std::string>>& rules, const char* variable,
                  const cel::Value& input) {
  for (const auto& [p, message] : rules) {
    auto v = Evaluate(*p, variable, input);
    if (!v.ok()) return v.TakeStatus();
    if (!v->IsBool()) return AuthError("validation expression must return a boolean");
    if (!v->bool_value()) return AuthError("validation expression '" + p->source() + "' failed: " + message);
  }
  return Status();
}

json::value UserJson(const UserInfo& u) {
  // authentication/v1 UserInfo as JSON: empty fields are omitted.
  json::object o{{"username", u.name}};
  if (!u.uid.empty()) o["uid"] = u.uid;
  if (!u.groups.empty()) {
    json::array g;
    for (const auto& x : u.groups) g.emplace_back(x);
    o["groups"] = std::move(g);
  }
  if (!u.extra.empty()) {
    json::object e;
    for (const auto& [k, vs] : u.extra) {
      json::array a;
      for (const auto& x : vs) a.emplace_back(x);
      e[k] = std::move(a);
    }
    o["extra"] = std::move(e);
  }
  return o;
}

}  // namespace

Task<AuthResult> OidcAuthenticator::AuthenticateToken(const std::string& token, const Audiences&) {
  auto s = state_;
  const JwtAuthenticatorConfig& c = s->config.jwt;
  const ClaimMappingPrograms& programs = s->programs;
  auto iss = PeekIssuer(token);
  if (!iss || *iss != c.url) co_return std::optional<Response>();
  std::shared_ptr<const std::vector<JwsKey>> keys;
  {
    std::lock_guard lock(s->mu);
    if (!s->initialized) co_return AuthError("oidc: authenticator not initialized");
    keys = s->keys;
  }
  const std::string prefix = "oidc: verify token: ";
  auto jwt = ParseJwt(token);
  if (!jwt.ok()) co_return AuthError(prefix + "oidc: malformed jwt: " + jwt.status().message());
  // go-oidc's checks, in its order: issuer, audience (one configured), expiry, not-before, algorithm,
  // signature; then kube's own audience check for several.
  auto claimed_iss = StringClaim(jwt->claims, "iss");
  if (!claimed_iss.ok() || claimed_iss->value_or("") != c.url) {
    co_return AuthError(prefix + "oidc: id token issued by a different provider, expected " + GoQuote(c.url) + " got " +
                        GoQuote(claimed_iss.ok() ? claimed_iss->value_or("") : ""));
  }
  auto aud = AudienceClaim(jwt->claims);
  if (!aud.ok()) co_return AuthError(prefix + "oidc: failed to unmarshal claims: " + aud.status().message());
  if (c.audiences.size() == 1 && std::find(aud->begin(), aud->end(), c.audiences[0]) == aud->end()) {
    co_return AuthError(prefix + "oidc: expected audience " + GoQuote(c.audiences[0]) + " got " + GoQuoteList(*aud));
  }
  auto exp = NumericDateClaim(jwt->claims, "exp");
  auto nbf = NumericDateClaim(jwt->claims, "nbf");
  if (!exp.ok() || !nbf.ok()) co_return AuthError(prefix + "oidc: failed to unmarshal claims: invalid numeric date");
  const int64_t now = std::chrono::duration_cast<std::chrono::seconds>(s->config.clock->Now().time_since_epoch()).count();
  int64_t exp_s = exp->value_or(-62135596800);  // Go's zero time
  if (exp_s < now) co_return AuthError(prefix + "oidc: token is expired (Token Expiry: " + GoTime(exp_s) + ")");
  if (nbf->has_value() && now + kNbfLeewaySeconds < **nbf) {
    co_return AuthError(prefix + "oidc: current time " + GoTime(now) + " before the nbf (not before) time: " + GoTime(**nbf));
  }
  const auto& algs = s->config.signing_algs;
  if (std::find(algs.begin(), algs.end(), jwt->alg) == algs.end()) {
    co_return AuthError(prefix + "oidc: id token signed with unsupported algorithm, expected " + GoQuoteList(algs) +
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
  if (c.audiences.size() > 1) {
    bool any = false;
    for (const auto& a : *aud) any = any || std::find(c.audiences.begin(), c.audiences.end(), a) != c.audiences.end();
    if (!any) {
      std::vector<std::string> sorted = c.audiences;
      std::sort(sorted.begin(), sorted.end());
      co_return AuthError(prefix + "oidc: expected audience in " + GoQuoteList(sorted) + " got " + GoQuoteList(*aud));
    }
  }

  const json::object& claims = jwt->claims;
  cel::Value claims_value;
  if (programs.any_claims_expression()) claims_value = cel::JsonToValue(json::value(claims), nullptr, false);
  Response r;
  // Username.
  if (programs.username) {
    const std::string what = "oidc: error evaluating username claim expression: ";
    auto v = Evaluate(*programs.username, "claims", claims_value);
    if (!v.ok()) co_return AuthError(what + v.status().message());
    if (v->kind() != cel::Kind::kString) co_return AuthError(what + "username claim expression must return a string");
    if (v->str().empty()) co_return AuthError("oidc: empty username via CEL expression is not allowed");
    r.user.name = v->str();
  } else {
    const std::string& claim = c.username.claim;
    auto username = StringOf(claims, claim);
    if (!username.ok()) co_return AuthError("oidc: parse username claims " + GoQuote(claim) + ": " + username.status().message());
    if (claim == "email") {
      if (const auto* ev = claims.if_contains("email_verified")) {
        if (!ev->is_bool()) co_return AuthError("oidc: parse 'email_verified' claim: json: cannot unmarshal into Go value of type bool");
        if (!ev->get_bool()) co_return AuthError("oidc: email not verified");
      }
    }
    r.user.name = c.username.prefix.value_or("") + *username;
  }
  // Groups: the claim when the token has it, else the expression.
  const std::string& groups_claim = c.groups.claim;
  if (const auto* g = groups_claim.empty() ? nullptr : claims.if_contains(groups_claim)) {
    std::vector<std::string> groups;
    const std::string what = "oidc: parse groups claim " + GoQuote(groups_claim) + ": json: cannot unmarshal ";
    if (g->is_string()) {
      groups.emplace_back(g->get_string());
    } else if (g->is_array()) {
      for (const auto& x : g->get_array()) {
        if (!x.is_string()) co_return AuthError(what + "array into Go value of type string");
        groups.emplace_back(x.get_string());
      }
    } else {
      co_return AuthError(what + "into Go value of type string");
    }
    for (auto& grp : groups) r.user.groups.push_back(c.groups.prefix.value_or("") + grp);
  } else if (programs.groups) {
    const std::string what = "oidc: error evaluating group claim expression: ";
    auto v = Evaluate(*programs.groups, "claims", claims_value);
    if (!v.ok()) co_return AuthError(what + v.status().message());
    auto list = StringList(*v);
    if (!list.ok()) co_return AuthError(what + list.status().message());
    r.user.groups = std::move(*list);
  }
  // UID.
  if (!c.uid_claim.empty()) {
    auto uid = StringOf(claims, c.uid_claim);
    if (!uid.ok()) co_return AuthError("oidc: parse uid claim " + GoQuote(c.uid_claim) + ": " + uid.status().message());
    r.user.uid = *uid;
  } else if (programs.uid) {
    const std::string what = "oidc: error evaluating uid claim expression: ";
    auto v = Evaluate(*programs.uid, "claims", claims_value);
    if (!v.ok()) co_return AuthError(what + v.status().message());
    if (v->kind() != cel::Kind::kString) co_return AuthError(what + "uid claim expression must return a string");
    r.user.uid = v->str();
  }
  // Extra.
  if (const auto* jti = claims.if_contains("jti"); jti && jti->is_string()) {
    r.user.extra["authentication.kubernetes.io/credential-id"] = {"JTI=" + std::string(jti->get_string())};
  }
  for (const auto& [key, p] : programs.extra) {
    auto v = Evaluate(*p, "claims", claims_value);
    if (!v.ok()) co_return v.TakeStatus();
    auto list = StringList(*v);
    if (!list.ok()) {
      co_return AuthError("oidc: error evaluating extra claim expression: " + p->source() + ": " + list.status().message());
    }
    if (!list->empty()) r.user.extra[key] = std::move(*list);
  }
  // Required claims, then the validation rules.
  for (const auto& rule : c.claim_validation_rules) {
    if (rule.claim.empty()) continue;
    if (!claims.contains(rule.claim)) co_return AuthError("oidc: required claim " + rule.claim + " not present in ID token");
    auto got = StringOf(claims, rule.claim);
    if (!got.ok()) co_return AuthError("oidc: parse claim " + rule.claim + ": " + got.status().message());
    if (*got != rule.required_value) {
      co_return AuthError("oidc: required claim " + rule.claim + " value does not match. Got = " + *got +
                          ", want = " + rule.required_value);
    }
  }
  if (Status st = CheckRules(programs.claim_validation, "claims", claims_value); !st.ok()) {
    co_return AuthError("oidc: error evaluating claim validation expression: " + st.message());
  }
  if (!programs.user_validation.empty()) {
    cel::Value user = cel::JsonToValue(UserJson(r.user), nullptr, false);
    if (Status st = CheckRules(programs.user_validation, "user", user); !st.ok()) {
      co_return AuthError("oidc: error evaluating user info validation rule: " + st.message());
    }
  }
  r.expires = std::chrono::system_clock::time_point(std::chrono::seconds(exp_s));
  co_return std::optional<Response>(std::move(r));
}

}  // namespace capstan::authn
