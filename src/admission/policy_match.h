// admission/policy_match.h: which requests a ValidatingAdmissionPolicy (matchConstraints) or one of
// its bindings (matchResources) applies to, as kube's policy/matching Matcher.
//
// A MatchResources is parsed once from the object: namespaceSelector and objectSelector (empty:
// everything), resourceRules and excludeResourceRules (kube's rule matching of webhook_config.h plus
// resourceNames), matchPolicy (default Equivalent). Matches: the namespace selector (a Namespace's own
// labels for namespaces, always true for other cluster-scoped resources, else the labels of
// `namespace_object`), the object selector (new or old object), not excluded, and one resource rule
// matching (no resourceRules: every resource; kube's binding matchResources default).
// Values; thread-safe once parsed.
#pragma once

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <vector>

#include "admission/plugin.h"
#include "admission/webhook_config.h"
#include "apimachinery/labels.h"

namespace capstan::admission {

struct NamedRule {
  WebhookRule rule;
  std::vector<std::string> resource_names;  // empty: every name
};

struct MatchResources {
  std::optional<apimachinery::LabelSelector> namespace_selector;
  std::optional<apimachinery::LabelSelector> object_selector;
  std::vector<NamedRule> resource_rules;
  std::vector<NamedRule> exclude_resource_rules;
  std::string match_policy = "Equivalent";
  std::string invalid;  // a selector that does not parse
};

// `mr`: matchConstraints or matchResources (null: matches everything).
MatchResources ParseMatchResources(const boost::json::object* mr);

// `namespace_object`: the request's namespace (null for cluster-scoped requests or when absent).
bool PolicyMatches(const MatchResources& m, const Attributes& a, const registry::Object* namespace_object);

}  // namespace capstan::admission
