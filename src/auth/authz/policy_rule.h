// auth/authz/policy_rule.h: rbac.authorization.k8s.io/v1 PolicyRule and the algebra on it that RBAC
// needs: does a rule allow a request (verbs, apiGroups, resources with `resource/subresource` and
// `*/subresource`, resourceNames, nonResourceURLs with `*` suffixes), does one set of rules cover
// another (escalation checks, bootstrap reconciliation), and kube's compact printing of rules in
// escalation messages. Values and pure functions; thread-compatible.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "auth/authz/authorizer.h"

namespace capstan::authz {

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;
  bool operator==(const PolicyRule&) const = default;
};

// A rule from its JSON form; fields of the wrong type read as empty.
PolicyRule PolicyRuleFromJson(const boost::json::object& o);
// The `rules` array of a Role or ClusterRole (null or not an array: none).
std::vector<PolicyRule> PolicyRulesFromJson(const boost::json::value* rules);
// The JSON form as kube writes it (empty lists omitted, apiGroups kept when resources are set).
boost::json::object PolicyRuleToJson(const PolicyRule& r);
boost::json::array PolicyRulesToJson(const std::vector<PolicyRule>& rules);

bool VerbMatches(const PolicyRule& r, std::string_view verb);
bool ApiGroupMatches(const PolicyRule& r, std::string_view group);
// `combined` is "resource" or "resource/subresource".
bool ResourceMatches(const PolicyRule& r, std::string_view combined, std::string_view subresource);
bool ResourceNameMatches(const PolicyRule& r, std::string_view name);
bool NonResourceUrlMatches(const PolicyRule& r, std::string_view path);

// kube's RuleAllows: the rule grants the request the attributes describe.
bool RuleAllows(const Attributes& a, const PolicyRule& r);

// kube's BreakdownRule: one rule per (group, resource, verb[, name]) and per (url, verb).
std::vector<PolicyRule> BreakdownRule(const PolicyRule& r);
// kube's Covers: whether `owner` allows everything `servant` does; the atomic rules it does not cover
// go to `uncovered` (when given).
bool Covers(const std::vector<PolicyRule>& owner, const std::vector<PolicyRule>& servant,
            std::vector<PolicyRule>* uncovered = nullptr);
// kube's CompactRules: rules with one group and one resource and nothing else but verbs are merged.
std::vector<PolicyRule> CompactRules(const std::vector<PolicyRule>& rules);
// kube's CompactString: {APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}.
std::string CompactString(const PolicyRule& r);

// Go's %q of a []string: ["a" "b"].
std::string GoQuoteList(const std::vector<std::string>& v);

}  // namespace capstan::authz
