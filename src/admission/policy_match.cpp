#include "admission/policy_match.h"

#include <algorithm>
#include <boost/json.hpp>

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

std::vector<NamedRule> Rules(const json::object& o, std::string_view key) {
  std::vector<NamedRule> out;
  const json::value* v = o.if_contains(key);
  if (!v || !v->is_array()) return out;
  for (const auto& rv : v->as_array()) {
    if (!rv.is_object()) continue;
    NamedRule n;
    n.rule = ParseRule(rv.as_object());
    n.resource_names = StringsField(rv.as_object(), "resourceNames");
    out.push_back(std::move(n));
  }
  return out;
}

bool AnyRuleMatches(const std::vector<NamedRule>& rules, const std::string& match_policy, const Attributes& a) {
  MatchRequest mr = MatchRequestFor(a);
  for (bool equivalent : {false, true}) {
    if (equivalent && match_policy != "Equivalent") break;
    for (const auto& r : rules) {
      if (!r.resource_names.empty() &&
          std::find(r.resource_names.begin(), r.resource_names.end(), a.name) == r.resource_names.end()) {
        continue;
      }
      if (RuleMatches(r.rule, mr, equivalent)) return true;
    }
  }
  return false;
}

}  // namespace

MatchResources ParseMatchResources(const json::object* mr) {
  MatchResources m;
  if (!mr) return m;
  m.namespace_selector = SelectorField(*mr, "namespaceSelector", m.invalid);
  m.object_selector = SelectorField(*mr, "objectSelector", m.invalid);
  m.resource_rules = Rules(*mr, "resourceRules");
  m.exclude_resource_rules = Rules(*mr, "excludeResourceRules");
  if (std::string mp = StringField(*mr, "matchPolicy"); !mp.empty()) m.match_policy = mp;
  return m;
}

bool PolicyMatches(const MatchResources& m, const Attributes& a, const registry::Object* namespace_object) {
  if (!a.resource) return false;
  if (m.namespace_selector && !m.namespace_selector->Empty()) {
    if (a.resource->resource == "namespaces" && a.subresource.empty()) {
      const registry::Object* obj = a.operation == "DELETE" ? a.old_object : a.object;
      if (!m.namespace_selector->Matches(LabelsOf(obj))) return false;
    } else if (a.resource->namespaced && !m.namespace_selector->Matches(LabelsOf(namespace_object))) {
      return false;
    }
  }
  if (m.object_selector && !m.object_selector->Empty()) {
    bool match = (a.object && a.operation != "DELETE" && m.object_selector->Matches(LabelsOf(a.object))) ||
                 (a.old_object && m.object_selector->Matches(LabelsOf(a.old_object)));
    if (!match) return false;
  }
  if (AnyRuleMatches(m.exclude_resource_rules, m.match_policy, a)) return false;
  if (m.resource_rules.empty()) return true;
  return AnyRuleMatches(m.resource_rules, m.match_policy, a);
}

}  // namespace capstan::admission
