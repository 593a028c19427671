#include "api/apiextensions/crd_v1beta1.h"

#include <boost/json.hpp>

namespace capstan::api::apiextensions {

namespace json = boost::json;

namespace {

constexpr std::string_view kV1 = "apiextensions.k8s.io/v1";
constexpr std::string_view kV1beta1 = "apiextensions.k8s.io/v1beta1";

// The per-version fields and their top-level names in v1beta1.
struct Hoisted {
  const char* version_key;
  const char* spec_key;
};
constexpr Hoisted kHoisted[] = {
    {"subresources", "subresources"},
    {"schema", "validation"},
    {"additionalPrinterColumns", "additionalPrinterColumns"},
    {"selectableFields", "selectableFields"},
};

bool IsApiVersion(const json::object& o, std::string_view v) {
  const json::value* a = o.if_contains("apiVersion");
  return a && a->is_string() && a->get_string() == v;
}

// Printer columns: v1 "jsonPath", v1beta1 "JSONPath".
void RenameColumnPaths(json::value& columns, const char* from, const char* to) {
  if (!columns.is_array()) return;
  for (auto& c : columns.get_array()) {
    if (!c.is_object()) continue;
    auto& o = c.get_object();
    if (auto* p = o.if_contains(from)) {
      json::value v = std::move(*p);
      o.stable_erase(from);
      o[to] = std::move(v);
    }
  }
}

}  // namespace

// Both directions work on values taken out of the document and put back at the end: inserting into
// or erasing from a json::object moves its elements, so no reference into it is kept across a change.

StatusOr<json::object> CrdV1ToV1beta1(json::object crd) {
  if (!IsApiVersion(crd, kV1)) return crd;
  crd["apiVersion"] = kV1beta1;
  json::value* spec_v = crd.if_contains("spec");
  if (!spec_v || !spec_v->is_object()) return crd;
  json::object spec = std::move(spec_v->get_object());
  // v1's bool is v1beta1's pointer, always set (else v1beta1's default, true, would apply on read).
  if (const auto* p = spec.if_contains("preserveUnknownFields"); !p || !p->is_bool()) spec["preserveUnknownFields"] = false;
  json::array versions;
  if (auto* v = spec.if_contains("versions"); v && v->is_array()) versions = std::move(v->get_array());
  if (!versions.empty()) {
    if (const auto* first = versions[0].if_object(); first && first->contains("name")) spec["version"] = first->at("name");
    for (const Hoisted& h : kHoisted) {
      // Identical in every version (absent counts as a value): moved to the top, when set.
      const json::value* first = versions[0].is_object() ? versions[0].get_object().if_contains(h.version_key) : nullptr;
      bool identical = true;
      for (const auto& v : versions) {
        const json::value* x = v.is_object() ? v.get_object().if_contains(h.version_key) : nullptr;
        if ((x == nullptr) != (first == nullptr) || (x && *x != *first)) identical = false;
      }
      if (!identical) continue;
      if (first && !first->is_null()) spec[h.spec_key] = *first;
      for (auto& v : versions) {
        if (v.is_object()) v.get_object().stable_erase(h.version_key);
      }
    }
    for (auto& v : versions) {
      if (auto* c = v.is_object() ? v.get_object().if_contains("additionalPrinterColumns") : nullptr) {
        RenameColumnPaths(*c, "jsonPath", "JSONPath");
      }
    }
    spec["versions"] = std::move(versions);
  }
  if (auto* c = spec.if_contains("additionalPrinterColumns")) RenameColumnPaths(*c, "jsonPath", "JSONPath");
  if (auto* conv = spec.if_contains("conversion"); conv && conv->is_object()) {
    json::object c = std::move(conv->get_object());
    json::object hook;
    if (auto* h = c.if_contains("webhook"); h && h->is_object()) hook = std::move(h->get_object());
    c.stable_erase("webhook");
    if (auto* cc = hook.if_contains("clientConfig")) c["webhookClientConfig"] = std::move(*cc);
    if (auto* rv = hook.if_contains("conversionReviewVersions")) c["conversionReviewVersions"] = std::move(*rv);
    spec["conversion"] = std::move(c);
  }
  crd["spec"] = std::move(spec);
  return crd;
}

StatusOr<json::object> CrdV1beta1ToV1(json::object crd) {
  if (!IsApiVersion(crd, kV1beta1)) return crd;
  crd["apiVersion"] = kV1;
  json::value* spec_v = crd.if_contains("spec");
  if (!spec_v || !spec_v->is_object()) return crd;
  json::object spec = std::move(spec_v->get_object());
  // v1beta1's defaults, as kube's decoder applies them to a stored object; v1's field is a bool with
  // omitempty, so false is not written.
  const json::value* keep = spec.if_contains("preserveUnknownFields");
  const bool preserve = !keep || keep->is_null() || *keep == json::value(true);
  spec.stable_erase("preserveUnknownFields");
  if (preserve) spec["preserveUnknownFields"] = true;
  json::array versions;
  if (auto* v = spec.if_contains("versions"); v && v->is_array()) versions = std::move(v->get_array());
  if (versions.empty()) {
    if (const auto* v = spec.if_contains("version"); v && v->is_string() && !v->get_string().empty()) {
      versions.push_back(json::object{{"name", *v}, {"served", true}, {"storage", true}});
    }
  }
  spec.stable_erase("version");
  if (auto* c = spec.if_contains("additionalPrinterColumns")) RenameColumnPaths(*c, "JSONPath", "jsonPath");
  for (auto& v : versions) {
    if (auto* c = v.is_object() ? v.get_object().if_contains("additionalPrinterColumns") : nullptr) {
      RenameColumnPaths(*c, "JSONPath", "jsonPath");
    }
  }
  for (const Hoisted& h : kHoisted) {
    const json::value* top = spec.if_contains(h.spec_key);
    if (!top) continue;
    if (!top->is_null()) {
      for (auto& v : versions) {
        if (v.is_object()) v.get_object()[h.version_key] = *top;
      }
    }
    spec.stable_erase(h.spec_key);
  }
  if (versions.empty()) {
    spec.stable_erase("versions");
  } else {
    spec["versions"] = std::move(versions);
  }
  if (auto* conv = spec.if_contains("conversion"); conv && conv->is_object()) {
    json::object c = std::move(conv->get_object());
    json::value cc = c.if_contains("webhookClientConfig") ? c.at("webhookClientConfig") : json::value();
    json::value rv = c.if_contains("conversionReviewVersions") ? c.at("conversionReviewVersions") : json::value();
    c.stable_erase("webhookClientConfig");
    c.stable_erase("conversionReviewVersions");
    if (!cc.is_null() || !rv.is_null()) {
      json::object w;
      if (!cc.is_null()) w["clientConfig"] = std::move(cc);
      if (!rv.is_null()) w["conversionReviewVersions"] = std::move(rv);
      c["webhook"] = std::move(w);
    }
    spec["conversion"] = std::move(c);
  }
  crd["spec"] = std::move(spec);
  return crd;
}

}  // namespace capstan::api::apiextensions
