// admission/webhook_config.h: the webhooks of admissionregistration.k8s.io/v1
// Mutating/ValidatingWebhookConfigurations as the dispatchers use them, and which requests each
// webhook is called for.
//
// ParseWebhooks reads every configuration's webhooks in kube's order (configurations sorted by name,
// webhooks in list order) with kube's defaults for fields left out (failurePolicy Fail, matchPolicy
// Equivalent, timeoutSeconds 10, reinvocationPolicy Never, empty selectors match everything, service
// port 443). A webhook whose clientConfig cannot be used (no url or service, a bad caBundle, a bad
// selector) keeps an `invalid` reason: calling it fails as kube's client manager does, so
// failurePolicy decides.
//
// Matches() is kube's rule matching: operations ("*" or the operation), apiGroups, apiVersions,
// resources ("*", "*/*", "pods", "pods/*", "*/status", "pods/status"), scope ("*", "Cluster",
// "Namespaced"); matchPolicy Equivalent also matches the same group and resource in another version.
// Values; thread-safe once built.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apimachinery/labels.h"
#include "registry/rest.h"

namespace capstan::admission {

struct WebhookRule {
  std::vector<std::string> operations;
  std::vector<std::string> api_groups;
  std::vector<std::string> api_versions;
  std::vector<std::string> resources;
  std::string scope = "*";
};

struct Webhook {
  std::string configuration;  // the configuration's name
  std::string name;
  bool mutating = false;
  std::string url;  // clientConfig.url, or the service's https URL
  std::string service_namespace, service_name, service_path;
  int service_port = 443;
  std::string ca_pem;  // clientConfig.caBundle, decoded
  std::vector<WebhookRule> rules;
  std::string failure_policy = "Fail";
  std::string match_policy = "Equivalent";
  std::optional<apimachinery::LabelSelector> namespace_selector;  // nullopt: everything
  std::optional<apimachinery::LabelSelector> object_selector;
  std::optional<std::string> side_effects;
  int timeout_seconds = 10;
  std::vector<std::string> review_versions;
  std::string reinvocation_policy = "Never";
  bool has_match_conditions = false;
  std::string invalid;  // why this webhook cannot be called, "" when it can
};

// What a request looks like to rule matching.
struct MatchRequest {
  std::string operation;
  std::string group, version, resource, subresource;
  bool namespaced = true;
};

bool RuleMatches(const WebhookRule& rule, const MatchRequest& r, bool equivalent);
bool RulesMatch(const Webhook& w, const MatchRequest& r);

std::vector<Webhook> ParseWebhooks(const std::vector<registry::Object>& configurations, bool mutating);

}  // namespace capstan::admission
