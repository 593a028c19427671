#include "audit/policy.h"

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "apimachinery/field_errors.h"
#include "apimachinery/validation.h"
#include "apimachinery/yaml.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::audit {

namespace json = boost::json;
namespace am = capstan::apimachinery;

std::string_view LevelName(Level l) {
  switch (l) {
    case Level::kNone: return "None";
    case Level::kMetadata: return "Metadata";
    case Level::kRequest: return "Request";
    case Level::kRequestResponse: return "RequestResponse";
  }
  return "None";
}

std::string_view StageName(Stage s) {
  switch (s) {
    case Stage::kRequestReceived: return "RequestReceived";
    case Stage::kResponseStarted: return "ResponseStarted";
    case Stage::kResponseComplete: return "ResponseComplete";
    case Stage::kPanic: return "Panic";
  }
  return "";
}

namespace {

const std::vector<std::string> kLevels = {"None", "Metadata", "Request", "RequestResponse"};
const std::vector<std::string> kStages = {"RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"};

std::optional<Level> ParseLevel(std::string_view s) {
  for (size_t i = 0; i < kLevels.size(); ++i) {
    if (kLevels[i] == s) return static_cast<Level>(i);
  }
  return std::nullopt;
}

std::optional<Stage> ParseStage(std::string_view s) {
  for (size_t i = 0; i < kStages.size(); ++i) {
    if (kStages[i] == s) return static_cast<Stage>(i);
  }
  return std::nullopt;
}

Status DecodeError(const std::string& what) { return Status(400, "BadRequest", "failed decoding: " + what); }

// A list of strings, or a decode error naming the field.
StatusOr<std::vector<std::string>> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return out;
  if (!v->is_array()) return DecodeError("json: cannot unmarshal " + std::string(key) + " into []string");
  for (const auto& e : v->as_array()) {
    if (!e.is_string()) return DecodeError("json: cannot unmarshal " + std::string(key) + " item into string");
    out.emplace_back(e.as_string());
  }
  return out;
}

StatusOr<std::string> StringField(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return std::string();
  if (!v->is_string()) return DecodeError("json: cannot unmarshal " + std::string(key) + " into string");
  return std::string(v->as_string());
}

void ValidateStages(const std::vector<std::string>& stages, const FieldPath& path, ErrorList& errs) {
  for (size_t i = 0; i < stages.size(); ++i) {
    if (!ParseStage(stages[i])) {
      errs.push_back(InvalidError(path.Index(i), stages[i], "allowed stages are " + Join(kStages, ",")));
    }
  }
}

bool Has(const std::vector<std::string>& list, std::string_view v) {
  for (const auto& s : list) {
    if (s == v) return true;
  }
  return false;
}

bool PathMatches(std::string_view path, std::string_view spec) {
  if (spec == "*" || spec == path) return true;
  if (!spec.empty() && spec.back() == '*') {
    std::string_view prefix = spec;
    while (!prefix.empty() && prefix.back() == '*') prefix.remove_suffix(1);
    return path.substr(0, prefix.size()) == prefix;
  }
  return false;
}

bool MatchesResource(const PolicyRule& r, const RequestAttributes& a) {
  if (!a.resource_request) return false;
  if (!r.namespaces.empty() && !Has(r.namespaces, a.namespace_)) return false;
  if (r.resources.empty()) return true;
  std::string combined = a.subresource.empty() ? a.resource : a.resource + "/" + a.subresource;
  for (const auto& gr : r.resources) {
    if (gr.group != a.api_group && gr.group != "*") continue;
    if (gr.resources.empty()) return true;
    for (const auto& res : gr.resources) {
      if (!gr.resource_names.empty() && !Has(gr.resource_names, a.name)) continue;
      if (res == combined || res == "*") return true;
      if (!a.subresource.empty() && res.size() > 2 && res.compare(0, 2, "*/") == 0 && a.subresource == res.substr(2)) {
        return true;
      }
      if (res.size() > 2 && res.compare(res.size() - 2, 2, "/*") == 0 && a.resource == res.substr(0, res.size() - 2)) {
        return true;
      }
    }
  }
  return false;
}

bool RuleMatches(const PolicyRule& r, const RequestAttributes& a) {
  if (!r.users.empty() && (!a.user || !Has(r.users, a.user->name))) return false;
  if (!r.user_groups.empty()) {
    if (!a.user) return false;
    bool any = false;
    for (const auto& g : a.user->groups) any = any || Has(r.user_groups, g);
    if (!any) return false;
  }
  if (!r.verbs.empty() && !Has(r.verbs, a.verb)) return false;
  if (!r.namespaces.empty() || !r.resources.empty()) return MatchesResource(r, a);
  if (!r.non_resource_urls.empty()) {
    if (a.resource_request) return false;
    for (const auto& spec : r.non_resource_urls) {
      if (PathMatches(a.path, spec)) return true;
    }
    return false;
  }
  return true;
}

}  // namespace

StatusOr<Policy> Policy::Load(std::string_view text) {
  auto parsed = am::YamlToJson(text);
  if (!parsed.ok()) return DecodeError(parsed.status().message());
  if (!parsed->value.is_object()) return DecodeError("the policy is not an object");
  const json::object& doc = parsed->value.as_object();
  auto kind = StringField(doc, "kind");
  if (!kind.ok()) return kind.status();
  auto api_version = StringField(doc, "apiVersion");
  if (!api_version.ok()) return api_version.status();
  if (kind->empty()) return DecodeError("Object 'Kind' is missing in '" + std::string(text.substr(0, 200)) + "'");
  if (*api_version != "audit.k8s.io/v1") {
    return Status(400, "BadRequest", "unknown group version field " + *api_version + ", Kind=" + *kind + " in policy");
  }
  if (*kind != "Policy") return DecodeError("no kind \"" + *kind + "\" is registered for version \"audit.k8s.io/v1\"");

  Policy p;
  ErrorList errs;
  auto omit = Strings(doc, "omitStages");
  if (!omit.ok()) return omit.status();
  ValidateStages(*omit, FieldPath("omitStages"), errs);
  for (const auto& s : *omit) {
    if (auto st = ParseStage(s)) p.omit_stages_.insert(*st);
  }
  if (const json::value* v = doc.if_contains("omitManagedFields"); v && !v->is_null()) {
    if (!v->is_bool()) return DecodeError("json: cannot unmarshal omitManagedFields into bool");
    p.omit_managed_fields_ = v->as_bool();
  }
  const json::value* rules = doc.if_contains("rules");
  if (rules && !rules->is_null() && !rules->is_array()) return DecodeError("json: cannot unmarshal rules into []PolicyRule");
  size_t i = 0;
  if (rules && rules->is_array()) {
    for (const auto& rv : rules->as_array()) {
      FieldPath path = FieldPath("rules").Index(i++);
      if (!rv.is_object()) return DecodeError("json: cannot unmarshal rule into PolicyRule");
      const json::object& ro = rv.as_object();
      PolicyRule r;
      auto level = StringField(ro, "level");
      if (!level.ok()) return level.status();
      if (level->empty()) {
        errs.push_back(RequiredError(path.Child("level"), ""));
      } else if (auto l = ParseLevel(*level)) {
        r.level = *l;
      } else {
        errs.push_back(NotSupportedError(path.Child("level"), *level, kLevels));
      }
      for (auto [key, dest] : {std::pair{"users", &r.users}, std::pair{"userGroups", &r.user_groups},
                               std::pair{"verbs", &r.verbs}, std::pair{"namespaces", &r.namespaces},
                               std::pair{"nonResourceURLs", &r.non_resource_urls}}) {
        auto list = Strings(ro, key);
        if (!list.ok()) return list.status();
        *dest = std::move(*list);
      }
      for (size_t u = 0; u < r.non_resource_urls.size(); ++u) {
        const std::string& url = r.non_resource_urls[u];
        if (url == "*") continue;
        if (url.empty() || url[0] != '/') {
          errs.push_back(InvalidError(path.Child("nonResourceURLs").Index(u), url,
                                      "non-resource URL rules must begin with a '/' character"));
        }
        if (!url.empty() && url.substr(0, url.size() - 1).find('*') != std::string::npos) {
          errs.push_back(InvalidError(path.Child("nonResourceURLs").Index(u), url,
                                      "non-resource URL wildcards '*' must be the final character of the rule"));
        }
      }
      if (const json::value* res = ro.if_contains("resources"); res && !res->is_null()) {
        if (!res->is_array()) return DecodeError("json: cannot unmarshal resources into []GroupResources");
        for (const auto& gv : res->as_array()) {
          if (!gv.is_object()) return DecodeError("json: cannot unmarshal resources item into GroupResources");
          GroupResources gr;
          auto group = StringField(gv.as_object(), "group");
          if (!group.ok()) return group.status();
          gr.group = *group;
          auto names = Strings(gv.as_object(), "resources");
          if (!names.ok()) return names.status();
          gr.resources = std::move(*names);
          auto rnames = Strings(gv.as_object(), "resourceNames");
          if (!rnames.ok()) return rnames.status();
          gr.resource_names = std::move(*rnames);
          if (!gr.group.empty() && gr.group != "*") {
            auto problems = am::NameIsDNSSubdomain(gr.group, false);
            if (!problems.empty()) {
              errs.push_back(InvalidError(path.Child("resources").Child("group"), gr.group, Join(problems, ",")));
            }
          }
          if (!gr.resource_names.empty() && gr.resources.empty()) {
            json::array bad;
            for (const auto& n : gr.resource_names) bad.emplace_back(n);
            errs.push_back(InvalidError(path.Child("resources").Child("resourceNames"), json::value(bad),
                                        "using resourceNames requires at least one resource"));
          }
          r.resources.push_back(std::move(gr));
        }
      }
      auto rule_omit = Strings(ro, "omitStages");
      if (!rule_omit.ok()) return rule_omit.status();
      ValidateStages(*rule_omit, path.Child("omitStages"), errs);
      for (const auto& s : *rule_omit) {
        if (auto st = ParseStage(s)) r.omit_stages.insert(*st);
      }
      if (const json::value* v = ro.if_contains("omitManagedFields"); v && !v->is_null()) {
        if (!v->is_bool()) return DecodeError("json: cannot unmarshal omitManagedFields into bool");
        r.omit_managed_fields = v->as_bool();
      }
      if (!r.non_resource_urls.empty() && (!r.resources.empty() || !r.namespaces.empty())) {
        json::array bad;
        for (const auto& n : r.non_resource_urls) bad.emplace_back(n);
        errs.push_back(InvalidError(path.Child("nonResourceURLs"), json::value(bad),
                                    "rules cannot apply to both regular resources and non-resource URLs"));
      }
      p.rules_.push_back(std::move(r));
    }
  }
  if (!errs.empty()) return Status(400, "BadRequest", AggregateMessage(errs));
  if (p.rules_.empty()) return Status(400, "BadRequest", "loaded illegal policy with 0 rules");
  for (auto& r : p.rules_) r.omit_stages.insert(p.omit_stages_.begin(), p.omit_stages_.end());
  return p;
}

StatusOr<Policy> Policy::LoadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(400, "BadRequest", "failed to read file path \"" + path + "\": open " + path + ": no such file or directory");
  std::stringstream ss;
  ss << in.rdbuf();
  auto p = Load(ss.str());
  if (!p.ok()) return Status(400, "BadRequest", p.status().message() + ": from file " + path);
  return p;
}

Policy Policy::AllAt(Level level) {
  Policy p;
  PolicyRule r;
  r.level = level;
  p.rules_.push_back(std::move(r));
  return p;
}

RequestAuditConfig Policy::Evaluate(const RequestAttributes& a) const {
  for (const auto& r : rules_) {
    if (RuleMatches(r, a)) {
      return RequestAuditConfig{r.level, r.omit_stages, r.omit_managed_fields.value_or(omit_managed_fields_)};
    }
  }
  return RequestAuditConfig{Level::kNone, omit_stages_, omit_managed_fields_};
}

}  // namespace capstan::audit
