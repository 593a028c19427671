#include "apimachinery/object_meta_validation.h"

#include <boost/json/array.hpp>
#include <cstdio>
#include <regex>
#include <set>

#include "apimachinery/gvk.h"
#include "apimachinery/utf8.h"
#include "util/strings.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;

constexpr std::string_view kFinalizerOrphanDependents = "orphan";
constexpr std::string_view kFinalizerDeleteDependents = "foregroundDeletion";

// Go's unicode.IsPrint, closely enough for field manager names: controls, separators other than
// ASCII space, and common format characters are not printable.
bool IsPrint(uint32_t r) {
  if (r < 0x20 || (r >= 0x7f && r <= 0xa0) || r == 0xad) return false;
  if ((r >= 0x2000 && r <= 0x200f) || (r >= 0x2028 && r <= 0x202f) || (r >= 0x205f && r <= 0x206f)) return false;
  if (r == 0x3000 || r == 0xfeff || (r >= 0xfff9 && r <= 0xfffb)) return false;
  return true;
}

// Go's %#v of a []string: []string{"a", "b"}.
std::string GoStringSlice(const std::vector<std::string>& v) {
  std::string s = "[]string{";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i > 0) s += ", ";
    s += GoQuote(v[i]);
  }
  return s + "}";
}

json::value OptString(const std::optional<std::string>& v) { return v ? json::value(*v) : json::value(nullptr); }
json::value OptInt(const std::optional<int64_t>& v) { return v ? json::value(*v) : json::value(nullptr); }

void Append(ErrorList& to, ErrorList from) {
  for (FieldError& e : from) to.push_back(std::move(e));
}

ErrorList ValidateOwnerReference(const OwnerReference& ref, const FieldPath& path) {
  ErrorList errs;
  auto gv = ParseGroupVersion(ref.api_version);
  GroupVersion parsed = gv.ok() ? *gv : GroupVersion{};
  if (ref.api_version.empty()) {
    errs.push_back(RequiredError(path.Child("apiVersion"), "must not be empty"));
  } else if (!gv.ok() || gv->version.empty()) {
    errs.push_back(InvalidError(path.Child("apiVersion"), json::value(ref.api_version),
                                "must be <group>/<version> or <version>"));
  }
  if (ref.kind.empty()) errs.push_back(RequiredError(path.Child("kind"), "must not be empty"));
  if (ref.name.empty()) errs.push_back(RequiredError(path.Child("name"), "must not be empty"));
  if (ref.uid.empty()) errs.push_back(RequiredError(path.Child("uid"), "must not be empty"));
  GroupVersionKind gvk = parsed.WithKind(ref.kind);
  if (gvk == GroupVersionKind{"", "v1", "Event"}) {
    errs.push_back(InvalidError(path, json::value(ref.ToJson()), gvk.String() + " is disallowed from being an owner"));
  }
  return errs;
}

ErrorList ValidateImmutable(const json::value& new_v, const json::value& old_v, const FieldPath& path) {
  ErrorList errs;
  if (new_v != old_v) errs.push_back(InvalidError(path, new_v, std::string(kFieldImmutableErrorMsg)));
  return errs;
}

}  // namespace

ErrorList ValidateNonnegativeField(int64_t value, const FieldPath& path) {
  ErrorList errs;
  if (value < 0) errs.push_back(InvalidError(path, value, std::string(kIsNegativeErrorMsg)));
  return errs;
}

ErrorList ValidateLabelName(std::string_view name, const FieldPath& path) {
  ErrorList errs;
  for (const std::string& m : IsQualifiedName(name)) errs.push_back(InvalidError(path, json::value(name), m));
  return errs;
}

ErrorList ValidateLabels(const StringPairs& labels, const FieldPath& path) {
  ErrorList errs;
  for (const auto& [k, v] : labels) {
    Append(errs, ValidateLabelName(k, path));
    for (const std::string& m : IsValidLabelValue(v)) errs.push_back(InvalidError(path, json::value(v), m));
  }
  return errs;
}

ErrorList ValidateAnnotations(const StringPairs& annotations, const FieldPath& path) {
  ErrorList errs;
  int64_t total = 0;
  for (const auto& [k, v] : annotations) {
    for (const std::string& m : IsQualifiedName(ToLower(k))) errs.push_back(InvalidError(path, json::value(k), m));
    total += static_cast<int64_t>(k.size() + v.size());
  }
  if (total > kTotalAnnotationSizeLimitBytes) errs.push_back(TooLongError(path, kTotalAnnotationSizeLimitBytes));
  return errs;
}

ErrorList ValidateOwnerReferences(const std::vector<OwnerReference>& refs, const FieldPath& path) {
  ErrorList errs;
  std::string first_controller;
  for (size_t i = 0; i < refs.size(); ++i) {
    Append(errs, ValidateOwnerReference(refs[i], path.Index(i)));
    if (refs[i].controller.value_or(false)) {
      std::string cur = refs[i].kind + "/" + refs[i].name;
      if (!first_controller.empty()) {
        json::array all;
        for (const OwnerReference& r : refs) all.push_back(r.ToJson());
        errs.push_back(InvalidError(path, json::value(std::move(all)),
                                    "Only one reference can have Controller set to true. Found \"true\" in "
                                    "references for " +
                                        first_controller + " and " + cur));
      } else {
        first_controller = cur;
      }
    }
  }
  return errs;
}

ErrorList ValidateFinalizers(const std::vector<std::string>& finalizers, const FieldPath& path) {
  ErrorList errs;
  bool orphan = false, foreground = false;
  for (const std::string& f : finalizers) {
    for (const std::string& m : IsQualifiedName(f)) errs.push_back(InvalidError(path, json::value(f), m));
    orphan = orphan || f == kFinalizerOrphanDependents;
    foreground = foreground || f == kFinalizerDeleteDependents;
  }
  if (orphan && foreground) {
    json::array all;
    for (const std::string& f : finalizers) all.emplace_back(f);
    errs.push_back(InvalidError(path, json::value(std::move(all)),
                                "finalizer orphan and foregroundDeletion cannot be both set"));
  }
  return errs;
}

ErrorList ValidateFieldManager(std::string_view manager, const FieldPath& path) {
  ErrorList errs;
  if (manager.size() > 128) errs.push_back(TooLongError(path, 128));
  for (size_t i = 0; i < manager.size();) {
    size_t len = 1;
    uint32_t r = DecodeUtf8(manager.substr(i), len);
    if (!IsPrint(r)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "invalid character U+%04X (at position %zu)", r, i);
      errs.push_back(InvalidError(path, json::value(manager), buf));
    }
    i += len;
  }
  return errs;
}

ErrorList ValidateManagedFields(const std::vector<ManagedFieldsEntry>& fields, const FieldPath& path) {
  ErrorList errs;
  for (size_t i = 0; i < fields.size(); ++i) {
    FieldPath p = path.Index(i);
    const ManagedFieldsEntry& f = fields[i];
    if (f.operation.empty()) {
      errs.push_back(RequiredError(p.Child("operation"), "must not be empty"));
    } else if (f.operation != "Apply" && f.operation != "Update") {
      errs.push_back(NotSupportedError(p.Child("operation"), json::value(f.operation), {"Apply", "Update"}));
    }
    if (!f.fields_type.empty() && f.fields_type != "FieldsV1") {
      errs.push_back(InvalidError(p.Child("fieldsType"), json::value(f.fields_type), "must be `FieldsV1`"));
    }
    Append(errs, ValidateFieldManager(f.manager, p.Child("manager")));
    if (f.subresource.size() > 256) errs.push_back(TooLongError(p.Child("subresource"), 256));
  }
  return errs;
}

ErrorList ValidateObjectMeta(const json::object& obj, bool namespaced, const NameValidator& name_fn,
                             const FieldPath& path) {
  ObjectMeta m = ReadObjectMeta(obj);
  ErrorList errs;
  if (!m.generate_name.empty()) {
    for (const std::string& msg : name_fn(m.generate_name, true)) {
      errs.push_back(InvalidError(path.Child("generateName"), json::value(m.generate_name), msg));
    }
  }
  if (m.name.empty()) {
    errs.push_back(RequiredError(path.Child("name"), "name or generateName is required"));
  } else {
    for (const std::string& msg : name_fn(m.name, false)) {
      errs.push_back(InvalidError(path.Child("name"), json::value(m.name), msg));
    }
  }
  if (namespaced) {
    if (m.namespace_.empty()) {
      errs.push_back(RequiredError(path.Child("namespace"), ""));
    } else {
      for (const std::string& msg : ValidateNamespaceName(m.namespace_, false)) {
        errs.push_back(InvalidError(path.Child("namespace"), json::value(m.namespace_), msg));
      }
    }
  } else if (!m.namespace_.empty()) {
    errs.push_back(ForbiddenError(path.Child("namespace"), "not allowed on this type"));
  }
  Append(errs, ValidateNonnegativeField(m.generation, path.Child("generation")));
  Append(errs, ValidateLabels(m.labels, path.Child("labels")));
  Append(errs, ValidateAnnotations(m.annotations, path.Child("annotations")));
  Append(errs, ValidateOwnerReferences(m.owner_references, path.Child("ownerReferences")));
  Append(errs, ValidateFinalizers(m.finalizers, path.Child("finalizers")));
  Append(errs, ValidateManagedFields(m.managed_fields, path.Child("managedFields")));
  return errs;
}

ErrorList ValidateObjectMetaUpdate(const json::object& new_obj, const json::object& old_obj, const FieldPath& path) {
  ObjectMeta n = ReadObjectMeta(new_obj);
  ObjectMeta o = ReadObjectMeta(old_obj);
  ErrorList errs;
  if (o.deletion_timestamp.has_value()) {
    std::set<std::string> old_set(o.finalizers.begin(), o.finalizers.end());
    std::set<std::string> extra;
    for (const std::string& f : n.finalizers) {
      if (!old_set.count(f)) extra.insert(f);
    }
    if (!extra.empty()) {
      errs.push_back(ForbiddenError(path.Child("finalizers"),
                                    "no new finalizers can be added if the object is being deleted, found new "
                                    "finalizers " +
                                        GoStringSlice({extra.begin(), extra.end()})));
    }
  }
  if (n.resource_version.empty()) {
    errs.push_back(InvalidError(path.Child("resourceVersion"), json::value(""), "must be specified for an update"));
  }
  Append(errs, ValidateNonnegativeField(n.generation, path.Child("generation")));
  if (n.generation < o.generation) {
    errs.push_back(InvalidError(path.Child("generation"), n.generation, "must not be decremented"));
  }
  Append(errs, ValidateImmutable(json::value(n.name), json::value(o.name), path.Child("name")));
  Append(errs, ValidateImmutable(json::value(n.namespace_), json::value(o.namespace_), path.Child("namespace")));
  Append(errs, ValidateImmutable(json::value(n.uid), json::value(o.uid), path.Child("uid")));
  auto ts = [](const std::string& s) { return s.empty() ? json::value(nullptr) : json::value(s); };
  Append(errs, ValidateImmutable(ts(n.creation_timestamp), ts(o.creation_timestamp), path.Child("creationTimestamp")));
  Append(errs, ValidateImmutable(OptString(n.deletion_timestamp), OptString(o.deletion_timestamp),
                                 path.Child("deletionTimestamp")));
  Append(errs, ValidateImmutable(OptInt(n.deletion_grace_period_seconds), OptInt(o.deletion_grace_period_seconds),
                                 path.Child("deletionGracePeriodSeconds")));
  Append(errs, ValidateLabels(n.labels, path.Child("labels")));
  Append(errs, ValidateAnnotations(n.annotations, path.Child("annotations")));
  Append(errs, ValidateOwnerReferences(n.owner_references, path.Child("ownerReferences")));
  Append(errs, ValidateManagedFields(n.managed_fields, path.Child("managedFields")));
  return errs;
}

ErrorList ValidateDomainPrefixedPath(std::string_view v, const FieldPath& p) {
  if (v.empty()) return {RequiredError(p, "")};
  size_t slash = v.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 == v.size()) {
    return {InvalidError(p, v, "must be a domain-prefixed path (such as \"acme.io/foo\")")};
  }
  ErrorList errs;
  std::string_view host = v.substr(0, slash);
  for (const auto& m : IsDNS1123Subdomain(host)) errs.push_back(InvalidError(p, host, m));
  std::string_view path = v.substr(slash + 1);
  static const std::regex re(R"(^[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$)");
  if (!std::regex_match(path.begin(), path.end(), re)) {
    errs.push_back(InvalidError(p, path, RegexError("Invalid path", R"([A-Za-z0-9/\-._~%!$&'()*+,;=:]+)", {})));
  }
  return errs;
}

}  // namespace capstan::apimachinery
