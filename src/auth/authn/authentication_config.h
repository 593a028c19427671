// auth/authn/authentication_config.h: the JWT authenticators and the anonymous authenticator as kube
// 1.32 describes them, an apiserver.config.k8s.io AuthenticationConfiguration (v1beta1 or v1alpha1),
// read from --authentication-config or built from the --oidc-* flags (kube's ToAuthenticationConfig),
// so that one JWT authenticator (oidc.h) serves both.
//
// DecodeAuthenticationConfiguration is kube's loadAuthenticationConfigFromData: strict decoding
// (unknown and duplicate fields refused, "empty config data"). ValidateAuthenticationConfiguration
// is kube's, with its field paths and texts: at most 64 authenticators, issuer URLs https without
// user, query or fragment, unique and not one of the service-account issuers, discoveryURL different
// from the URL, audiences with audienceMatchPolicy, a parsable certificateAuthority, claim or
// expression (never both) for each mapping, prefix required with a claim, extra keys domain-prefixed,
// lower case and outside k8s.io/kubernetes.io, every CEL expression compiled (claims in
// cel::ClaimsEnv, user in cel::UserEnv; validation rules must be bool), claims.email in the username
// expression only together with claims.email_verified, anonymous conditions only when enabled.
// CompileJwtAuthenticator is kube's CompileAndValidateJWTAuthenticator for one authenticator: the
// same checks with paths relative to it, and the compiled programs.
// Pure functions over values; thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apimachinery/field_errors.h"
#include "apimachinery/status.h"

namespace capstan::cel {
class Program;
}

namespace capstan::authn {

struct PrefixedClaimOrExpression {
  std::string claim;
  std::optional<std::string> prefix;
  std::string expression;
  bool operator==(const PrefixedClaimOrExpression&) const = default;
};

struct ClaimValidationRule {
  std::string claim;
  std::string required_value;
  std::string expression;
  std::string message;
  bool operator==(const ClaimValidationRule&) const = default;
};

struct ExtraMapping {
  std::string key;
  std::string value_expression;
  bool operator==(const ExtraMapping&) const = default;
};

struct UserValidationRule {
  std::string expression;
  std::string message;
  bool operator==(const UserValidationRule&) const = default;
};

struct JwtAuthenticatorConfig {
  // issuer
  std::string url;
  std::string discovery_url;
  std::string certificate_authority;  // PEM; empty: the system roots
  std::vector<std::string> audiences;
  std::string audience_match_policy;  // "" or MatchAny
  std::vector<ClaimValidationRule> claim_validation_rules;
  // claimMappings
  PrefixedClaimOrExpression username;
  PrefixedClaimOrExpression groups;
  std::string uid_claim;
  std::string uid_expression;
  std::vector<ExtraMapping> extra;
  std::vector<UserValidationRule> user_validation_rules;
  bool operator==(const JwtAuthenticatorConfig&) const = default;
};

struct AnonymousAuthConfig {
  bool enabled = false;
  std::vector<std::string> condition_paths;  // empty: every path
  bool operator==(const AnonymousAuthConfig&) const = default;
};

struct AuthenticationConfiguration {
  std::vector<JwtAuthenticatorConfig> jwt;
  std::optional<AnonymousAuthConfig> anonymous;
  bool operator==(const AuthenticationConfiguration&) const = default;
};

// kube's CELMapper: the compiled expressions of one JWT authenticator (null/empty where the
// configuration has none).
struct ClaimMappingPrograms {
  using ProgramPtr = std::shared_ptr<const cel::Program>;
  ProgramPtr username, groups, uid;
  std::vector<std::pair<std::string, ProgramPtr>> extra;              // key, valueExpression
  std::vector<std::pair<ProgramPtr, std::string>> claim_validation;  // expression, message
  std::vector<std::pair<ProgramPtr, std::string>> user_validation;   // expression, message
  bool any_claims_expression() const { return username || groups || uid || !extra.empty() || !claim_validation.empty(); }
};

// Decodes `data` (YAML or JSON); errors are kube's load errors.
StatusOr<AuthenticationConfiguration> DecodeAuthenticationConfiguration(std::string_view data);

ErrorList ValidateAuthenticationConfiguration(const AuthenticationConfiguration& c,
                                              const std::vector<std::string>& disallowed_issuers);

struct CompiledJwtAuthenticator {
  ClaimMappingPrograms programs;
  ErrorList errors;
};
CompiledJwtAuthenticator CompileJwtAuthenticator(const JwtAuthenticatorConfig& c,
                                                 const std::vector<std::string>& disallowed_issuers);

}  // namespace capstan::authn
