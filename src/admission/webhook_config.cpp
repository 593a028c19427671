#include "admission/webhook_config.h"

#include <algorithm>
#include <boost/json.hpp>

#include "admission/match_conditions.h"
#include "apimachinery/object_meta.h"
#include "util/strings.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

bool Has(const std::vector<std::string>& list, const std::string& v) {
  return std::find(list.begin(), list.end(), v) != list.end();
}

bool HasOrStar(const std::vector<std::string>& list, const std::string& v) { return Has(list, "*") || Has(list, v); }

bool ResourceMatches(const std::vector<std::string>& resources, const std::string& resource,
                     const std::string& subresource) {
  std::string combined = subresource.empty() ? resource : resource + "/" + subresource;
  for (const auto& r : resources) {
    if (r == "*/*" || r == combined) return true;
    if (r == "*" && subresource.empty()) return true;
    size_t slash = r.find('/');
    if (slash == std::string::npos) continue;
    std::string rr = r.substr(0, slash), rs = r.substr(slash + 1);
    if (rr == "*" && rs == subresource && !subresource.empty()) return true;
    if (rs == "*" && rr == resource && !subresource.empty()) return true;
  }
  return false;
}

Webhook ParseOne(const std::string& configuration, const json::object& w, bool mutating) {
  Webhook h;
  h.configuration = configuration;
  h.name = StringField(w, "name");
  h.mutating = mutating;
  if (const json::value* cc = w.if_contains("clientConfig"); cc && cc->is_object()) {
    const json::object& c = cc->as_object();
    h.url = StringField(c, "url");
    std::string bundle = StringField(c, "caBundle");
    if (!bundle.empty() && !Base64Decode(bundle, h.ca_pem)) h.invalid = "caBundle is not valid base64";
    if (const json::value* sv = c.if_contains("service"); sv && sv->is_object()) {
      const json::object& s = sv->as_object();
      h.service_namespace = StringField(s, "namespace");
      h.service_name = StringField(s, "name");
      h.service_path = StringField(s, "path");
      if (const json::value* p = s.if_contains("port"); p && p->is_int64()) h.service_port = static_cast<int>(p->as_int64());
      std::string host = h.service_name + "." + h.service_namespace + ".svc";
      h.url = "https://" + host + ":" + std::to_string(h.service_port) + h.service_path;
    }
    if (h.url.empty() && h.invalid.empty()) h.invalid = "ClientConfig: neither URL nor Service name is provided";
  } else {
    h.invalid = "ClientConfig: neither URL nor Service name is provided";
  }
  if (const json::value* rules = w.if_contains("rules"); rules && rules->is_array()) {
    for (const auto& rv : rules->as_array()) {
      if (!rv.is_object()) continue;
      WebhookRule rule = ParseRule(rv.as_object());
      h.rules.push_back(std::move(rule));
    }
  }
  if (std::string fp = StringField(w, "failurePolicy"); !fp.empty()) h.failure_policy = fp;
  if (std::string mp = StringField(w, "matchPolicy"); !mp.empty()) h.match_policy = mp;
  h.namespace_selector = SelectorField(w, "namespaceSelector", h.invalid);
  h.object_selector = SelectorField(w, "objectSelector", h.invalid);
  if (const json::value* se = w.if_contains("sideEffects"); se && se->is_string()) h.side_effects = std::string(se->as_string());
  if (const json::value* t = w.if_contains("timeoutSeconds"); t && t->is_int64()) h.timeout_seconds = static_cast<int>(t->as_int64());
  h.review_versions = StringsField(w, "admissionReviewVersions");
  if (std::string rp = StringField(w, "reinvocationPolicy"); !rp.empty()) h.reinvocation_policy = rp;
  if (const json::value* mc = w.if_contains("matchConditions"); mc && mc->is_array() && !mc->as_array().empty()) {
    h.match_conditions = MatchConditions::Compile(mc->as_array(), false);
  }
  return h;
}

}  // namespace

std::string StringField(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::vector<std::string> StringsField(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const json::value* v = o.if_contains(key);
  if (!v || !v->is_array()) return out;
  for (const auto& e : v->as_array()) {
    if (e.is_string()) out.emplace_back(e.as_string());
  }
  return out;
}

std::optional<am::LabelSelector> SelectorField(const json::object& o, std::string_view key, std::string& invalid) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return std::nullopt;
  auto sel = am::LabelSelectorFromJson(v);
  if (!sel.ok()) {
    invalid = "invalid " + std::string(key) + ": " + sel.status().message();
    return std::nullopt;
  }
  return std::move(*sel);
}

WebhookRule ParseRule(const json::object& r) {
  WebhookRule rule;
  rule.operations = StringsField(r, "operations");
  rule.api_groups = StringsField(r, "apiGroups");
  rule.api_versions = StringsField(r, "apiVersions");
  rule.resources = StringsField(r, "resources");
  std::string scope = StringField(r, "scope");
  rule.scope = scope.empty() ? "*" : scope;
  return rule;
}

MatchRequest MatchRequestFor(const registry::AdmissionAttributes& a) {
  MatchRequest mr;
  mr.operation = a.operation;
  mr.group = a.resource->group;
  mr.version = a.resource->version;
  mr.resource = a.resource->resource;
  mr.subresource = a.subresource;
  mr.namespaced = a.resource->namespaced;
  return mr;
}

const json::object* LabelsOf(const registry::Object* obj) {
  if (!obj) return nullptr;
  const json::value* md = obj->if_contains("metadata");
  if (!md || !md->is_object()) return nullptr;
  const json::value* labels = md->as_object().if_contains("labels");
  return labels && labels->is_object() ? &labels->as_object() : nullptr;
}

bool RuleMatches(const WebhookRule& rule, const MatchRequest& r, bool equivalent) {
  if (!HasOrStar(rule.operations, r.operation)) return false;
  if (!HasOrStar(rule.api_groups, r.group)) return false;
  if (!equivalent && !HasOrStar(rule.api_versions, r.version)) return false;
  if (equivalent && rule.api_versions.empty()) return false;
  if (rule.scope == "Cluster" && r.namespaced) return false;
  if (rule.scope == "Namespaced" && !r.namespaced) return false;
  return ResourceMatches(rule.resources, r.resource, r.subresource);
}

bool RulesMatch(const Webhook& w, const MatchRequest& r) {
  for (const auto& rule : w.rules) {
    if (RuleMatches(rule, r, false)) return true;
  }
  if (w.match_policy == "Equivalent") {
    // Capstan serves one version of each group/resource (HPAs aside, which share storage), so the
    // equivalent request is the same group/resource in any version the rule names.
    for (const auto& rule : w.rules) {
      if (RuleMatches(rule, r, true)) return true;
    }
  }
  return false;
}

std::vector<Webhook> ParseWebhooks(const std::vector<registry::Object>& configurations, bool mutating) {
  std::vector<const registry::Object*> sorted;
  for (const auto& c : configurations) sorted.push_back(&c);
  std::sort(sorted.begin(), sorted.end(),
            [](const registry::Object* a, const registry::Object* b) { return am::GetName(*a) < am::GetName(*b); });
  std::vector<Webhook> out;
  for (const auto* c : sorted) {
    std::string name(am::GetName(*c));
    const json::value* hooks = c->if_contains("webhooks");
    if (!hooks || !hooks->is_array()) continue;
    for (const auto& w : hooks->as_array()) {
      if (w.is_object()) out.push_back(ParseOne(name, w.as_object(), mutating));
    }
  }
  return out;
}

}  // namespace capstan::admission
