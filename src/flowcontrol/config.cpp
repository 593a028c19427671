#include "flowcontrol/config.h"

#include <boost/json.hpp>

namespace capstan::flowcontrol {

namespace json = boost::json;

namespace {

const json::value* At(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* cur = &v;
  for (auto key : path) {
    if (!cur->is_object()) return nullptr;
    cur = cur->as_object().if_contains(key);
    if (!cur) return nullptr;
  }
  return cur;
}

std::string Str(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* p = At(v, path);
  return p && p->is_string() ? std::string(p->as_string()) : std::string();
}

std::optional<int64_t> Int(const json::value& v, std::initializer_list<std::string_view> path) {
  const json::value* p = At(v, path);
  if (!p) return std::nullopt;
  if (p->is_int64()) return p->as_int64();
  if (p->is_uint64()) return static_cast<int64_t>(p->as_uint64());
  if (p->is_double()) {
    // Stored objects hold int32s; a double out of int64's range is not a number kube would read.
    double d = p->as_double();
    if (!(d >= -9.2e18 && d <= 9.2e18)) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::vector<std::string> Strings(const json::value& v, std::string_view key) {
  std::vector<std::string> out;
  const json::value* p = At(v, {key});
  if (!p || !p->is_array()) return out;
  for (const auto& e : p->as_array()) {
    if (e.is_string()) out.emplace_back(e.as_string());
  }
  return out;
}

Status Bad(std::string what) { return Status(400, "BadRequest", std::move(what)); }

Subject ParseSubject(const json::value& s) {
  Subject out;
  std::string kind = Str(s, {"kind"});
  if (kind == "User" && At(s, {"user"})) {
    out.kind = Subject::Kind::kUser;
    out.name = Str(s, {"user", "name"});
  } else if (kind == "Group" && At(s, {"group"})) {
    out.kind = Subject::Kind::kGroup;
    out.name = Str(s, {"group", "name"});
  } else if (kind == "ServiceAccount" && At(s, {"serviceAccount"})) {
    out.kind = Subject::Kind::kServiceAccount;
    out.name = Str(s, {"serviceAccount", "name"});
    out.namespace_ = Str(s, {"serviceAccount", "namespace"});
  }
  return out;
}

ResourceRule AllResources() { return {{"*"}, {"*"}, {"*"}, true, {"*"}}; }
NonResourceRule AllNonResources() { return {{"*"}, {"*"}}; }

FlowSchema Mandatory(std::string name, int precedence, Distinguisher d, std::vector<std::string> groups) {
  FlowSchema fs;
  fs.name = name;
  fs.priority_level = name;
  fs.matching_precedence = precedence;
  fs.distinguisher = d;
  PolicyRule rule;
  for (auto& g : groups) rule.subjects.push_back({Subject::Kind::kGroup, std::move(g), ""});
  rule.resource_rules.push_back(AllResources());
  rule.non_resource_rules.push_back(AllNonResources());
  fs.rules.push_back(std::move(rule));
  return fs;
}

}  // namespace

StatusOr<FlowSchema> ParseFlowSchema(const json::value& obj) {
  FlowSchema fs;
  fs.name = Str(obj, {"metadata", "name"});
  fs.uid = Str(obj, {"metadata", "uid"});
  if (fs.name.empty()) return Bad("flow schema without a name");
  fs.priority_level = Str(obj, {"spec", "priorityLevelConfiguration", "name"});
  if (fs.priority_level.empty()) return Bad("flow schema " + fs.name + " names no priority level");
  fs.matching_precedence = static_cast<int>(Int(obj, {"spec", "matchingPrecedence"}).value_or(1000));
  std::string method = Str(obj, {"spec", "distinguisherMethod", "type"});
  if (method == "ByUser") {
    fs.distinguisher = Distinguisher::kByUser;
  } else if (method == "ByNamespace") {
    fs.distinguisher = Distinguisher::kByNamespace;
  } else if (!method.empty()) {
    return Bad("flow schema " + fs.name + " has an unknown distinguisher method " + method);
  }
  if (const json::value* rules = At(obj, {"spec", "rules"}); rules && rules->is_array()) {
    for (const auto& r : rules->as_array()) {
      PolicyRule rule;
      if (const json::value* subjects = At(r, {"subjects"}); subjects && subjects->is_array()) {
        for (const auto& s : subjects->as_array()) rule.subjects.push_back(ParseSubject(s));
      }
      if (const json::value* rr = At(r, {"resourceRules"}); rr && rr->is_array()) {
        for (const auto& x : rr->as_array()) {
          ResourceRule out;
          out.verbs = Strings(x, "verbs");
          out.api_groups = Strings(x, "apiGroups");
          out.resources = Strings(x, "resources");
          const json::value* cs = At(x, {"clusterScope"});
          out.cluster_scope = cs && cs->is_bool() && cs->as_bool();
          out.namespaces = Strings(x, "namespaces");
          rule.resource_rules.push_back(std::move(out));
        }
      }
      if (const json::value* nr = At(r, {"nonResourceRules"}); nr && nr->is_array()) {
        for (const auto& x : nr->as_array()) rule.non_resource_rules.push_back({Strings(x, "verbs"), Strings(x, "nonResourceURLs")});
      }
      fs.rules.push_back(std::move(rule));
    }
  }
  return fs;
}

StatusOr<PriorityLevel> ParsePriorityLevel(const json::value& obj) {
  PriorityLevel pl;
  pl.name = Str(obj, {"metadata", "name"});
  pl.uid = Str(obj, {"metadata", "uid"});
  if (pl.name.empty()) return Bad("priority level without a name");
  std::string type = Str(obj, {"spec", "type"});
  // kube's queueSetCompleterForPL: the union must be whole, and only "exempt" may be Exempt.
  if (type == "Exempt") {
    if (!At(obj, {"spec", "exempt"}) && At(obj, {"spec", "limited"})) return Bad("broken union structure at the top, for Exempt");
    if (pl.name != kExemptName) return Bad("non-alignment between name and type");
    pl.exempt = true;
    pl.nominal_concurrency_shares = static_cast<int>(Int(obj, {"spec", "exempt", "nominalConcurrencyShares"}).value_or(0));
    pl.lendable_percent = static_cast<int>(Int(obj, {"spec", "exempt", "lendablePercent"}).value_or(0));
    return pl;
  }
  if (type != "Limited") return Bad("priority level " + pl.name + " has an unknown type " + type);
  if (pl.name == kExemptName) return Bad("non-alignment between name and type");
  const json::value* limited = At(obj, {"spec", "limited"});
  if (!limited) return Bad("broken union structure at the top, for Limited");
  pl.nominal_concurrency_shares = static_cast<int>(Int(*limited, {"nominalConcurrencyShares"}).value_or(30));
  pl.lendable_percent = static_cast<int>(Int(*limited, {"lendablePercent"}).value_or(0));
  if (auto b = Int(*limited, {"borrowingLimitPercent"})) pl.borrowing_limit_percent = static_cast<int>(*b);
  std::string response = Str(*limited, {"limitResponse", "type"});
  if (response == "Queue") {
    pl.queuing = true;
    pl.queues = static_cast<int>(Int(*limited, {"limitResponse", "queuing", "queues"}).value_or(64));
    pl.hand_size = static_cast<int>(Int(*limited, {"limitResponse", "queuing", "handSize"}).value_or(8));
    pl.queue_length_limit = static_cast<int>(Int(*limited, {"limitResponse", "queuing", "queueLengthLimit"}).value_or(50));
  } else if (response != "Reject") {
    return Bad("priority level " + pl.name + " has an unknown limit response " + response);
  }
  if (pl.nominal_concurrency_shares < 0 || pl.lendable_percent < 0 || pl.lendable_percent > 100 ||
      (pl.borrowing_limit_percent && *pl.borrowing_limit_percent < 0)) {
    return Bad("priority level " + pl.name + " has out-of-range limits");
  }
  if (pl.queuing && (pl.queues < 1 || pl.hand_size < 1 || pl.hand_size > pl.queues || pl.queue_length_limit < 1)) {
    return Bad("priority level " + pl.name + " has an invalid queuing configuration");
  }
  return pl;
}

FlowSchema MandatoryExemptFlowSchema() { return Mandatory(kExemptName, 1, Distinguisher::kNone, {kSystemPrivilegedGroup}); }

FlowSchema MandatoryCatchAllFlowSchema() {
  return Mandatory(kCatchAllName, 10000, Distinguisher::kByUser, {kAllUnauthenticated, kAllAuthenticated});
}

PriorityLevel MandatoryExemptPriorityLevel() {
  PriorityLevel pl;
  pl.name = kExemptName;
  pl.exempt = true;
  pl.nominal_concurrency_shares = 0;
  return pl;
}

PriorityLevel MandatoryCatchAllPriorityLevel() {
  PriorityLevel pl;
  pl.name = kCatchAllName;
  pl.nominal_concurrency_shares = 5;
  return pl;
}

bool MatchesBefore(const FlowSchema& a, const FlowSchema& b) {
  if (a.matching_precedence != b.matching_precedence) return a.matching_precedence < b.matching_precedence;
  return a.name < b.name;
}

}  // namespace capstan::flowcontrol
