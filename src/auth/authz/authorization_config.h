// auth/authz/authorization_config.h: the authorizer chain as kube 1.32 describes it, an
// apiserver.config.k8s.io AuthorizationConfiguration (v1, v1beta1 or v1alpha1), read from
// --authorization-config or built from --authorization-mode and the --authorization-webhook-* flags
// (kube's buildAuthorizationConfiguration), so that one builder serves both.
//
// LoadAuthorizationConfiguration is kube's LoadAndValidateData: strict decoding (unknown and
// duplicate fields refused), the defaults (authorizedTTL 5m, unauthorizedTTL 30s), kube's
// ValidateAuthorizationConfiguration with its field paths and texts (webhook fields are reported
// under authorizers[i], as kube reports them), the matchConditions compiled (see
// webhook_match_conditions.h), the names kube-apiserver requires for non-webhook authorizers
// (their type in lower case), and on reload the non-webhook types the server started with
// ("missing required types: [Node RBAC]"). Errors print as kube prints them:
// "failed to load AuthorizationConfiguration from file: ..." or a field-error aggregate.
// Pure functions over values; thread-safe.
#pragma once

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::authz {

struct WebhookAuthorizerConfig {
  std::chrono::nanoseconds authorized_ttl{0};
  std::chrono::nanoseconds unauthorized_ttl{0};
  std::chrono::nanoseconds timeout{0};
  std::string subject_access_review_version;                // v1 or v1beta1
  std::string match_condition_subject_access_review_version;  // v1
  std::string failure_policy;                               // NoOpinion or Deny
  std::string connection_type;                              // KubeConfigFile or InClusterConfig
  std::optional<std::string> kubeconfig_file;
  std::vector<std::string> match_conditions;                // CEL expressions

  bool operator==(const WebhookAuthorizerConfig&) const = default;
};

struct AuthorizerConfig {
  std::string type;  // AlwaysAllow, AlwaysDeny, ABAC, Webhook, RBAC, Node
  std::string name;
  std::optional<WebhookAuthorizerConfig> webhook;

  bool operator==(const AuthorizerConfig&) const = default;
};

struct AuthorizationConfiguration {
  std::vector<AuthorizerConfig> authorizers;

  bool operator==(const AuthorizationConfiguration&) const = default;
};

// Decodes, defaults and validates `data` (YAML or JSON). `required_types`: non-webhook types every
// reloaded file must keep (empty at start).
StatusOr<AuthorizationConfiguration> LoadAuthorizationConfiguration(std::string_view data,
                                                                    const std::set<std::string>& required_types = {});

// The lower-case name kube gives an authorizer built from a mode (GetNameForAuthorizerMode).
std::string AuthorizerNameForMode(std::string_view mode);

}  // namespace capstan::authz
