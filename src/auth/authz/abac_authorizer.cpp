#include "auth/authz/abac_authorizer.h"

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "util/strings.h"

namespace capstan::authz {

namespace json = boost::json;

namespace {

constexpr std::string_view kAbacVersion = "abac.authorization.kubernetes.io/v1beta1";

bool SubjectMatches(const AbacPolicy& p, const http::UserInfo& user) {
  bool matched = false;
  if (!p.user.empty()) {
    if (p.user == "*") {
      matched = true;
    } else {
      matched = p.user == user.name;
      if (!matched) return false;
    }
  }
  if (!p.group.empty()) {
    if (p.group == "*") {
      matched = true;
    } else {
      matched = user.InGroup(p.group);
      if (!matched) return false;
    }
  }
  return matched;
}

bool Matches(const AbacPolicy& p, const Attributes& a) {
  if (!SubjectMatches(p, a.user)) return false;
  if (!a.IsReadOnly() && p.readonly) return false;
  if (a.resource_request) {
    return (p.namespace_ == "*" || p.namespace_ == a.namespace_) && (p.resource == "*" || p.resource == a.resource) &&
           (p.api_group == "*" || p.api_group == a.api_group);
  }
  const std::string& np = p.non_resource_path;
  if (np == "*" || np == a.path) return true;
  if (!np.empty() && np.back() == '*') {
    std::string_view prefix = np;
    while (!prefix.empty() && prefix.back() == '*') prefix.remove_suffix(1);
    return StartsWith(a.path, prefix);
  }
  return false;
}

std::vector<std::string> Verbs(bool readonly) {
  if (readonly) return {"get", "list", "watch"};
  return {"*"};
}

StatusOr<std::string> Str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v || v->is_null()) return std::string();
  if (!v->is_string()) return Status(400, "BadRequest", std::string(key) + " must be a string");
  return std::string(v->get_string());
}

StatusOr<AbacPolicy> FromJson(const json::object& o) {
  AbacPolicy p;
  const auto* api_version = o.if_contains("apiVersion");
  if (!api_version || (api_version->is_string() && api_version->get_string().empty())) {
    // v0: the unversioned form, converted as kube does.
    ASSIGN_OR_RETURN(p.user, Str(o, "user"));
    ASSIGN_OR_RETURN(p.group, Str(o, "group"));
    ASSIGN_OR_RETURN(p.namespace_, Str(o, "namespace"));
    ASSIGN_OR_RETURN(p.resource, Str(o, "resource"));
    if (const auto* r = o.if_contains("readonly"); r && r->is_bool()) p.readonly = r->get_bool();
    bool ns_empty = p.namespace_.empty(), res_empty = p.resource.empty();
    if (p.user.empty() && p.group.empty()) p.group = kAllAuthenticated;
    if (p.user == "*" || p.group == "*") {
      p.group = kAllAuthenticated;
      p.user.clear();
    }
    if (ns_empty) p.namespace_ = "*";
    if (res_empty) p.resource = "*";
    p.api_group = "*";
    if (ns_empty && res_empty) p.non_resource_path = "*";
    return p;
  }
  if (!api_version->is_string() || api_version->get_string() != kAbacVersion) {
    return Status(400, "BadRequest", "unrecognized apiVersion " + GoQuote(api_version->is_string()
                                                                            ? std::string(api_version->get_string())
                                                                            : json::serialize(*api_version)));
  }
  const auto* kind = o.if_contains("kind");
  if (!kind || !kind->is_string() || kind->get_string() != "Policy") {
    return Status(400, "BadRequest", "unrecognized kind, expected \"Policy\"");
  }
  const auto* spec_v = o.if_contains("spec");
  if (!spec_v || !spec_v->is_object()) return p;
  const auto& spec = spec_v->get_object();
  ASSIGN_OR_RETURN(p.user, Str(spec, "user"));
  ASSIGN_OR_RETURN(p.group, Str(spec, "group"));
  ASSIGN_OR_RETURN(p.api_group, Str(spec, "apiGroup"));
  ASSIGN_OR_RETURN(p.resource, Str(spec, "resource"));
  ASSIGN_OR_RETURN(p.namespace_, Str(spec, "namespace"));
  ASSIGN_OR_RETURN(p.non_resource_path, Str(spec, "nonResourcePath"));
  if (const auto* r = spec.if_contains("readonly")) {
    if (!r->is_bool()) return Status(400, "BadRequest", "readonly must be a boolean");
    p.readonly = r->get_bool();
  }
  return p;
}

}  // namespace

StatusOr<std::vector<AbacPolicy>> AbacAuthorizer::Parse(const std::string& path, const std::string& text) {
  std::vector<AbacPolicy> out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::string_view trimmed = TrimSpace(line);
    if (trimmed.empty() || trimmed[0] == '#') continue;
    auto fail = [&](const std::string& why) {
      return Status(400, "BadRequest",
                    "error reading policy file " + path + ", line " + std::to_string(n) + ": " + std::string(trimmed) +
                        ": " + why);
    };
    boost::system::error_code ec;
    json::value v = json::parse(trimmed, ec);
    if (ec) return fail(ec.message());
    if (!v.is_object()) return fail("a policy must be a JSON object");
    auto p = FromJson(v.get_object());
    if (!p.ok()) return fail(p.status().message());
    out.push_back(std::move(*p));
  }
  return out;
}

StatusOr<std::vector<AbacPolicy>> AbacAuthorizer::Load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Status(400, "BadRequest", "error reading policy file " + path + ": cannot open it");
  std::stringstream ss;
  ss << f.rdbuf();
  return Parse(path, ss.str());
}

Result AbacAuthorizer::Decide(const Attributes& a) const {
  for (const auto& p : policies_) {
    if (Matches(p, a)) return Result{Decision::kAllow, "", ""};
  }
  return Result{Decision::kNoOpinion, "No policy matched.", ""};
}

RulesResult AbacAuthorizer::RulesFor(const http::UserInfo& user, const std::string& namespace_) const {
  RulesResult r;
  for (const auto& p : policies_) {
    if (!SubjectMatches(p, user)) continue;
    if (p.namespace_ != "*" && p.namespace_ != namespace_) continue;
    if (!p.resource.empty()) r.resource_rules.push_back({Verbs(p.readonly), {p.api_group}, {p.resource}, {}});
    if (!p.non_resource_path.empty()) r.non_resource_rules.push_back({Verbs(p.readonly), {p.non_resource_path}});
  }
  return r;
}

}  // namespace capstan::authz
