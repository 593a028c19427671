#include "api/admissionregistration/admission_validation.h"

#include <regex>
#include <set>

#include "api/common.h"
#include "api/networking/validators.h"
#include "apimachinery/labels.h"
#include "cel/admission_expressions.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::admissionregistration {

namespace am = capstan::apimachinery;
namespace json = boost::json;
using catalog::AddProblems;
using catalog::Strings;
using registry::Object;

namespace {

const json::object kEmpty;

const json::object& ObjectOrEmpty(const json::object* o) { return o ? *o : kEmpty; }

void ForEach(const json::object& o, std::string_view key, const std::function<void(const json::object&, size_t)>& fn) {
  const json::array* a = ArrayAt(o, key);
  if (!a) return;
  for (size_t i = 0; i < a->size(); ++i) fn((*a)[i].is_object() ? (*a)[i].get_object() : kEmpty, i);
}

void ForEachMutable(json::object& o, std::string_view key, const std::function<void(json::object&)>& fn) {
  json::value* a = o.if_contains(key);
  if (!a || !a->is_array()) return;
  for (auto& e : a->get_array()) {
    if (e.is_object()) fn(e.get_object());
  }
}

void Append(ErrorList& errs, ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); }

bool HasWildcard(const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), "*") != v.end(); }

// ---- defaults ----

void DefaultRules(json::object& o, std::string_view key) {
  ForEachMutable(o, key, [](json::object& rule) { catalog::DefaultField(rule, "scope", "*"); });
}

void DefaultMatchResources(json::object& mr) {
  catalog::DefaultField(mr, "matchPolicy", "Equivalent");
  catalog::DefaultField(mr, "namespaceSelector", json::object());
  catalog::DefaultField(mr, "objectSelector", json::object());
  DefaultRules(mr, "resourceRules");
  DefaultRules(mr, "excludeResourceRules");
}

// ---- rules ----

ErrorList ValidateResources(const std::vector<std::string>& resources, const FieldPath& p) {
  ErrorList errs;
  if (resources.empty()) errs.push_back(RequiredError(p, ""));
  std::set<std::string> with_wildcard_sub;  // x/*
  std::set<std::string> sub_with_wildcard;  // */x
  bool double_wildcard = false;
  bool single_wildcard = false;
  bool without_sub = false;
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string& rs = resources[i];
    if (rs.empty()) {
      errs.push_back(RequiredError(p.Index(i), ""));
      continue;
    }
    if (rs == "*/*") double_wildcard = true;
    if (rs == "*") single_wildcard = true;
    size_t slash = rs.find('/');
    if (slash == std::string::npos) {
      without_sub = rs != "*";
      continue;
    }
    std::string res = rs.substr(0, slash);
    std::string sub = rs.substr(slash + 1);
    if (with_wildcard_sub.count(res)) {
      errs.push_back(InvalidError(p.Index(i), rs, "if '" + res + "/*' is present, must not specify " + rs));
    }
    if (sub_with_wildcard.count(sub)) {
      errs.push_back(InvalidError(p.Index(i), rs, "if '*/" + sub + "' is present, must not specify " + rs));
    }
    if (sub == "*") with_wildcard_sub.insert(res);
    if (res == "*") sub_with_wildcard.insert(sub);
  }
  if (resources.size() > 1 && double_wildcard) {
    errs.push_back(catalog::InvalidGo(p, catalog::GoStringSlice(resources), "if '*/*' is present, must not specify other resources"));
  }
  if (single_wildcard && without_sub) {
    errs.push_back(catalog::InvalidGo(p, catalog::GoStringSlice(resources),
                                      "if '*' is present, must not specify other resources without subresources"));
  }
  return errs;
}

ErrorList ValidateRule(const json::object& rule, const FieldPath& p) {
  ErrorList errs;
  auto groups = Strings(rule, "apiGroups");
  if (groups.empty()) errs.push_back(RequiredError(p.Child("apiGroups"), ""));
  if (groups.size() > 1 && HasWildcard(groups)) {
    errs.push_back(catalog::InvalidGo(p.Child("apiGroups"), catalog::GoStringSlice(groups),
                                      "if '*' is present, must not specify other API groups"));
  }
  auto versions = Strings(rule, "apiVersions");
  if (versions.empty()) errs.push_back(RequiredError(p.Child("apiVersions"), ""));
  if (versions.size() > 1 && HasWildcard(versions)) {
    errs.push_back(catalog::InvalidGo(p.Child("apiVersions"), catalog::GoStringSlice(versions),
                                      "if '*' is present, must not specify other API versions"));
  }
  for (size_t i = 0; i < versions.size(); ++i) {
    if (versions[i].empty()) errs.push_back(RequiredError(p.Child("apiVersions").Index(i), ""));
  }
  Append(errs, ValidateResources(Strings(rule, "resources"), p.Child("resources")));
  if (auto scope = catalog::OptString(&rule, "scope"); scope && *scope != "*" && *scope != "Cluster" && *scope != "Namespaced") {
    errs.push_back(NotSupportedError(p.Child("scope"), *scope, {"*", "Cluster", "Namespaced"}));
  }
  return errs;
}

ErrorList ValidateRuleWithOperations(const json::object& rule, const FieldPath& p) {
  ErrorList errs;
  auto ops = Strings(rule, "operations");
  if (ops.empty()) errs.push_back(RequiredError(p.Child("operations"), ""));
  if (ops.size() > 1 && HasWildcard(ops)) {
    std::vector<std::string> q;
    for (const auto& o : ops) q.push_back(GoQuote(o));
    errs.push_back(catalog::InvalidGo(p.Child("operations"), "[]admissionregistration.OperationType{" + Join(q, ", ") + "}",
                                      "if '*' is present, must not specify other operations"));
  }
  static const std::vector<std::string> kOps = {"*", "CONNECT", "CREATE", "DELETE", "UPDATE"};
  for (size_t i = 0; i < ops.size(); ++i) {
    if (std::find(kOps.begin(), kOps.end(), ops[i]) == kOps.end()) {
      errs.push_back(NotSupportedError(p.Child("operations").Index(i), ops[i], kOps));
    }
  }
  Append(errs, ValidateRule(rule, p));
  return errs;
}

// ---- client config ----

struct ParsedUrl {
  std::string scheme, user, host, query, fragment;
  bool has_user = false;
};

// The parts of Go's url.Parse that kube's ValidateWebhookURL looks at; nullopt with an error text when
// Go's parser fails.
std::optional<ParsedUrl> ParseUrl(std::string_view raw, std::string* error) {
  ParsedUrl u;
  std::string_view rest = raw;
  if (size_t hash = rest.find('#'); hash != std::string_view::npos) {
    u.fragment = std::string(rest.substr(hash + 1));
    rest = rest.substr(0, hash);
  }
  for (char c : rest) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      *error = "parse " + GoQuote(raw) + ": net/url: invalid control character in URL";
      return std::nullopt;
    }
  }
  // Scheme: a letter, then letters, digits, '+', '-', '.', up to ':'.
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (letter) continue;
    if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.') {
      if (i == 0) break;
      continue;
    }
    if (c == ':') {
      if (i == 0) {
        *error = "parse " + GoQuote(raw) + ": missing protocol scheme";
        return std::nullopt;
      }
      u.scheme = ToLower(rest.substr(0, i));
      rest = rest.substr(i + 1);
    }
    break;
  }
  if (size_t q = rest.find('?'); q != std::string_view::npos) {
    u.query = std::string(rest.substr(q + 1));
    rest = rest.substr(0, q);
  }
  if (StartsWith(rest, "//")) {
    rest = rest.substr(2);
    size_t end = rest.find('/');
    std::string_view authority = rest.substr(0, end);
    if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
      u.has_user = true;
      u.user = std::string(authority.substr(0, at));
      authority = authority.substr(at + 1);
    }
    if (StartsWith(authority, "[") && authority.find(']') == std::string_view::npos) {
      *error = "parse " + GoQuote(raw) + ": missing ']' in host";
      return std::nullopt;
    }
    u.host = std::string(authority);
  }
  return u;
}

}  // namespace

ErrorList ValidateWebhookUrl(const FieldPath& p, std::string_view url) {
  ErrorList errs;
  constexpr std::string_view kForm = "; desired format: https://host[/path]";
  std::string error;
  auto u = ParseUrl(url, &error);
  if (!u) {
    errs.push_back(RequiredError(p, "url must be a valid URL: " + error + std::string(kForm)));
    return errs;
  }
  if (u->scheme != "https") errs.push_back(InvalidError(p, u->scheme, "'https' is the only allowed URL scheme" + std::string(kForm)));
  if (u->host.empty()) errs.push_back(InvalidError(p, u->host, "host must be specified" + std::string(kForm)));
  if (u->has_user) errs.push_back(InvalidError(p, u->user, "user information is not permitted in the URL"));
  if (!u->fragment.empty()) errs.push_back(InvalidError(p, u->fragment, "fragments are not permitted in the URL"));
  if (!u->query.empty()) errs.push_back(InvalidError(p, u->query, "query parameters are not permitted in the URL"));
  return errs;
}

namespace {

ErrorList ValidateWebhookService(const FieldPath& p, const json::object& svc) {
  ErrorList errs;
  if (StringAt(svc, "name").empty()) errs.push_back(RequiredError(p.Child("name"), "service name is required"));
  if (StringAt(svc, "namespace").empty()) errs.push_back(RequiredError(p.Child("namespace"), "service namespace is required"));
  int64_t port = IntAt(svc, "port", 443);
  if (auto problems = catalog::PortNumProblems(port); !problems.empty()) {
    errs.push_back(InvalidError(p.Child("port"), port, "port is not valid: " + Join(problems, ", ")));
  }
  auto path = catalog::OptString(&svc, "path");
  if (!path || path->empty() || *path == "/") return errs;
  if (*path == "//") {
    errs.push_back(InvalidError(p.Child("path"), *path, "segment[0] may not be empty"));
    return errs;
  }
  if (!StartsWith(*path, "/")) errs.push_back(InvalidError(p.Child("path"), *path, "must start with a '/'"));
  std::string check = path->substr(1);
  if (EndsWith(check, "/")) check.pop_back();
  auto steps = Split(check, '/');
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].empty()) {
      errs.push_back(InvalidError(p.Child("path"), *path, "segment[" + std::to_string(i) + "] may not be empty"));
      continue;
    }
    for (const auto& m : am::IsDNS1123Subdomain(steps[i])) {
      errs.push_back(InvalidError(p.Child("path"), *path, "segment[" + std::to_string(i) + "]: " + m));
    }
  }
  return errs;
}

// ---- match conditions, selectors, review versions ----

// kube's validateCELCondition: the expression compiles in `env` to `want`.
ErrorList CompileError(const FieldPath& p, std::string_view expression, const cel::Env& env, cel::ResultType want) {
  auto r = cel::CompileAdmissionExpression(expression, env, want);
  if (r.program) return {};
  return {InvalidError(p, std::string(expression), r.error)};
}

ErrorList ValidateMatchConditions(const json::object& o, const FieldPath& p, bool has_params) {
  ErrorList errs;
  cel::AdmissionEnvOptions env_opts;
  env_opts.has_params = has_params;
  env_opts.has_authorizer = true;
  auto env = cel::AdmissionEnv(env_opts);
  const json::array* conditions = ArrayAt(o, "matchConditions");
  if (!conditions) return errs;
  if (conditions->size() > 64) errs.push_back(TooManyError(p, static_cast<int>(conditions->size()), 64));
  std::set<std::string> names;
  for (size_t i = 0; i < conditions->size(); ++i) {
    const json::object& c = (*conditions)[i].is_object() ? (*conditions)[i].get_object() : kEmpty;
    FieldPath cp = p.Index(i);
    std::string expression(TrimSpace(StringAt(c, "expression")));
    if (expression.empty()) {
      errs.push_back(RequiredError(cp.Child("expression"), ""));
    } else {
      Append(errs, CompileError(cp.Child("expression"), expression, *env, cel::ResultType::kBool));
    }
    std::string name = StringAt(c, "name");
    if (name.empty()) {
      errs.push_back(RequiredError(cp.Child("name"), ""));
    } else {
      Append(errs, catalog::QualifiedName(cp.Child("name"), name));
      if (!names.insert(name).second) errs.push_back(DuplicateError(cp.Child("name"), name));
    }
  }
  return errs;
}

ErrorList ValidateSelectorAt(const json::object& o, std::string_view key, const FieldPath& p, bool allow_invalid_value) {
  const json::value* sel = o.if_contains(key);
  if (!sel || sel->is_null()) return {};
  return am::ValidateLabelSelector(*sel, p.Child(std::string(key)), allow_invalid_value);
}

ErrorList ValidateReviewVersions(const std::vector<std::string>& versions, bool require_recognized, const FieldPath& p) {
  ErrorList errs;
  if (versions.empty()) {
    errs.push_back(RequiredError(p, "must specify one of v1, v1beta1"));
    return errs;
  }
  std::set<std::string> seen;
  bool accepted = false;
  for (size_t i = 0; i < versions.size(); ++i) {
    if (!seen.insert(versions[i]).second) {
      errs.push_back(InvalidError(p.Index(i), versions[i], "duplicate version"));
      continue;
    }
    AddProblems(errs, p.Index(i), versions[i], am::IsDNS1035Label(versions[i]));
    if (versions[i] == "v1" || versions[i] == "v1beta1") accepted = true;
  }
  if (require_recognized && !accepted) {
    errs.push_back(catalog::InvalidGo(p, catalog::GoStringSlice(versions), "must include at least one of v1, v1beta1"));
  }
  return errs;
}

struct WebhookOptions {
  bool require_no_side_effects = true;
  bool require_recognized_review_version = true;
  bool require_unique_names = true;
  bool allow_invalid_label_value = false;
  bool ignore_match_conditions = false;
};

bool NoSideEffects(const std::string& s) { return s == "None" || s == "NoneOnDryRun"; }

ErrorList ValidateWebhook(const json::object& hook, bool mutating, const WebhookOptions& opts, const FieldPath& p) {
  ErrorList errs;
  Append(errs, catalog::FullyQualifiedName(p.Child("name"), StringAt(hook, "name")));
  ForEach(hook, "rules", [&](const json::object& rule, size_t i) {
    Append(errs, ValidateRuleWithOperations(rule, p.Child("rules").Index(i)));
  });
  if (auto fp = catalog::OptString(&hook, "failurePolicy"); fp && *fp != "Ignore" && *fp != "Fail") {
    errs.push_back(NotSupportedError(p.Child("failurePolicy"), *fp, {"Fail", "Ignore"}));
  }
  if (auto mp = catalog::OptString(&hook, "matchPolicy"); mp && *mp != "Exact" && *mp != "Equivalent") {
    errs.push_back(NotSupportedError(p.Child("matchPolicy"), *mp, {"Equivalent", "Exact"}));
  }
  std::vector<std::string> allowed = opts.require_no_side_effects
                                         ? std::vector<std::string>{"None", "NoneOnDryRun"}
                                         : std::vector<std::string>{"None", "NoneOnDryRun", "Some", "Unknown"};
  auto side = catalog::OptString(&hook, "sideEffects");
  if (!side) {
    errs.push_back(RequiredError(p.Child("sideEffects"), "must specify one of " + Join(allowed, ", ")));
  } else if (std::find(allowed.begin(), allowed.end(), *side) == allowed.end()) {
    errs.push_back(NotSupportedError(p.Child("sideEffects"), *side, allowed));
  }
  if (auto t = catalog::OptInt(&hook, "timeoutSeconds"); t && (*t > 30 || *t < 1)) {
    errs.push_back(InvalidError(p.Child("timeoutSeconds"), *t, "the timeout value must be between 1 and 30 seconds"));
  }
  Append(errs, ValidateSelectorAt(hook, "namespaceSelector", p, opts.allow_invalid_label_value));
  Append(errs, ValidateSelectorAt(hook, "objectSelector", p, opts.allow_invalid_label_value));
  if (mutating) {
    if (auto rp = catalog::OptString(&hook, "reinvocationPolicy"); rp && *rp != "Never" && *rp != "IfNeeded") {
      errs.push_back(NotSupportedError(p.Child("reinvocationPolicy"), *rp, {"IfNeeded", "Never"}));
    }
  }
  const json::object& cc = ObjectOrEmpty(ObjectAt(hook, "clientConfig"));
  auto url = catalog::OptString(&cc, "url");
  const json::object* svc = ObjectAt(cc, "service");
  if (url.has_value() == (svc != nullptr)) {
    errs.push_back(RequiredError(p.Child("clientConfig"), "exactly one of url or service is required"));
  } else if (url) {
    Append(errs, ValidateWebhookUrl(p.Child("clientConfig").Child("url"), *url));
  } else {
    Append(errs, ValidateWebhookService(p.Child("clientConfig").Child("service"), *svc));
  }
  if (!opts.ignore_match_conditions) Append(errs, ValidateMatchConditions(hook, p.Child("matchConditions"), false));
  return errs;
}

// ---- policies ----

ErrorList ValidateNamedRule(const json::object& rule, const FieldPath& p) {
  ErrorList errs;
  std::set<std::string> names;
  auto rn = Strings(rule, "resourceNames");
  for (size_t i = 0; i < rn.size(); ++i) {
    AddProblems(errs, p.Child("resourceNames").Index(i), rn[i], am::ValidatePathSegmentName(rn[i], false));
    if (!names.insert(rn[i]).second) errs.push_back(DuplicateError(p.Child("resourceNames").Index(i), rn[i]));
  }
  Append(errs, ValidateRuleWithOperations(rule, p));
  return errs;
}

ErrorList ValidateMatchResources(const json::object* mr, const FieldPath& p) {
  ErrorList errs;
  if (!mr) return errs;
  auto mp = catalog::OptString(mr, "matchPolicy");
  if (!mp) {
    errs.push_back(RequiredError(p.Child("matchPolicy"), ""));
  } else if (*mp != "Exact" && *mp != "Equivalent") {
    errs.push_back(NotSupportedError(p.Child("matchPolicy"), *mp, {"Equivalent", "Exact"}));
  }
  for (const char* key : {"namespaceSelector", "objectSelector"}) {
    if (!catalog::Has(mr, key)) {
      errs.push_back(RequiredError(p.Child(key), ""));
    } else {
      Append(errs, ValidateSelectorAt(*mr, key, p, false));
    }
  }
  for (const char* key : {"resourceRules", "excludeResourceRules"}) {
    ForEach(*mr, key, [&](const json::object& rule, size_t i) { Append(errs, ValidateNamedRule(rule, p.Child(key).Index(i))); });
  }
  return errs;
}

ErrorList ValidateParamKind(const json::object& pk, const FieldPath& p) {
  ErrorList errs;
  std::string api_version = StringAt(pk, "apiVersion");
  if (api_version.empty()) {
    errs.push_back(RequiredError(p.Child("apiVersion"), ""));
  } else if (size_t slashes = std::count(api_version.begin(), api_version.end(), '/'); slashes > 1) {
    errs.push_back(InvalidError(p.Child("apiVersion"), api_version, "unexpected GroupVersion string: " + api_version));
  } else if (api_version != "/") {
    std::string group, version = api_version;
    if (slashes == 1) {
      group = api_version.substr(0, api_version.find('/'));
      version = api_version.substr(api_version.find('/') + 1);
    }
    if (!group.empty()) {
      if (auto problems = am::IsDNS1123Subdomain(group); !problems.empty()) {
        errs.push_back(InvalidError(p.Child("apiVersion"), group, Join(problems, ",")));
      }
    }
    if (version.empty()) {
      errs.push_back(InvalidError(p.Child("apiVersion"), api_version, "version must be specified"));
    } else if (auto problems = am::IsDNS1035Label(version); !problems.empty()) {
      errs.push_back(InvalidError(p.Child("apiVersion"), version, Join(problems, ",")));
    }
  }
  std::string kind = StringAt(pk, "kind");
  if (kind.empty()) {
    errs.push_back(RequiredError(p.Child("kind"), ""));
  } else if (auto problems = am::IsDNS1035Label(ToLower(kind)); !problems.empty()) {
    errs.push_back(InvalidError(p.Child("kind"), kind, "may have mixed case, but should otherwise match: " + Join(problems, ",")));
  }
  return errs;
}

bool IsCelIdentifier(const std::string& name) {
  static const std::regex re("^[_a-zA-Z][_a-zA-Z0-9]*$");
  static const std::set<std::string> reserved = {"true",     "false",   "null",    "in",        "as",     "break",
                                                 "const",    "continue", "else",   "for",       "function", "if",
                                                 "import",   "let",     "loop",    "package",   "namespace", "return",
                                                 "var",      "void",    "while"};
  return std::regex_match(name, re) && !reserved.count(name);
}

bool HasNewlines(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

ErrorList ValidateValidation(const json::object& v, const FieldPath& p) {
  ErrorList errs;
  std::string expression = StringAt(v, "expression");
  if (TrimSpace(expression).empty()) errs.push_back(RequiredError(p.Child("expression"), "expression is not specified"));
  std::string message_expression = StringAt(v, "messageExpression");
  if (!message_expression.empty() && TrimSpace(message_expression).empty()) {
    errs.push_back(InvalidError(p.Child("messageExpression"), message_expression, "must be non-empty if specified"));
  }
  std::string message = StringAt(v, "message");
  std::string_view trimmed = TrimSpace(message);
  if (!message.empty() && trimmed.empty()) {
    errs.push_back(InvalidError(p.Child("message"), message, "message must be non-empty if specified"));
  } else if (HasNewlines(trimmed)) {
    errs.push_back(InvalidError(p.Child("message"), message, "message must not contain line breaks"));
  }
  if (auto reason = catalog::OptString(&v, "reason");
      reason && *reason != "Forbidden" && *reason != "Invalid" && *reason != "RequestEntityTooLarge") {
    errs.push_back(NotSupportedError(p.Child("reason"), *reason, {"Forbidden", "Invalid", "RequestEntityTooLarge"}));
  }
  return errs;
}

ErrorList ValidateAuditAnnotation(const std::string& policy_name, const json::object& a, const FieldPath& p) {
  ErrorList errs;
  std::string key = StringAt(a, "key");
  if (!policy_name.empty()) {
    Append(errs, catalog::QualifiedName(p.Child("key"), policy_name + "/" + key));
  } else {
    errs.push_back(InvalidError(p.Child("key"), key, "requires metadata.name be non-empty"));
  }
  std::string value(TrimSpace(StringAt(a, "valueExpression")));
  if (value.empty()) {
    errs.push_back(RequiredError(p.Child("valueExpression"), "valueExpression is not specified"));
  } else if (value.size() > 5 * 1024) {
    errs.push_back(RequiredError(p.Child("valueExpression"), "must not exceed 5120 bytes in length"));
  }
  return errs;
}

ErrorList ValidateConditions(const json::array* conditions, const FieldPath& p) {
  ErrorList errs;
  if (!conditions) return errs;
  static const std::regex reason_re("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$");
  std::set<std::string> types;
  for (size_t i = 0; i < conditions->size(); ++i) {
    const json::object& c = (*conditions)[i].is_object() ? (*conditions)[i].get_object() : kEmpty;
    FieldPath cp = p.Index(i);
    std::string type = StringAt(c, "type");
    if (!types.insert(type).second) errs.push_back(DuplicateError(cp.Child("type"), type));
    Append(errs, catalog::QualifiedName(cp.Child("type"), type));
    std::string status = StringAt(c, "status");
    if (status != "True" && status != "False" && status != "Unknown") {
      errs.push_back(NotSupportedError(cp.Child("status"), status, {"False", "True", "Unknown"}));
    }
    if (auto g = catalog::OptInt(&c, "observedGeneration"); g && *g < 0) {
      errs.push_back(InvalidError(cp.Child("observedGeneration"), *g, "must be greater than or equal to zero"));
    }
    if (StringAt(c, "lastTransitionTime").empty()) errs.push_back(RequiredError(cp.Child("lastTransitionTime"), "must be set"));
    std::string reason = StringAt(c, "reason");
    if (reason.empty()) {
      errs.push_back(RequiredError(cp.Child("reason"), "must be set"));
    } else {
      if (reason.size() > 1024) errs.push_back(TooLongError(cp.Child("reason"), 1024));
      if (!std::regex_match(reason, reason_re)) {
        errs.push_back(InvalidError(cp.Child("reason"), reason,
                                    am::RegexError("a condition reason must start with alphabetic character, optionally "
                                                   "followed by a string of alphanumeric characters or '_,:', and must "
                                                   "end with an alphanumeric character or '_'",
                                                   "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?", {"my_name", "MY_NAME",
                                                                                               "MyName", "ReasonA,ReasonB",
                                                                                               "ReasonA:ReasonB"})));
      }
    }
    if (StringAt(c, "message").size() > 32768) errs.push_back(TooLongError(cp.Child("message"), 32768));
  }
  return errs;
}

}  // namespace

void DefaultWebhooks(json::object& config, bool mutating) {
  ForEachMutable(config, "webhooks", [mutating](json::object& hook) {
    catalog::DefaultField(hook, "failurePolicy", "Fail");
    catalog::DefaultField(hook, "matchPolicy", "Equivalent");
    catalog::DefaultField(hook, "namespaceSelector", json::object());
    catalog::DefaultField(hook, "objectSelector", json::object());
    catalog::DefaultField(hook, "timeoutSeconds", 10);
    if (mutating) catalog::DefaultField(hook, "reinvocationPolicy", "Never");
    DefaultRules(hook, "rules");
    json::value* cc = hook.if_contains("clientConfig");
    if (cc && cc->is_object()) {
      json::value* svc = cc->get_object().if_contains("service");
      if (svc && svc->is_object()) catalog::DefaultField(svc->get_object(), "port", 443);
    }
  });
}

void DefaultPolicy(json::object& policy) {
  json::value* spec = policy.if_contains("spec");
  if (!spec || !spec->is_object()) return;
  catalog::DefaultField(spec->get_object(), "failurePolicy", "Fail");
  json::value* mc = spec->get_object().if_contains("matchConstraints");
  if (mc && mc->is_object()) DefaultMatchResources(mc->get_object());
}

void DefaultBinding(json::object& binding) {
  json::value* spec = binding.if_contains("spec");
  if (!spec || !spec->is_object()) return;
  json::value* mr = spec->get_object().if_contains("matchResources");
  if (mr && mr->is_object()) DefaultMatchResources(mr->get_object());
}

ErrorList ValidateWebhookConfiguration(const json::object& config, const json::object* old, bool mutating) {
  WebhookOptions opts;
  if (old) {
    std::set<std::string> names;
    const json::array* hooks = ArrayAt(*old, "webhooks");
    opts.require_no_side_effects = true;
    opts.require_recognized_review_version = true;
    opts.require_unique_names = true;
    ForEach(*old, "webhooks", [&](const json::object& h, size_t) {
      auto side = catalog::OptString(&h, "sideEffects");
      if (!side || !NoSideEffects(*side)) opts.require_no_side_effects = false;
      auto versions = Strings(h, "admissionReviewVersions");
      bool recognized = versions.empty();
      for (const auto& v : versions) recognized = recognized || v == "v1" || v == "v1beta1";
      if (!recognized) opts.require_recognized_review_version = false;
      if (!names.insert(StringAt(h, "name")).second) opts.require_unique_names = false;
      for (const char* key : {"namespaceSelector", "objectSelector"}) {
        if (!ValidateSelectorAt(h, key, FieldPath(), false).empty()) opts.allow_invalid_label_value = true;
      }
    });
    // Unchanged match conditions are not checked again.
    const json::array* now = ArrayAt(config, "webhooks");
    if ((now ? now->size() : 0) == (hooks ? hooks->size() : 0)) {
      bool same = true;
      for (size_t i = 0; now && i < now->size(); ++i) {
        const json::value* a = (*now)[i].is_object() ? (*now)[i].get_object().if_contains("matchConditions") : nullptr;
        const json::value* b = (*hooks)[i].is_object() ? (*hooks)[i].get_object().if_contains("matchConditions") : nullptr;
        same = same && catalog::SameValue(a, b);
      }
      opts.ignore_match_conditions = same;
    }
  }
  ErrorList errs;
  std::set<std::string> names;
  ForEach(config, "webhooks", [&](const json::object& hook, size_t i) {
    FieldPath p = FieldPath("webhooks").Index(i);
    Append(errs, ValidateWebhook(hook, mutating, opts, p));
    Append(errs, ValidateReviewVersions(Strings(hook, "admissionReviewVersions"), opts.require_recognized_review_version,
                                        p.Child("admissionReviewVersions")));
    std::string name = StringAt(hook, "name");
    if (opts.require_unique_names && !name.empty() && !names.insert(name).second) {
      errs.push_back(DuplicateError(p.Child("name"), name));
    }
  });
  return errs;
}

ErrorList ValidatePolicy(const json::object& policy, const json::object* old) {
  ErrorList errs;
  const json::object& spec = ObjectOrEmpty(ObjectAt(policy, "spec"));
  FieldPath p("spec");
  auto fp = catalog::OptString(&spec, "failurePolicy");
  if (!fp) {
    errs.push_back(RequiredError(p.Child("failurePolicy"), ""));
  } else if (*fp != "Ignore" && *fp != "Fail") {
    errs.push_back(NotSupportedError(p.Child("failurePolicy"), *fp, {"Fail", "Ignore"}));
  }
  if (const json::object* pk = ObjectAt(spec, "paramKind")) Append(errs, ValidateParamKind(*pk, p.Child("paramKind")));
  const json::object* mc = ObjectAt(spec, "matchConstraints");
  if (!mc) {
    errs.push_back(RequiredError(p.Child("matchConstraints"), ""));
  } else {
    Append(errs, ValidateMatchResources(mc, p.Child("matchConstraints")));
    if (CountAt(*mc, "resourceRules") == 0) errs.push_back(RequiredError(p.Child("matchConstraints").Child("resourceRules"), ""));
  }
  bool ignore_conditions = false;
  if (old) {
    const json::object& old_spec = ObjectOrEmpty(ObjectAt(*old, "spec"));
    ignore_conditions = catalog::SameValue(spec.if_contains("paramKind"), old_spec.if_contains("paramKind")) &&
                        catalog::SameValue(spec.if_contains("matchConditions"), old_spec.if_contains("matchConditions"));
  }
  if (!ignore_conditions) Append(errs, ValidateMatchConditions(spec, p.Child("matchConditions"), catalog::Has(&spec, "paramKind")));
  // The expressions compile in kube's admission environment, each variable seeing the ones before it.
  cel::AdmissionEnvOptions env_opts;
  env_opts.has_params = catalog::Has(&spec, "paramKind");
  env_opts.has_authorizer = true;
  ForEach(spec, "variables", [&](const json::object& v, size_t i) {
    std::string expression(TrimSpace(StringAt(v, "expression")));
    cel::TypePtr type = cel::DynType();
    if (!expression.empty()) {
      auto r = cel::CompileAdmissionExpression(expression, *cel::AdmissionEnv(env_opts), cel::ResultType::kAny);
      if (r.program) {
        type = r.program->result_type();
      } else {
        errs.push_back(InvalidError(p.Child("variables").Index(i).Child("expression"), std::string(expression), r.error));
      }
    }
    env_opts.variables.emplace_back(StringAt(v, "name"), type);
  });
  auto env = cel::AdmissionEnv(env_opts);
  cel::AdmissionEnvOptions message_opts = env_opts;
  message_opts.has_authorizer = false;
  auto message_env = cel::AdmissionEnv(message_opts);
  ForEach(spec, "validations", [&](const json::object& v, size_t i) {
    FieldPath vp = p.Child("validations").Index(i);
    if (std::string e(TrimSpace(StringAt(v, "expression"))); !e.empty()) {
      Append(errs, CompileError(vp.Child("expression"), e, *env, cel::ResultType::kBool));
    }
    if (std::string m(TrimSpace(StringAt(v, "messageExpression"))); !m.empty()) {
      Append(errs, CompileError(vp.Child("messageExpression"), m, *message_env, cel::ResultType::kString));
    }
  });
  ForEach(spec, "auditAnnotations", [&](const json::object& a, size_t i) {
    std::string e(TrimSpace(StringAt(a, "valueExpression")));
    if (!e.empty() && e.size() <= 5 * 1024) {
      Append(errs, CompileError(p.Child("auditAnnotations").Index(i).Child("valueExpression"), e, *message_env,
                                cel::ResultType::kStringOrNull));
    }
  });
  ForEach(spec, "variables", [&](const json::object& v, size_t i) {
    FieldPath vp = p.Child("variables").Index(i);
    std::string name = StringAt(v, "name");
    if (TrimSpace(name).empty()) {
      errs.push_back(RequiredError(vp.Child("name"), "name is not specified"));
    } else if (!IsCelIdentifier(name)) {
      errs.push_back(InvalidError(vp.Child("name"), name, "name is not a valid CEL identifier"));
    }
    if (TrimSpace(StringAt(v, "expression")).empty()) {
      errs.push_back(RequiredError(vp.Child("expression"), "expression is not specified"));
    }
  });
  size_t validations = CountAt(spec, "validations");
  size_t annotations = CountAt(spec, "auditAnnotations");
  if (validations == 0 && annotations == 0) {
    errs.push_back(RequiredError(p.Child("validations"), "validations or auditAnnotations must contain at least one item"));
    errs.push_back(RequiredError(p.Child("auditAnnotations"), "validations or auditAnnotations must contain at least one item"));
  } else {
    ForEach(spec, "validations", [&](const json::object& v, size_t i) { Append(errs, ValidateValidation(v, p.Child("validations").Index(i))); });
    if (annotations > 20) {
      errs.push_back(catalog::InvalidGo(p.Child("auditAnnotations"), json::serialize(spec.at("auditAnnotations")),
                                        "must not have more than 20 auditAnnotations"));
    }
    std::set<std::string> keys;
    std::string name(am::GetName(policy));
    ForEach(spec, "auditAnnotations", [&](const json::object& a, size_t i) {
      FieldPath ap = p.Child("auditAnnotations").Index(i);
      Append(errs, ValidateAuditAnnotation(name, a, ap));
      std::string key = StringAt(a, "key");
      if (!keys.insert(key).second) errs.push_back(DuplicateError(ap.Child("key"), key));
    });
  }
  return errs;
}

ErrorList ValidatePolicyStatus(const json::object& policy) {
  ErrorList errs;
  const json::object& status = ObjectOrEmpty(ObjectAt(policy, "status"));
  FieldPath p("status");
  if (const json::object* tc = ObjectAt(status, "typeChecking")) {
    ForEach(*tc, "expressionWarnings", [&](const json::object& w, size_t i) {
      FieldPath wp = p.Child("typeChecking").Child("expressionWarnings").Index(i);
      if (StringAt(w, "warning").empty()) errs.push_back(RequiredError(wp.Child("warning"), ""));
      if (TrimSpace(StringAt(w, "fieldRef")).empty()) errs.push_back(RequiredError(wp.Child("fieldRef"), ""));
    });
  }
  Append(errs, ValidateConditions(ArrayAt(status, "conditions"), p.Child("conditions")));
  return errs;
}

ErrorList ValidateBinding(const json::object& binding) {
  ErrorList errs;
  const json::object& spec = ObjectOrEmpty(ObjectAt(binding, "spec"));
  FieldPath p("spec");
  std::string policy = StringAt(spec, "policyName");
  if (policy.empty()) {
    errs.push_back(RequiredError(p.Child("policyName"), ""));
  } else {
    AddProblems(errs, p.Child("policyName"), policy, am::NameIsDNSSubdomain(policy, false));
  }
  if (const json::object* pr = ObjectAt(spec, "paramRef")) {
    FieldPath rp = p.Child("paramRef");
    std::string name = StringAt(*pr, "name");
    bool has_selector = catalog::Has(pr, "selector");
    if (!name.empty()) {
      AddProblems(errs, rp.Child("name"), name, am::ValidatePathSegmentName(name, false));
      if (has_selector) errs.push_back(ForbiddenError(rp.Child("name"), "name and selector are mutually exclusive"));
    }
    if (has_selector) {
      Append(errs, ValidateSelectorAt(*pr, "selector", rp, false));
      if (!name.empty()) errs.push_back(ForbiddenError(rp.Child("selector"), "name and selector are mutually exclusive"));
    }
    if (name.empty() && !has_selector) errs.push_back(RequiredError(rp, "one of name or selector must be specified"));
    std::string action = StringAt(*pr, "parameterNotFoundAction");
    if (action.empty()) {
      errs.push_back(RequiredError(rp.Child("parameterNotFoundAction"), ""));
    } else if (action != "Deny" && action != "Allow") {
      errs.push_back(NotSupportedError(rp.Child("parameterNotFoundAction"), action, {"Deny", "Allow"}));
    }
  }
  // kube's field path is spelled "matchResouces".
  Append(errs, ValidateMatchResources(ObjectAt(spec, "matchResources"), p.Child("matchResouces")));
  FieldPath ap = p.Child("validationActions");
  auto actions = Strings(spec, "validationActions");
  std::set<std::string> seen;
  for (size_t i = 0; i < actions.size(); ++i) {
    if (actions[i] != "Deny" && actions[i] != "Warn" && actions[i] != "Audit") {
      errs.push_back(NotSupportedError(ap.Index(i), actions[i], {"Audit", "Deny", "Warn"}));
    }
    if (!seen.insert(actions[i]).second) errs.push_back(DuplicateError(ap.Index(i), actions[i]));
  }
  if (seen.count("Deny") && seen.count("Warn")) {
    std::vector<std::string> q;
    for (const auto& a : actions) q.push_back(GoQuote(a));
    errs.push_back(catalog::InvalidGo(ap, "[]admissionregistration.ValidationAction{" + Join(q, ", ") + "}",
                                      "must not contain both Deny and Warn (repeating the same validation failure "
                                      "information in the API response and headers serves no purpose)"));
  }
  if (seen.empty()) errs.push_back(RequiredError(ap, "at least one validation action is required"));
  return errs;
}

}  // namespace capstan::api::admissionregistration
