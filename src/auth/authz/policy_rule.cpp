#include "auth/authz/policy_rule.h"

#include <boost/json.hpp>
#include <map>
#include <set>
#include <unordered_set>

#include "util/strings.h"

namespace capstan::authz {

namespace json = boost::json;

namespace {

std::vector<std::string> StringList(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (!v || !v->is_array()) return out;
  out.reserve(v->get_array().size());
  for (const auto& x : v->get_array()) {
    if (x.is_string()) out.emplace_back(x.get_string());
  }
  return out;
}

json::array ToArray(const std::vector<std::string>& v) {
  json::array a;
  a.reserve(v.size());
  for (const auto& s : v) a.emplace_back(s);
  return a;
}

bool Has(const std::vector<std::string>& set, std::string_view e) {
  for (const auto& s : set) {
    if (s == e) return true;
  }
  return false;
}

bool HasAll(const std::vector<std::string>& set, const std::vector<std::string>& contains) {
  for (const auto& e : contains) {
    if (!Has(set, e)) return false;
  }
  return true;
}

bool ResourceCoversAll(const std::vector<std::string>& set, const std::vector<std::string>& covers) {
  if (Has(set, "*") || HasAll(set, covers)) return true;
  for (const auto& path : covers) {
    if (Has(set, path)) continue;
    size_t slash = path.find('/');
    if (slash == std::string::npos) return false;
    if (!Has(set, "*/" + path.substr(slash + 1))) return false;
  }
  return true;
}

bool NonResourceUrlCovers(std::string_view owner, std::string_view sub) {
  if (owner == sub) return true;
  if (owner.empty() || owner.back() != '*') return false;
  std::string_view prefix = owner;
  while (!prefix.empty() && prefix.back() == '*') prefix.remove_suffix(1);
  return StartsWith(sub, prefix);
}

bool NonResourceUrlsCoverAll(const std::vector<std::string>& set, const std::vector<std::string>& covers) {
  for (const auto& path : covers) {
    bool covered = false;
    for (const auto& owner : set) {
      if (NonResourceUrlCovers(owner, path)) {
        covered = true;
        break;
      }
    }
    if (!covered) return false;
  }
  return true;
}

// Whether owner covers sub (a rule with at most one verb, resource and name).
bool RuleCovers(const PolicyRule& owner, const PolicyRule& sub) {
  bool verbs = Has(owner.verbs, "*") || HasAll(owner.verbs, sub.verbs);
  bool groups = Has(owner.api_groups, "*") || HasAll(owner.api_groups, sub.api_groups);
  bool resources = ResourceCoversAll(owner.resources, sub.resources);
  bool urls = NonResourceUrlsCoverAll(owner.non_resource_urls, sub.non_resource_urls);
  bool names = sub.resource_names.empty() ? owner.resource_names.empty()
                                          : owner.resource_names.empty() || HasAll(owner.resource_names, sub.resource_names);
  return verbs && groups && resources && names && urls;
}

}  // namespace

PolicyRule PolicyRuleFromJson(const json::object& o) {
  PolicyRule r;
  r.verbs = StringList(o, "verbs");
  r.api_groups = StringList(o, "apiGroups");
  r.resources = StringList(o, "resources");
  r.resource_names = StringList(o, "resourceNames");
  r.non_resource_urls = StringList(o, "nonResourceURLs");
  return r;
}

std::vector<PolicyRule> PolicyRulesFromJson(const json::value* rules) {
  std::vector<PolicyRule> out;
  if (!rules || !rules->is_array()) return out;
  out.reserve(rules->get_array().size());
  for (const auto& r : rules->get_array()) {
    if (r.is_object()) out.push_back(PolicyRuleFromJson(r.get_object()));
  }
  return out;
}

json::object PolicyRuleToJson(const PolicyRule& r) {
  json::object o;
  o["verbs"] = ToArray(r.verbs);
  if (!r.api_groups.empty()) o["apiGroups"] = ToArray(r.api_groups);
  if (!r.resources.empty()) o["resources"] = ToArray(r.resources);
  if (!r.resource_names.empty()) o["resourceNames"] = ToArray(r.resource_names);
  if (!r.non_resource_urls.empty()) o["nonResourceURLs"] = ToArray(r.non_resource_urls);
  return o;
}

json::array PolicyRulesToJson(const std::vector<PolicyRule>& rules) {
  json::array a;
  a.reserve(rules.size());
  for (const auto& r : rules) a.emplace_back(PolicyRuleToJson(r));
  return a;
}

bool VerbMatches(const PolicyRule& r, std::string_view verb) {
  for (const auto& v : r.verbs) {
    if (v == "*" || v == verb) return true;
  }
  return false;
}

bool ApiGroupMatches(const PolicyRule& r, std::string_view group) {
  for (const auto& g : r.api_groups) {
    if (g == "*" || g == group) return true;
  }
  return false;
}

bool ResourceMatches(const PolicyRule& r, std::string_view combined, std::string_view subresource) {
  for (const auto& res : r.resources) {
    if (res == "*" || res == combined) return true;
    if (subresource.empty()) continue;
    if (res.size() == subresource.size() + 2 && res[0] == '*' && res[1] == '/' &&
        std::string_view(res).substr(2) == subresource) {
      return true;
    }
  }
  return false;
}

bool ResourceNameMatches(const PolicyRule& r, std::string_view name) {
  if (r.resource_names.empty()) return true;
  for (const auto& n : r.resource_names) {
    if (n == name) return true;
  }
  return false;
}

bool NonResourceUrlMatches(const PolicyRule& r, std::string_view path) {
  for (const auto& u : r.non_resource_urls) {
    if (u == "*" || u == path) return true;
    if (!u.empty() && u.back() == '*') {
      std::string_view prefix = u;
      while (!prefix.empty() && prefix.back() == '*') prefix.remove_suffix(1);
      if (StartsWith(path, prefix)) return true;
    }
  }
  return false;
}

bool RuleAllows(const Attributes& a, const PolicyRule& r) {
  if (!VerbMatches(r, a.verb)) return false;
  if (!a.resource_request) return NonResourceUrlMatches(r, a.path);
  if (!ApiGroupMatches(r, a.api_group)) return false;
  if (a.subresource.empty()) {
    if (!ResourceMatches(r, a.resource, "")) return false;
  } else {
    std::string combined;
    combined.reserve(a.resource.size() + 1 + a.subresource.size());
    combined.append(a.resource).append("/").append(a.subresource);
    if (!ResourceMatches(r, combined, a.subresource)) return false;
  }
  return ResourceNameMatches(r, a.name);
}

std::vector<PolicyRule> BreakdownRule(const PolicyRule& r) {
  std::vector<PolicyRule> out;
  for (const auto& g : r.api_groups) {
    for (const auto& res : r.resources) {
      for (const auto& v : r.verbs) {
        if (!r.resource_names.empty()) {
          for (const auto& n : r.resource_names) out.push_back(PolicyRule{{v}, {g}, {res}, {n}, {}});
        } else {
          out.push_back(PolicyRule{{v}, {g}, {res}, {}, {}});
        }
      }
    }
  }
  for (const auto& u : r.non_resource_urls) {
    for (const auto& v : r.verbs) out.push_back(PolicyRule{{v}, {}, {}, {}, {u}});
  }
  return out;
}

bool Covers(const std::vector<PolicyRule>& owner, const std::vector<PolicyRule>& servant,
            std::vector<PolicyRule>* uncovered) {
  bool all = true;
  for (const auto& s : servant) {
    for (auto& sub : BreakdownRule(s)) {
      bool covered = false;
      for (const auto& o : owner) {
        if (RuleCovers(o, sub)) {
          covered = true;
          break;
        }
      }
      if (!covered) {
        all = false;
        if (!uncovered) return false;
        uncovered->push_back(std::move(sub));
      }
    }
  }
  return all;
}

std::vector<PolicyRule> CompactRules(const std::vector<PolicyRule>& rules) {
  std::vector<PolicyRule> out;
  std::map<std::pair<std::string, std::string>, size_t> simple;  // (group, resource) → index in merged
  std::vector<PolicyRule> merged;
  for (const auto& r : rules) {
    bool is_simple = r.resource_names.empty() && r.non_resource_urls.empty() && r.api_groups.size() == 1 &&
                     r.resources.size() == 1;
    if (!is_simple) {
      out.push_back(r);
      continue;
    }
    auto key = std::make_pair(r.api_groups[0], r.resources[0]);
    auto it = simple.find(key);
    if (it == simple.end()) {
      simple.emplace(key, merged.size());
      merged.push_back(r);
    } else {
      auto& m = merged[it->second];
      m.verbs.insert(m.verbs.end(), r.verbs.begin(), r.verbs.end());
    }
  }
  for (auto& m : merged) out.push_back(std::move(m));
  return out;
}

std::string GoQuoteList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += " ";
    out += GoQuote(v[i]);
  }
  out += "]";
  return out;
}

std::string CompactString(const PolicyRule& r) {
  std::vector<std::string> parts;
  if (!r.api_groups.empty()) parts.push_back("APIGroups:" + GoQuoteList(r.api_groups));
  if (!r.resources.empty()) parts.push_back("Resources:" + GoQuoteList(r.resources));
  if (!r.non_resource_urls.empty()) parts.push_back("NonResourceURLs:" + GoQuoteList(r.non_resource_urls));
  if (!r.resource_names.empty()) parts.push_back("ResourceNames:" + GoQuoteList(r.resource_names));
  if (!r.verbs.empty()) parts.push_back("Verbs:" + GoQuoteList(r.verbs));
  return "{" + Join(parts, ", ") + "}";
}

}  // namespace capstan::authz
