#include "admission/pod_security_config.h"

#include <boost/json.hpp>
#include <set>

#include "apimachinery/json_write.h"
#include "apimachinery/validation.h"

namespace capstan::admission::psa {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr char kGroup[] = "pod-security.admission.config.k8s.io";

Status DecodeError(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }

// Reads a string field; a value of another type is kube's decoder error.
Status ReadString(const json::object& o, std::string_view key, const std::string& path, std::string& out) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return Status();
  if (!v->is_string()) {
    return DecodeError("json: cannot unmarshal " + std::string(v->is_object() ? "object" : v->is_array() ? "array" : v->is_bool() ? "bool" : "number") +
                       " into Go struct field " + path + " of type string");
  }
  out = std::string(v->get_string());
  return Status();
}

Status ReadStrings(const json::object& o, std::string_view key, const std::string& path, std::vector<std::string>& out) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return Status();
  if (!v->is_array()) return DecodeError("json: cannot unmarshal " + std::string(v->is_object() ? "object" : v->is_string() ? "string" : "value") +
                                         " into Go struct field " + path + " of type []string");
  for (const auto& e : v->get_array()) {
    if (!e.is_string()) return DecodeError("json: cannot unmarshal value into Go struct field " + path + " of type string");
    out.emplace_back(e.get_string());
  }
  return Status();
}

void UnknownFields(const json::object& o, const std::set<std::string_view>& known, const std::string& prefix,
                   std::vector<std::string>& out) {
  for (const auto& [k, v] : o) {
    if (!known.count(k)) out.push_back("unknown field \"" + prefix + std::string(k) + "\"");
  }
}

}  // namespace

StatusOr<PodSecurityConfig> DecodePodSecurityConfig(const json::value* config) {
  PodSecurityConfig out;
  out.defaults.enforce.level = out.defaults.audit.level = out.defaults.warn.level = Level::kPrivileged;
  if (!config || config->is_null()) return out;
  std::string raw = am::ToJson(*config);
  if (!config->is_object()) return DecodeError("couldn't get version/kind; json parse error: json: cannot unmarshal " +
                                               std::string(config->is_array() ? "array" : "value") +
                                               " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" }");
  const json::object& o = config->get_object();
  std::string api_version, kind;
  if (const json::value* v = o.if_contains("apiVersion"); v && v->is_string()) api_version = std::string(v->get_string());
  if (const json::value* v = o.if_contains("kind"); v && v->is_string()) kind = std::string(v->get_string());
  if (kind.empty()) return DecodeError("Object 'Kind' is missing in '" + raw + "'");
  if (api_version.empty()) return DecodeError("Object 'apiVersion' is missing in '" + raw + "'");
  bool known_version = api_version == std::string(kGroup) + "/v1" || api_version == std::string(kGroup) + "/v1beta1" ||
                       api_version == std::string(kGroup) + "/v1alpha1";
  if (!known_version || kind != "PodSecurityConfiguration") {
    return DecodeError("no kind \"" + kind + "\" is registered for version \"" + api_version +
                       "\" in scheme \"k8s.io/pod-security-admission/admission/api/scheme/scheme.go:28\"");
  }
  std::vector<std::string> unknown;
  UnknownFields(o, {"apiVersion", "kind", "defaults", "exemptions"}, "", unknown);
  std::string enforce, enforce_version, audit, audit_version, warn, warn_version;
  if (const json::value* d = o.if_contains("defaults"); d && !d->is_null()) {
    if (!d->is_object()) return DecodeError("json: cannot unmarshal value into Go struct field PodSecurityConfiguration.defaults of type PodSecurityDefaults");
    const json::object& dd = d->get_object();
    UnknownFields(dd, {"enforce", "enforce-version", "audit", "audit-version", "warn", "warn-version"}, "defaults.", unknown);
    RETURN_IF_ERROR(ReadString(dd, "enforce", "PodSecurityConfiguration.defaults.enforce", enforce));
    RETURN_IF_ERROR(ReadString(dd, "enforce-version", "PodSecurityConfiguration.defaults.enforce-version", enforce_version));
    RETURN_IF_ERROR(ReadString(dd, "audit", "PodSecurityConfiguration.defaults.audit", audit));
    RETURN_IF_ERROR(ReadString(dd, "audit-version", "PodSecurityConfiguration.defaults.audit-version", audit_version));
    RETURN_IF_ERROR(ReadString(dd, "warn", "PodSecurityConfiguration.defaults.warn", warn));
    RETURN_IF_ERROR(ReadString(dd, "warn-version", "PodSecurityConfiguration.defaults.warn-version", warn_version));
  }
  if (const json::value* e = o.if_contains("exemptions"); e && !e->is_null()) {
    if (!e->is_object()) return DecodeError("json: cannot unmarshal value into Go struct field PodSecurityConfiguration.exemptions of type PodSecurityExemptions");
    const json::object& ee = e->get_object();
    UnknownFields(ee, {"usernames", "runtimeClasses", "namespaces"}, "exemptions.", unknown);
    RETURN_IF_ERROR(ReadStrings(ee, "usernames", "PodSecurityConfiguration.exemptions.usernames", out.exempt_usernames));
    RETURN_IF_ERROR(ReadStrings(ee, "runtimeClasses", "PodSecurityConfiguration.exemptions.runtimeClasses", out.exempt_runtime_classes));
    RETURN_IF_ERROR(ReadStrings(ee, "namespaces", "PodSecurityConfiguration.exemptions.namespaces", out.exempt_namespaces));
  }
  if (!unknown.empty()) {
    std::string msg = "strict decoding error: ";
    for (size_t i = 0; i < unknown.size(); ++i) msg += (i ? ", " : "") + unknown[i];
    return DecodeError(msg);
  }
  // Defaulting, then the policy (kube's ToPolicy); errors are reported by ValidatePodSecurityConfig.
  auto level = [](const std::string& s, Level& l) { ParseLevel(s.empty() ? "privileged" : s, l); };
  auto version = [](const std::string& s, Version& v) { ParseVersion(s.empty() ? "latest" : s, v); };
  level(enforce, out.defaults.enforce.level);
  version(enforce_version, out.defaults.enforce.version);
  level(audit, out.defaults.audit.level);
  version(audit_version, out.defaults.audit.version);
  level(warn, out.defaults.warn.level);
  version(warn_version, out.defaults.warn.version);
  return out;
}

Status ValidatePodSecurityConfig(const json::value* config, const PodSecurityConfig& decoded) {
  std::string enforce = "privileged", enforce_version = "latest", audit = "privileged", audit_version = "latest",
              warn = "privileged", warn_version = "latest";
  if (config && config->is_object()) {
    if (const json::value* d = config->get_object().if_contains("defaults"); d && d->is_object()) {
      auto get = [&](const char* k, std::string& out) {
        const json::value* v = d->get_object().if_contains(k);
        if (v && v->is_string() && !v->get_string().empty()) out = std::string(v->get_string());
      };
      get("enforce", enforce);
      get("enforce-version", enforce_version);
      get("audit", audit);
      get("audit-version", audit_version);
      get("warn", warn);
      get("warn-version", warn_version);
    }
  }
  // CompleteConfiguration (ToPolicy) reports first, as "field: detail".
  std::vector<std::string> policy_errs;
  Level l;
  Version v;
  const char* kLevel = "must be one of privileged, baseline, restricted";
  const char* kVersion = "must be \"latest\" or \"v1.x\"";
  if (!ParseLevel(enforce, l)) policy_errs.push_back(std::string("enforce: ") + kLevel);
  if (!ParseVersion(enforce_version, v)) policy_errs.push_back(std::string("enforce-version: ") + kVersion);
  if (!ParseLevel(audit, l)) policy_errs.push_back(std::string("audit: ") + kLevel);
  if (!ParseVersion(audit_version, v)) policy_errs.push_back(std::string("audit-version: ") + kVersion);
  if (!ParseLevel(warn, l)) policy_errs.push_back(std::string("warn: ") + kLevel);
  if (!ParseVersion(warn_version, v)) policy_errs.push_back(std::string("warn-version: ") + kVersion);
  if (!policy_errs.empty()) {
    std::string msg = policy_errs.size() == 1 ? policy_errs[0] : "[";
    if (policy_errs.size() > 1) {
      for (size_t i = 0; i < policy_errs.size(); ++i) msg += (i ? ", " : "") + policy_errs[i];
      msg += "]";
    }
    return Status(400, "BadRequest", msg);
  }
  ErrorList errs;
  auto list = [&](const std::vector<std::string>& items, const char* field, auto problems_of) {
    std::set<std::string> seen;
    for (size_t i = 0; i < items.size(); ++i) {
      FieldPath p = FieldPath("exemptions").Child(field).Index(i);
      std::vector<std::string> problems = problems_of(items[i]);
      if (!problems.empty()) {
        std::string detail;
        for (size_t k = 0; k < problems.size(); ++k) detail += (k ? ", " : "") + problems[k];
        errs.push_back(InvalidError(p, items[i], detail));
        continue;
      }
      if (!seen.insert(items[i]).second) {
        errs.push_back(DuplicateError(p, items[i]));
        continue;
      }
    }
  };
  list(decoded.exempt_namespaces, "namespaces", [](const std::string& s) { return am::ValidateNamespaceName(s, false); });
  list(decoded.exempt_runtime_classes, "runtimeClasses", [](const std::string& s) { return am::NameIsDNSSubdomain(s, false); });
  list(decoded.exempt_usernames, "usernames", [](const std::string& s) {
    return s.empty() ? std::vector<std::string>{"username must not be empty"} : std::vector<std::string>{};
  });
  if (!errs.empty()) return Status(400, "BadRequest", AggregateMessage(errs));
  return Status();
}

}  // namespace capstan::admission::psa
