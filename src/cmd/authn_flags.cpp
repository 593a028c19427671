#include "cmd/authn_flags.h"

#include <functional>
#include <map>

#include "util/duration.h"
#include "util/strings.h"

namespace capstan::cmd {

namespace {

using Config = authn::AuthenticationConfig;
using Setter = std::function<Status(Config&, const std::string&)>;

std::vector<std::string> SplitList(const std::string& v) {
  std::vector<std::string> out;
  for (const auto& p : Split(v, ',')) {
    std::string t(TrimSpace(p));
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

bool ParseBool(const std::string& v) {
  std::string l = ToLower(v);
  return l == "1" || l == "t" || l == "true";
}

Setter String(std::string Config::*field) {
  return [field](Config& c, const std::string& v) {
    c.*field = v;
    return Status();
  };
}

Setter Slice(std::vector<std::string> Config::*field) {
  return [field](Config& c, const std::string& v) {
    for (auto& x : SplitList(v)) (c.*field).push_back(x);
    return Status();
  };
}

Setter Array(std::vector<std::string> Config::*field) {
  return [field](Config& c, const std::string& v) {
    (c.*field).push_back(v);
    return Status();
  };
}

Setter Bool(bool Config::*field) {
  return [field](Config& c, const std::string& v) {
    c.*field = ParseBool(v);
    return Status();
  };
}

Setter Duration(std::chrono::nanoseconds Config::*field, const char* flag) {
  return [field, flag](Config& c, const std::string& v) {
    auto d = ParseGoDuration(v);
    if (!d) return Status(400, "BadRequest", "invalid argument " + GoQuote(v) + " for \"--" + flag + "\" flag: time: invalid duration " + GoQuote(v));
    c.*field = *d;
    return Status();
  };
}

const std::map<std::string, Setter>& Setters() {
  static const std::map<std::string, Setter> kSetters = {
      {"requestheader-client-ca-file", String(&Config::requestheader_client_ca_file)},
      {"requestheader-allowed-names", Slice(&Config::requestheader_allowed_names)},
      {"requestheader-username-headers", Slice(&Config::requestheader_username_headers)},
      {"requestheader-uid-headers", Slice(&Config::requestheader_uid_headers)},
      {"requestheader-group-headers", Slice(&Config::requestheader_group_headers)},
      {"requestheader-extra-headers-prefix", Slice(&Config::requestheader_extra_headers_prefix)},
      {"basic-auth-file", String(&Config::basic_auth_file)},
      {"token-auth-file", String(&Config::token_auth_file)},
      {"service-account-key-file", Array(&Config::service_account_key_files)},
      {"service-account-signing-key-file", String(&Config::service_account_signing_key_file)},
      {"service-account-issuer", Array(&Config::service_account_issuers)},
      {"api-audiences", Slice(&Config::api_audiences)},
      {"service-account-lookup", Bool(&Config::service_account_lookup)},
      {"service-account-max-token-expiration",
       Duration(&Config::service_account_max_token_expiration, "service-account-max-token-expiration")},
      {"service-account-extend-token-expiration", Bool(&Config::service_account_extend_token_expiration)},
      {"service-account-jwks-uri", String(&Config::service_account_jwks_uri)},
      {"enable-bootstrap-token-auth", Bool(&Config::enable_bootstrap_token_auth)},
      {"oidc-issuer-url", String(&Config::oidc_issuer_url)},
      {"oidc-client-id", String(&Config::oidc_client_id)},
      {"oidc-ca-file", String(&Config::oidc_ca_file)},
      {"oidc-username-claim", String(&Config::oidc_username_claim)},
      {"oidc-username-prefix",
       [](Config& c, const std::string& v) {
         c.oidc_username_prefix = v;
         c.oidc_username_prefix_set = true;
         return Status();
       }},
      {"oidc-groups-claim", String(&Config::oidc_groups_claim)},
      {"oidc-groups-prefix", String(&Config::oidc_groups_prefix)},
      {"oidc-signing-algs",
       [](Config& c, const std::string& v) {
         // pflag: the first occurrence replaces the default, later ones append.
         if (c.oidc_signing_algs == std::vector<std::string>{"RS256"}) c.oidc_signing_algs.clear();
         for (auto& x : SplitList(v)) c.oidc_signing_algs.push_back(x);
         return Status();
       }},
      {"oidc-required-claim",
       [](Config& c, const std::string& v) {
         auto eq = v.find('=');
         if (eq == std::string::npos) {
           return Status(400, "BadRequest", "invalid argument " + GoQuote(v) + " for \"--oidc-required-claim\" flag: " +
                                                GoQuote(v) + " must be formatted as key=value");
         }
         c.oidc_required_claims[v.substr(0, eq)] = v.substr(eq + 1);
         return Status();
       }},
      {"authentication-token-webhook-config-file", String(&Config::webhook_config_file)},
      {"authentication-token-webhook-version",
       [](Config& c, const std::string& v) {
         if (v != "v1" && v != "v1beta1") {
           return Status(400, "BadRequest", "unsupported authentication webhook version " + GoQuote(v) +
                                                ", supported versions are \"v1\", \"v1beta1\"");
         }
         c.webhook_version = v;
         return Status();
       }},
      {"authentication-token-webhook-cache-ttl",
       Duration(&Config::webhook_cache_ttl, "authentication-token-webhook-cache-ttl")},
  };
  return kSetters;
}

}  // namespace

std::optional<Status> SetAuthenticationFlag(authn::AuthenticationConfig& config, const std::string& name,
                                            const std::string& value) {
  const auto& setters = Setters();
  auto it = setters.find(name);
  if (it == setters.end()) return std::nullopt;
  return it->second(config, value);
}

}  // namespace capstan::cmd
