#include "auth/authz/rbac_authorizer.h"

#include <algorithm>
#include <set>

#include "util/strings.h"

namespace capstan::authz {

Result RbacAuthorizer::Decide(const Attributes& a) const {
  auto p = policy();
  Result out;
  std::vector<std::string> errors;
  p->VisitRulesFor(a.user, a.namespace_,
                   [&](const RbacPolicy::ResolvedBinding& b, const Subject& s, const PolicyRule* rule,
                       const std::string* error) {
                     if (rule && RuleAllows(a, *rule)) {
                       out.decision = Decision::kAllow;
                       out.reason = "RBAC: allowed by " + RbacPolicy::Describe(b, s);
                       return false;
                     }
                     if (error) errors.push_back(*error);
                     return true;
                   });
  if (out.decision == Decision::kAllow) return out;
  // kube prints the aggregate with %v: one error as itself, several as [a, b].
  if (!errors.empty()) out.reason = "RBAC: " + AggregateErrors(errors);
  return out;
}

RulesResult RbacAuthorizer::RulesFor(const http::UserInfo& user, const std::string& namespace_) const {
  auto p = policy();
  RulesResult out;
  std::vector<std::string> errors;
  for (auto& r : p->RulesFor(user, namespace_, &errors)) {
    if (!r.resources.empty()) out.resource_rules.push_back({r.verbs, r.api_groups, r.resources, r.resource_names});
    if (!r.non_resource_urls.empty()) out.non_resource_rules.push_back({r.verbs, r.non_resource_urls});
  }
  out.error = AggregateErrors(errors);
  return out;
}

bool RulesAllow(const Attributes& a, const std::vector<PolicyRule>& rules) {
  for (const auto& r : rules) {
    if (RuleAllows(a, r)) return true;
  }
  return false;
}

std::string ConfirmNoEscalation(const RbacPolicy& policy, const http::UserInfo& user, const std::string& namespace_,
                                const std::vector<PolicyRule>& rules) {
  std::vector<std::string> errors;
  std::vector<PolicyRule> owner = policy.RulesFor(user, namespace_, &errors);
  std::vector<PolicyRule> missing;
  if (Covers(owner, rules, &missing)) return "";
  std::set<std::string> descriptions;  // sorted and unique, as kube's sets.String.List()
  for (const auto& m : CompactRules(missing)) descriptions.insert(CompactString(m));
  std::string msg = "user " + GoQuote(user.name) + " (groups=" + GoQuoteList(user.groups) +
                    ") is attempting to grant RBAC permissions not currently held:\n";
  bool first = true;
  for (const auto& d : descriptions) {
    if (!first) msg += "\n";
    first = false;
    msg += d;
  }
  if (!errors.empty()) msg += "; resolution errors: [" + [&] {
    std::string s;
    for (size_t i = 0; i < errors.size(); ++i) s += (i ? " " : "") + errors[i];
    return s;
  }() + "]";
  return msg;
}

}  // namespace capstan::authz
