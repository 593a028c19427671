#include "auth/authn/bootstrap_token.h"

#include <boost/json.hpp>
#include <set>

#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "auth/authn/token_file.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::authn {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

bool IsLowerAlnum(std::string_view s) {
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

// system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]
bool IsBootstrapGroup(std::string_view g) {
  constexpr std::string_view kPrefix = "system:bootstrappers:";
  if (!StartsWith(g, kPrefix)) return false;
  std::string_view rest = g.substr(kPrefix.size());
  if (rest.empty() || rest.size() > 256) return false;
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (i + 1 == rest.size() ? !alnum : !(alnum || c == ':' || c == '-')) return false;
  }
  return true;
}

// A secret's data value (base64 in the stored object), "" when absent or malformed.
std::string DataValue(const json::object& secret, const char* key) {
  const auto* d = secret.if_contains("data");
  if (!d || !d->is_object()) return "";
  const auto* v = d->get_object().if_contains(key);
  std::string out;
  if (!v || !v->is_string() || !Base64Decode(v->get_string(), out)) return "";
  return out;
}

void TokenLog(const std::string& secret, const char* what) {
  LogDebug("bootstrap token secret rejected", {{"secret", "kube-system/" + secret}, {"reason", what}});
}

}  // namespace

std::optional<std::pair<std::string, std::string>> ParseBootstrapToken(std::string_view token) {
  if (token.size() != 23 || token[6] != '.') return std::nullopt;
  std::string_view id = token.substr(0, 6);
  std::string_view secret = token.substr(7);
  if (!IsLowerAlnum(id) || !IsLowerAlnum(secret)) return std::nullopt;
  return std::make_pair(std::string(id), std::string(secret));
}

Task<AuthResult> BootstrapTokenAuthenticator::AuthenticateToken(const std::string& token, const Audiences&) {
  auto parsed = ParseBootstrapToken(token);
  if (!parsed) co_return std::optional<Response>();
  const auto& [id, token_secret] = *parsed;
  std::string name = "bootstrap-token-" + id;
  auto secret = co_await getter_("secrets", "kube-system", name);
  if (!secret.ok()) {
    if (secret.status().code() == 404) co_return std::optional<Response>();
    co_return AuthError(secret.status().message());
  }
  if (am::GetDeletionTimestamp(*secret)) {
    TokenLog(name, "is deleted and awaiting removal");
    co_return std::optional<Response>();
  }
  const auto* type = secret->if_contains("type");
  if (!type || !type->is_string() || type->get_string() != "bootstrap.kubernetes.io/token" || !secret->contains("data")) {
    TokenLog(name, "has invalid type, expected bootstrap.kubernetes.io/token");
    co_return std::optional<Response>();
  }
  if (!ConstantTimeEquals(Sha256(DataValue(*secret, "token-secret")), Sha256(token_secret))) {
    TokenLog(name, "has invalid value for key token-secret");
    co_return std::optional<Response>();
  }
  if (DataValue(*secret, "token-id") != id) {
    TokenLog(name, "has invalid value for key token-id");
    co_return std::optional<Response>();
  }
  std::string expiration = DataValue(*secret, "expiration");
  if (!expiration.empty()) {
    auto t = am::ParseRfc3339(expiration);
    if (!t.ok() || t->ToTimePoint() < clock_->Now()) {
      TokenLog(name, "has expired");
      co_return std::optional<Response>();
    }
  }
  if (DataValue(*secret, "usage-bootstrap-authentication") != "true") {
    TokenLog(name, "not marked usage-bootstrap-authentication=true");
    co_return std::optional<Response>();
  }
  std::set<std::string> groups = {"system:bootstrappers"};
  std::string extra = DataValue(*secret, "auth-extra-groups");
  if (!extra.empty()) {
    for (const auto& g : Split(extra, ',')) {
      if (!IsBootstrapGroup(g)) {
        TokenLog(name, "has invalid value for key auth-extra-groups");
        co_return std::optional<Response>();
      }
      groups.insert(g);
    }
  }
  Response r;
  r.user.name = "system:bootstrap:" + id;
  r.user.groups.assign(groups.begin(), groups.end());
  co_return std::optional<Response>(std::move(r));
}

}  // namespace capstan::authn
