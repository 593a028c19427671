// auth/authn/config.h: the authentication settings, one field per kube-apiserver flag (plus Capstan's
// --basic-auth-file). cmd/ fills it from the command line and hands it to BuildAuthentication
// (build.h). Plain data.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace capstan::authn {

struct AuthenticationConfig {
  bool anonymous = true;       // --anonymous-auth
  bool anonymous_set = false;  // --anonymous-auth was given
  // --authentication-config (an AuthenticationConfiguration file), re-read every reload interval.
  std::string authentication_config_file;
  std::chrono::milliseconds authentication_config_reload_interval{1000};
  std::string client_ca_file;  // --client-ca-file

  // Front proxy.
  std::string requestheader_client_ca_file;
  std::vector<std::string> requestheader_allowed_names;
  std::vector<std::string> requestheader_username_headers;
  std::vector<std::string> requestheader_uid_headers;
  std::vector<std::string> requestheader_group_headers;
  std::vector<std::string> requestheader_extra_headers_prefix;

  std::string basic_auth_file;  // Capstan's: kube removed it in 1.19
  std::string token_auth_file;

  // Service accounts.
  std::vector<std::string> service_account_key_files;  // default: the signing key file
  std::string service_account_signing_key_file;
  std::vector<std::string> service_account_issuers;    // the first one signs
  std::vector<std::string> api_audiences;              // default: the issuers
  bool service_account_lookup = true;
  std::chrono::nanoseconds service_account_max_token_expiration{0};
  bool service_account_extend_token_expiration = true;
  std::string service_account_jwks_uri;

  bool enable_bootstrap_token_auth = false;

  // OIDC.
  std::string oidc_issuer_url;
  std::string oidc_client_id;
  std::string oidc_ca_file;
  std::string oidc_username_claim = "sub";
  std::string oidc_username_prefix;
  bool oidc_username_prefix_set = false;
  std::string oidc_groups_claim;
  std::string oidc_groups_prefix;
  std::vector<std::string> oidc_signing_algs = {"RS256"};
  std::map<std::string, std::string> oidc_required_claims;
  bool oidc_flags_set = false;  // any --oidc-* flag was given

  // Token webhook.
  std::string webhook_config_file;
  std::string webhook_version = "v1beta1";
  std::chrono::nanoseconds webhook_cache_ttl = std::chrono::minutes(2);

  // The cache in front of every token authenticator (kube-apiserver's fixed values).
  std::chrono::nanoseconds token_success_cache_ttl = std::chrono::seconds(10);
  std::chrono::nanoseconds token_failure_cache_ttl{0};
};

}  // namespace capstan::authn
