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
// matchConditions are compiled here, once per configuration version (match_conditions.h).
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
#include "registry/admission_hook.h"
#include "registry/rest.h"

namespace capstan::admission {

class MatchConditions;

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
  std::shared_ptr<const MatchConditions> match_conditions;  // null: none
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

// The parts of a request rule matching looks at (`a.resource` set).
MatchRequest MatchRequestFor(const registry::AdmissionAttributes& a);
// One rule object (operations, apiGroups, apiVersions, resources, scope).
WebhookRule ParseRule(const boost::json::object& r);
// metadata.labels of an object; null when absent.
const boost::json::object* LabelsOf(const registry::Object* obj);
// A label selector field (nullopt when absent or null); a bad one sets `invalid`.
std::optional<apimachinery::LabelSelector> SelectorField(const boost::json::object& o, std::string_view key,
                                                         std::string& invalid);
// A string field ("" when absent or not a string) and a list of strings (non-strings skipped).
std::string StringField(const boost::json::object& o, std::string_view key);
std::vector<std::string> StringsField(const boost::json::object& o, std::string_view key);

std::vector<Webhook> ParseWebhooks(const std::vector<registry::Object>& configurations, bool mutating);

}  // namespace capstan::admission
