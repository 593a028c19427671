#include "admission/resource_quota_config.h"

#include <boost/json.hpp>

#include "util/strings.h"

namespace capstan::admission::quota {

namespace json = boost::json;

namespace {

Status Bad(const std::string& msg) { return Status(400, "BadRequest", msg); }

StatusOr<std::vector<std::string>> Strings(const json::object& o, std::string_view key, const std::string& path) {
  std::vector<std::string> out;
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return out;
  if (!v->is_array()) return Bad(path + ": expected an array of strings");
  for (const auto& s : v->get_array()) {
    if (!s.is_string()) return Bad(path + ": expected an array of strings");
    out.emplace_back(s.get_string());
  }
  return out;
}

std::string StringField(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

}  // namespace

StatusOr<QuotaConfiguration> ParseQuotaConfiguration(const std::optional<json::value>& config) {
  QuotaConfiguration out;
  if (!config || config->is_null()) return out;
  if (!config->is_object()) return Bad("ResourceQuota configuration: expected an object");
  const json::object& c = config->get_object();
  std::string api_version = StringField(c, "apiVersion"), kind = StringField(c, "kind");
  bool known = (api_version == "apiserver.config.k8s.io/v1" && kind == "ResourceQuotaConfiguration") ||
               ((api_version == "resourcequota.admission.k8s.io/v1beta1" ||
                 api_version == "resourcequota.admission.k8s.io/v1alpha1") &&
                kind == "Configuration");
  if (!known) {
    return Bad("no kind \"" + kind + "\" is registered for version \"" + api_version + "\" in scheme \"" +
               "k8s.io/apiserver/pkg/admission/plugin/resourcequota/config.go\"");
  }
  const json::value* lrs = c.if_contains("limitedResources");
  if (lrs && !lrs->is_null()) {
    if (!lrs->is_array()) return Bad("limitedResources: expected an array");
    std::vector<std::string> required;
    for (size_t i = 0; i < lrs->get_array().size(); ++i) {
      const json::value& item = lrs->get_array()[i];
      std::string path = "limitedResources[" + std::to_string(i) + "]";
      if (!item.is_object()) return Bad(path + ": expected an object");
      const json::object& o = item.get_object();
      LimitedResource lr;
      lr.api_group = StringField(o, "apiGroup");
      lr.resource = StringField(o, "resource");
      if (lr.resource.empty()) required.push_back(path + ".resource: Required value");
      auto contains = Strings(o, "matchContains", path + ".matchContains");
      if (!contains.ok()) return contains.status();
      lr.match_contains = std::move(*contains);
      if (const json::value* ms = o.if_contains("matchScopes"); ms && ms->is_array()) {
        for (const auto& s : ms->get_array()) {
          if (!s.is_object()) return Bad(path + ".matchScopes: expected objects");
          ScopeRequirement r{StringField(s.get_object(), "scopeName"), StringField(s.get_object(), "operator"), {}};
          auto values = Strings(s.get_object(), "values", path + ".matchScopes.values");
          if (!values.ok()) return values.status();
          r.values = std::move(*values);
          lr.match_scopes.push_back(std::move(r));
        }
      }
      out.limited_resources.push_back(std::move(lr));
    }
    // kube's errs.ToAggregate(): one error as it is, several in brackets.
    if (required.size() == 1) return Bad(required[0]);
    if (!required.empty()) return Bad("[" + Join(required, ", ") + "]");
  }
  return out;
}

std::string FormatScopes(const std::vector<ScopeRequirement>& scopes) {
  std::vector<std::string> parts;
  for (const auto& s : scopes) parts.push_back("{" + s.scope_name + " " + s.op + " [" + Join(s.values, " ") + "]}");
  return "[" + Join(parts, " ") + "]";
}

}  // namespace capstan::admission::quota
