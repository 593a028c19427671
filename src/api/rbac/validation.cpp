// api/rbac/validation.cpp: kube's pkg/apis/rbac/validation and the v1 defaults.
#include "api/common.h"
#include "api/rbac/rbac.h"
#include "apimachinery/labels.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::rbac {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr const char* kGroup = "rbac.authorization.k8s.io";

size_t ListSize(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_array() ? v->get_array().size() : 0;
}

// Go's %#v of the []string at `key`, as kube's field.Invalid prints a slice value.
std::string GoStringSlice(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v || !v->is_array()) return "[]string(nil)";
  std::vector<std::string> parts;
  for (const auto& x : v->get_array()) parts.push_back(GoQuote(x.is_string() ? std::string_view(x.get_string()) : ""));
  return "[]string{" + Join(parts, ", ") + "}";
}

FieldError InvalidRendered(const FieldPath& p, const std::string& rendered, std::string_view detail) {
  FieldError e = InvalidError(p, "", std::string(detail));
  e.omit_value = true;
  e.detail = rendered + ": " + std::string(detail);
  return e;
}

}  // namespace

ErrorList ValidatePolicyRule(const json::value& rule, bool namespaced, const FieldPath& path) {
  ErrorList errs;
  static const json::object kEmpty;
  const json::object& r = rule.is_object() ? rule.get_object() : kEmpty;
  if (ListSize(r, "verbs") == 0) errs.push_back(RequiredError(path.Child("verbs"), "verbs must contain at least one value"));
  if (ListSize(r, "nonResourceURLs") > 0) {
    if (namespaced) {
      errs.push_back(InvalidRendered(path.Child("nonResourceURLs"), GoStringSlice(r, "nonResourceURLs"),
                                  "namespaced rules cannot apply to non-resource URLs"));
    }
    if (ListSize(r, "apiGroups") > 0 || ListSize(r, "resources") > 0 || ListSize(r, "resourceNames") > 0) {
      errs.push_back(InvalidRendered(path.Child("nonResourceURLs"), GoStringSlice(r, "nonResourceURLs"),
                                  "rules cannot apply to both regular resources and non-resource URLs"));
    }
    return errs;
  }
  if (ListSize(r, "apiGroups") == 0) {
    errs.push_back(RequiredError(path.Child("apiGroups"), "resource rules must supply at least one api group"));
  }
  if (ListSize(r, "resources") == 0) {
    errs.push_back(RequiredError(path.Child("resources"), "resource rules must supply at least one resource"));
  }
  return errs;
}

ErrorList ValidateRoleRules(const registry::Object& role, bool namespaced) {
  ErrorList errs;
  if (const auto* rules = ArrayAt(role, "rules")) {
    for (size_t i = 0; i < rules->size(); ++i) {
      for (auto& e : ValidatePolicyRule((*rules)[i], namespaced, FieldPath("rules").Index(static_cast<int>(i)))) {
        errs.push_back(std::move(e));
      }
    }
  }
  return errs;
}

ErrorList ValidateAggregationRule(const registry::Object& cluster_role) {
  ErrorList errs;
  const auto* agg = ObjectAt(cluster_role, "aggregationRule");
  if (!agg) return errs;
  FieldPath path = FieldPath("aggregationRule").Child("clusterRoleSelectors");
  const auto* selectors = ArrayAt(*agg, "clusterRoleSelectors");
  if (!selectors || selectors->empty()) {
    errs.push_back(RequiredError(path, "at least one clusterRoleSelector required if aggregationRule is non-nil"));
    return errs;
  }
  for (size_t i = 0; i < selectors->size(); ++i) {
    FieldPath p = path.Index(static_cast<int>(i));
    for (auto& e : am::ValidateLabelSelector((*selectors)[i], p)) errs.push_back(std::move(e));
  }
  return errs;
}

ErrorList ValidateSubject(const json::value& subject, bool namespaced, const FieldPath& path) {
  ErrorList errs;
  static const json::object kEmpty;
  const json::object& s = subject.is_object() ? subject.get_object() : kEmpty;
  std::string name = StringAt(s, "name");
  std::string kind = StringAt(s, "kind");
  std::string group = StringAt(s, "apiGroup");
  if (name.empty()) errs.push_back(RequiredError(path.Child("name"), ""));
  if (kind == "ServiceAccount") {
    if (!name.empty()) {
      for (const auto& msg : am::NameIsDNSSubdomain(name, false)) errs.push_back(InvalidError(path.Child("name"), name, msg));
    }
    if (!group.empty()) errs.push_back(NotSupportedError(path.Child("apiGroup"), group, {""}));
    if (!namespaced && StringAt(s, "namespace").empty()) errs.push_back(RequiredError(path.Child("namespace"), ""));
  } else if (kind == "User" || kind == "Group") {
    if (group != kGroup) errs.push_back(NotSupportedError(path.Child("apiGroup"), group, {kGroup}));
  } else {
    errs.push_back(NotSupportedError(path.Child("kind"), kind, {"ServiceAccount", "User", "Group"}));
  }
  return errs;
}

ErrorList ValidateBinding(const registry::Object& binding, bool namespaced) {
  ErrorList errs;
  static const json::object kEmpty;
  const json::object* ref_ptr = ObjectAt(binding, "roleRef");
  const json::object& ref = ref_ptr ? *ref_ptr : kEmpty;
  FieldPath rp("roleRef");
  std::string group = StringAt(ref, "apiGroup");
  if (group != kGroup) errs.push_back(NotSupportedError(rp.Child("apiGroup"), group, {kGroup}));
  std::string kind = StringAt(ref, "kind");
  if (namespaced) {
    if (kind != "Role" && kind != "ClusterRole") {
      errs.push_back(NotSupportedError(rp.Child("kind"), kind, {"Role", "ClusterRole"}));
    }
  } else if (kind != "ClusterRole") {
    errs.push_back(NotSupportedError(rp.Child("kind"), kind, {"ClusterRole"}));
  }
  std::string name = StringAt(ref, "name");
  if (name.empty()) {
    errs.push_back(RequiredError(rp.Child("name"), ""));
  } else {
    for (const auto& msg : am::ValidatePathSegmentName(name, false)) errs.push_back(InvalidError(rp.Child("name"), name, msg));
  }
  if (const auto* subjects = ArrayAt(binding, "subjects")) {
    for (size_t i = 0; i < subjects->size(); ++i) {
      for (auto& e : ValidateSubject((*subjects)[i], namespaced, FieldPath("subjects").Index(static_cast<int>(i)))) {
        errs.push_back(std::move(e));
      }
    }
  }
  return errs;
}

void DefaultBinding(registry::Object& binding) {
  if (auto* ref = binding.if_contains("roleRef"); ref && ref->is_object()) {
    auto& r = ref->get_object();
    if (StringAt(r, "apiGroup").empty()) r["apiGroup"] = kGroup;
  }
  if (auto* subjects = binding.if_contains("subjects"); subjects && subjects->is_array()) {
    for (auto& s : subjects->get_array()) {
      if (!s.is_object()) continue;
      auto& o = s.get_object();
      std::string kind = StringAt(o, "kind");
      if (StringAt(o, "apiGroup").empty() && (kind == "User" || kind == "Group")) o["apiGroup"] = kGroup;
    }
  }
}

}  // namespace capstan::api::rbac
