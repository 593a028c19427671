#include "auth/authn/service_account.h"

#include <boost/json.hpp>

#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "auth/authn/token_file.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::authn {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr const char* kPodNameKey = "authentication.kubernetes.io/pod-name";
constexpr const char* kPodUidKey = "authentication.kubernetes.io/pod-uid";
constexpr const char* kNodeNameKey = "authentication.kubernetes.io/node-name";
constexpr const char* kNodeUidKey = "authentication.kubernetes.io/node-uid";
constexpr const char* kCredentialIdKey = "authentication.kubernetes.io/credential-id";

// Go's %q of a []string: ["a" "b"].
std::string GoQuoteList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += " ";
    out += GoQuote(v[i]);
  }
  return out + "]";
}

struct Ref {
  std::string name;
  std::string uid;
};

std::optional<Ref> RefAt(const json::object& k8s, const char* key) {
  const auto* v = k8s.if_contains(key);
  if (!v || !v->is_object()) return std::nullopt;
  Ref r;
  if (const auto* n = v->get_object().if_contains("name"); n && n->is_string()) r.name = std::string(n->get_string());
  if (const auto* u = v->get_object().if_contains("uid"); u && u->is_string()) r.uid = std::string(u->get_string());
  return r;
}

std::string StrAt(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

// kube's "deleted before now-leeway": an object whose deletion started over a minute ago.
bool DeletedBefore(const json::object& obj, std::chrono::system_clock::time_point limit) {
  auto ts = am::GetDeletionTimestamp(obj);
  if (!ts) return false;
  auto t = am::ParseRfc3339(*ts);
  if (!t.ok()) return false;
  return t->ToTimePoint() < limit;
}

bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && !(c == '-' && i > 0 && i + 1 < s.size())) return false;
  }
  return true;
}

bool IsDnsSubdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  for (const auto& part : Split(s, '.')) {
    if (!IsDnsLabel(part)) return false;
  }
  return true;
}

}  // namespace

std::string ServiceAccountUsername(const std::string& ns, const std::string& name) {
  return "system:serviceaccount:" + ns + ":" + name;
}

UserInfo ServiceAccountUser(const std::string& ns, const std::string& name, const std::string& uid) {
  UserInfo u;
  u.name = ServiceAccountUsername(ns, name);
  u.uid = uid;
  u.groups = {"system:serviceaccounts", "system:serviceaccounts:" + ns};
  return u;
}

ServiceAccountTokenAuthenticator::ServiceAccountTokenAuthenticator(Kind kind, ServiceAccountAuthConfig config)
    : kind_(kind), config_(std::move(config)) {
  for (const auto& k : config_.keys) keys_by_id_.emplace(k.KeyId(), k);
}

StatusOr<std::optional<ServiceAccountTokenAuthenticator::Verified>> ServiceAccountTokenAuthenticator::VerifyToken(
    const std::string& token, const Audiences& audiences) const {
  auto has_issuer = [&](const std::string& iss) {
    return std::find(config_.issuers.begin(), config_.issuers.end(), iss) != config_.issuers.end();
  };
  auto peeked = PeekIssuer(token);
  if (!peeked || !has_issuer(*peeked)) return std::optional<Verified>();
  auto jwt = ParseJwt(token);
  if (!jwt.ok()) return std::optional<Verified>();

  std::vector<const JwsKey*> candidates;
  if (!jwt->kid.empty()) {
    auto range = keys_by_id_.equal_range(jwt->kid);
    for (auto it = range.first; it != range.second; ++it) candidates.push_back(&it->second);
  } else {
    for (const auto& k : config_.keys) candidates.push_back(&k);
  }
  if (candidates.empty()) return AuthError("invalid signature, no keys found");
  std::vector<Status> errors;
  bool found = false;
  for (const JwsKey* k : candidates) {
    Status st = VerifyJwt(*jwt, *k);
    if (st.ok()) {
      found = true;
      break;
    }
    errors.push_back(st);
  }
  if (!found) return AggregateAuthErrors(errors);

  auto iss = StringClaim(jwt->claims, "iss");
  if (!iss.ok()) return iss.TakeStatus();
  if (!has_issuer(iss->value_or(""))) return AuthError("token issuer " + GoQuote(iss->value_or("")) + " is invalid");
  auto aud = AudienceClaim(jwt->claims);
  if (!aud.ok()) return aud.TakeStatus();
  Audiences token_auds = aud->empty() ? config_.implicit_audiences : *aud;
  const Audiences& requested = audiences.empty() ? config_.implicit_audiences : audiences;
  Audiences auds = IntersectAudiences(token_auds, requested);
  if (auds.empty() && !config_.implicit_audiences.empty()) {
    return AuthError("token audiences " + GoQuoteList(token_auds) + " is invalid for the target audiences " +
                     GoQuoteList(requested));
  }
  auto exp = NumericDateClaim(jwt->claims, "exp");
  if (!exp.ok()) return exp.TakeStatus();
  Verified v{std::move(*jwt), std::move(auds), *exp};
  return std::optional<Verified>(std::move(v));
}

Task<AuthResult> ServiceAccountTokenAuthenticator::AuthenticateToken(const std::string& token,
                                                                     const Audiences& audiences) {
  auto verified = VerifyToken(token, audiences);
  if (!verified.ok()) co_return verified.TakeStatus();
  if (!verified->has_value()) co_return std::optional<Response>();
  Verified& v = **verified;
  StatusOr<UserInfo> user = Status(500, "InternalError", "");
  if (kind_ == Kind::kBound) {
    user = co_await ValidateBound(v.jwt);
  } else {
    user = co_await ValidateLegacy(token, v.jwt);
  }
  if (!user.ok()) co_return user.TakeStatus();
  Response r;
  r.user = std::move(*user);
  r.audiences = std::move(v.audiences);
  if (v.exp) r.expires = std::chrono::system_clock::time_point(std::chrono::seconds(*v.exp)) + kJwtLeeway;
  co_return std::optional<Response>(std::move(r));
}

Task<StatusOr<UserInfo>> ServiceAccountTokenAuthenticator::ValidateBound(const Jwt& jwt) {
  const auto now = config_.clock->Now();
  const int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const int64_t leeway = kJwtLeeway.count();
  for (const char* claim : {"nbf", "exp", "iat"}) {
    auto v = NumericDateClaim(jwt.claims, claim);
    if (!v.ok()) co_return v.TakeStatus();
    if (!v->has_value()) continue;
    int64_t t = **v;
    if (std::string_view(claim) == "nbf" && now_s + leeway < t) co_return AuthError("service account token is not valid yet");
    if (std::string_view(claim) == "exp" && now_s - leeway > t) co_return AuthError("service account token has expired");
    if (std::string_view(claim) == "iat" && now_s + leeway < t) {
      co_return AuthError("service account token is issued in the future");
    }
  }
  json::object k8s;
  if (const auto* v = jwt.claims.if_contains("kubernetes.io"); v && v->is_object()) k8s = v->get_object();
  std::string ns = StrAt(k8s, "namespace");
  Ref sa = RefAt(k8s, "serviceaccount").value_or(Ref{});
  auto pod = RefAt(k8s, "pod");
  auto secret = RefAt(k8s, "secret");
  auto node = RefAt(k8s, "node");
  if (ns.empty() || sa.name.empty()) co_return AuthError("service account token claims could not be validated");
  const auto deleted_limit = now - kJwtLeeway;

  auto sa_obj = co_await config_.getter("serviceaccounts", ns, sa.name);
  if (!sa_obj.ok()) {
    LogDebug("could not retrieve the service account of a token", {{"namespace", ns}, {"name", sa.name}});
    co_return AuthError(sa_obj.status().message());
  }
  if (DeletedBefore(*sa_obj, deleted_limit)) {
    co_return AuthError("service account " + ns + "/" + sa.name + " has been deleted");
  }
  if (am::GetUid(*sa_obj) != sa.uid) {
    co_return AuthError("service account UID (" + std::string(am::GetUid(*sa_obj)) + ") does not match claim (" + sa.uid + ")");
  }
  if (secret) {
    auto obj = co_await config_.getter("secrets", ns, secret->name);
    if (!obj.ok() || DeletedBefore(*obj, deleted_limit)) co_return AuthError("service account token has been invalidated");
    if (am::GetUid(*obj) != secret->uid) {
      co_return AuthError("secret UID (" + std::string(am::GetUid(*obj)) + ") does not match service account secret ref claim (" +
                          secret->uid + ")");
    }
  }
  UserInfo user = ServiceAccountUser(ns, sa.name, sa.uid);
  if (pod) {
    auto obj = co_await config_.getter("pods", ns, pod->name);
    if (!obj.ok() || DeletedBefore(*obj, deleted_limit)) co_return AuthError("service account token has been invalidated");
    if (am::GetUid(*obj) != pod->uid) {
      co_return AuthError("pod UID (" + std::string(am::GetUid(*obj)) + ") does not match service account pod ref claim (" +
                          pod->uid + ")");
    }
    if (!pod->name.empty() && !pod->uid.empty()) {
      user.extra[kPodNameKey] = {pod->name};
      user.extra[kPodUidKey] = {pod->uid};
    }
  }
  if (node) {
    if (!pod) {
      // A token bound to a node object lives as long as that node.
      auto obj = co_await config_.getter("nodes", "", node->name);
      if (!obj.ok() || DeletedBefore(*obj, deleted_limit)) co_return AuthError("service account token has been invalidated");
      if (am::GetUid(*obj) != node->uid) {
        co_return AuthError("node UID (" + std::string(am::GetUid(*obj)) +
                            ") does not match service account node ref claim (" + node->uid + ")");
      }
    }
    if (!node->name.empty()) {
      user.extra[kNodeNameKey] = {node->name};
      if (!node->uid.empty()) user.extra[kNodeUidKey] = {node->uid};
    }
  }
  auto jti = StringClaim(jwt.claims, "jti");
  if (jti.ok() && jti->has_value() && !(*jti)->empty()) user.extra[kCredentialIdKey] = {"JTI=" + **jti};
  co_return user;
}

Task<StatusOr<UserInfo>> ServiceAccountTokenAuthenticator::ValidateLegacy(const std::string& token, const Jwt& jwt) {
  std::string sub = StrAt(jwt.claims, "sub");
  std::string ns = StrAt(jwt.claims, "kubernetes.io/serviceaccount/namespace");
  std::string secret_name = StrAt(jwt.claims, "kubernetes.io/serviceaccount/secret.name");
  std::string sa_name = StrAt(jwt.claims, "kubernetes.io/serviceaccount/service-account.name");
  std::string sa_uid = StrAt(jwt.claims, "kubernetes.io/serviceaccount/service-account.uid");
  if (sub.empty()) co_return AuthError("sub claim is missing");
  if (ns.empty()) co_return AuthError("namespace claim is missing");
  if (secret_name.empty()) co_return AuthError("secretName claim is missing");
  if (sa_name.empty()) co_return AuthError("serviceAccountName claim is missing");
  if (sa_uid.empty()) co_return AuthError("serviceAccountUID claim is missing");
  constexpr std::string_view kPrefix = "system:serviceaccount:";
  auto parts = StartsWith(sub, kPrefix) ? Split(std::string_view(sub).substr(kPrefix.size()), ':') : std::vector<std::string>{};
  if (parts.size() != 2 || !IsDnsLabel(parts[0]) || !IsDnsSubdomain(parts[1]) || parts[0] != ns || parts[1] != sa_name) {
    co_return AuthError("sub claim is invalid");
  }
  if (config_.lookup) {
    const auto deleted_limit = config_.clock->Now() - kJwtLeeway;
    auto secret = co_await config_.getter("secrets", ns, secret_name);
    if (!secret.ok() || DeletedBefore(*secret, deleted_limit)) co_return AuthError("token has been invalidated");
    std::string stored;
    if (const auto* d = secret->if_contains("data"); d && d->is_object()) {
      if (const auto* t = d->get_object().if_contains("token"); t && t->is_string()) {
        if (!Base64Decode(t->get_string(), stored)) stored.clear();
      }
    }
    if (!ConstantTimeEquals(Sha256(stored), Sha256(token))) co_return AuthError("token does not match server's copy");
    auto sa = co_await config_.getter("serviceaccounts", ns, sa_name);
    if (!sa.ok()) co_return AuthError(sa.status().message());
    if (DeletedBefore(*sa, deleted_limit)) co_return AuthError("service account " + ns + "/" + sa_name + " has been deleted");
    if (am::GetUid(*sa) != sa_uid) {
      co_return AuthError("service account UID (" + std::string(am::GetUid(*sa)) + ") does not match claim (" + sa_uid + ")");
    }
    if (auto since = am::GetLabel(*secret, kLegacyTokenInvalidSinceLabel); since && !since->empty()) {
      co_return AuthError("the token in secret " + ns + "/" + secret_name + " for service account " + ns + "/" + sa_name +
                          " has been marked invalid. Use tokens from the TokenRequest API or manually created "
                          "secret-based tokens, or remove the '" + kLegacyTokenInvalidSinceLabel +
                          "' label from the secret to temporarily allow use of this token");
    }
  }
  co_return ServiceAccountUser(ns, sa_name, sa_uid);
}

}  // namespace capstan::authn
