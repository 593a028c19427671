#include "api/apiextensions/custom_resource_strategy.h"

#include "apimachinery/labels.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "apimachinery/schema_default.h"
#include "apimachinery/schema_prune.h"
#include "apimachinery/schema_validate.h"

#include "util/feature_gate.h"
namespace capstan::api::apiextensions {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

registry::DefaultStrategy::Options OptionsOf(const CustomResourceStrategy::Config& c) {
  registry::DefaultStrategy::Options o;
  o.namespaced = c.namespaced;
  o.has_status = c.has_status;
  o.track_generation = true;
  return o;
}

void ValidateEmbeddedResource(ErrorList& errs, const json::object& x, const FieldPath& p) {
  if (!x.contains("apiVersion")) errs.push_back(RequiredError(p.Child("apiVersion"), ""));
  if (!x.contains("kind")) errs.push_back(RequiredError(p.Child("kind"), ""));
  for (const auto& [k, v] : x) {
    if (k == "apiVersion") {
      if (!v.is_string()) {
        errs.push_back(InvalidError(p.Child("apiVersion"), FieldValue(v), "must be a string"));
      } else if (v.get_string().empty()) {
        errs.push_back(InvalidError(p.Child("apiVersion"), "", "must not be empty"));
      } else {
        std::string_view av = v.get_string();
        size_t slash = av.find('/');
        if (slash != std::string_view::npos && (av.find('/', slash + 1) != std::string_view::npos || slash == 0 || slash + 1 == av.size())) {
          errs.push_back(InvalidError(p.Child("apiVersion"), std::string(av), "unexpected GroupVersion string: " + std::string(av)));
        }
      }
    } else if (k == "kind") {
      if (!v.is_string()) {
        errs.push_back(InvalidError(p.Child("kind"), FieldValue(v), "must be a string"));
      } else if (v.get_string().empty()) {
        errs.push_back(InvalidError(p.Child("kind"), "", "must not be empty"));
      } else {
        std::string lower(v.get_string());
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (auto pr = am::IsDNS1035Label(lower); !pr.empty()) {
          std::string joined;
          for (size_t i = 0; i < pr.size(); ++i) joined += (i ? "," : "") + pr[i];
          errs.push_back(InvalidError(p.Child("kind"), std::string(v.get_string()),
                                      "may have mixed case, but should otherwise match: " + joined));
        }
      }
    } else if (k == "metadata" && v.is_object()) {
      json::object copy;
      copy["metadata"] = v;
      json::object& md = copy["metadata"].as_object();
      const bool namespaced = md.contains("namespace") && md["namespace"].is_string() && !md["namespace"].get_string().empty();
      if (!md.contains("name") || !md["name"].is_string() || md["name"].get_string().empty()) md["name"] = "fakename";
      for (auto& e : am::ValidateObjectMeta(copy, namespaced, am::ValidatePathSegmentName, p.Child("metadata"))) {
        errs.push_back(std::move(e));
      }
    }
  }
}

// kube's objectmeta.Validate below the root: TypeMeta and ObjectMeta of embedded resources.
void ValidateEmbedded(ErrorList& errs, const json::value& x, const am::Schema* s, const FieldPath& p, int depth = 0) {
  if (!s || depth > 64) return;
  const am::Schema& d = s->Deref();
  if (x.is_object()) {
    if (depth > 0 && s->EmbeddedResource()) ValidateEmbeddedResource(errs, x.get_object(), p);
    for (const auto& [k, v] : x.get_object()) {
      if (const am::Schema* prop = d.Property(k)) {
        ValidateEmbedded(errs, v, prop, p.Child(k), depth + 1);
      } else if (d.additional_properties) {
        ValidateEmbedded(errs, v, d.additional_properties, p.Key(k), depth + 1);
      }
    }
  } else if (x.is_array()) {
    const auto& a = x.get_array();
    for (size_t i = 0; i < a.size(); ++i) ValidateEmbedded(errs, a[i], d.items, p.Index(i), depth + 1);
  }
}

// The value at a field path of kube's form ("spec.ports[0].name", "spec.labels[app]"), or null.
const json::value* AtFieldPath(const json::value& root, std::string_view path) {
  const json::value* v = &root;
  size_t i = 0;
  while (i < path.size() && v) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      size_t close = path.find(']', i);
      if (close == std::string_view::npos) return nullptr;
      std::string_view key = path.substr(i + 1, close - i - 1);
      i = close + 1;
      if (v->is_array()) {
        size_t idx = 0;
        for (char c : key) {
          if (c < '0' || c > '9') return nullptr;
          idx = idx * 10 + static_cast<size_t>(c - '0');
        }
        v = idx < v->get_array().size() ? &v->get_array()[idx] : nullptr;
      } else if (v->is_object()) {
        v = v->get_object().if_contains(key);
      } else {
        return nullptr;
      }
      continue;
    }
    size_t end = path.find_first_of(".[", i);
    std::string_view name = path.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i);
    i = end == std::string_view::npos ? path.size() : end;
    v = v->is_object() ? v->get_object().if_contains(name) : nullptr;
  }
  return v;
}

// Validation ratcheting (CRDValidationRatcheting, on by default in kube 1.32): a schema error at
// a value the update left unchanged is not refused (for a missing required field: its parent).
void RatchetSchemaErrors(ErrorList& errs, const json::value& obj, const json::value& old) {
  if (!features::Enabled("CRDValidationRatcheting")) return;
  ErrorList kept;
  for (auto& e : errs) {
    std::string_view path = e.field;
    if (e.type == FieldErrorType::kRequired) {
      size_t cut = path.find_last_of(".[");
      path = cut == std::string_view::npos ? std::string_view() : path.substr(0, cut);
    }
    const json::value* now = path.empty() ? &obj : AtFieldPath(obj, path);
    const json::value* before = path.empty() ? &old : AtFieldPath(old, path);
    bool unchanged = (now == nullptr && before == nullptr && e.type == FieldErrorType::kRequired) ||
                     (now && before && *now == *before);
    if (!unchanged) kept.push_back(std::move(e));
  }
  errs = std::move(kept);
}

}  // namespace

CustomResourceStrategy::CustomResourceStrategy(Config c)
    : DefaultStrategy(OptionsOf(c)), c_(std::move(c)), columns_(c_.columns) {
  for (const auto& f : c_.selectable_fields) {
    auto steps = ParseSimpleJsonPath(f);
    if (steps) selectable_.emplace_back(f.substr(1), std::move(*steps));
  }
}

void CustomResourceStrategy::PruneAndDefault(Object& obj) const {
  if (!c_.schema) return;
  json::value v(std::move(obj));
  am::PruneBySchema(v, c_.schema, true);
  am::PruneNonNullableNullsWithoutDefaults(v, c_.schema);
  am::ApplyDefaults(v, c_.schema);
  obj = std::move(v.get_object());
}

ErrorList CustomResourceStrategy::ValidateSchema(const Object& obj) const {
  ErrorList errs;
  if (!c_.schema) return errs;
  json::value v(obj);
  errs = am::ValidateBySchema(*c_.schema, v);
  ValidateEmbedded(errs, v, c_.schema, FieldPath());
  // The scale subresource's selector must be a label selector string when present.
  if (!c_.label_selector_path.empty()) {
    auto steps = ParseSimpleJsonPath(c_.label_selector_path);
    if (steps) {
      auto r = EvalJsonPath(*steps, v);
      if (!r.empty() && !r[0]->is_string()) {
        errs.push_back(InvalidError(FieldPath(c_.label_selector_path.substr(1)), FieldValue(*r[0]),
                                    "must be a string"));
      }
    }
  }
  return errs;
}

void CustomResourceStrategy::PrepareForCreate(const registry::Context& ctx, Object& obj) const {
  DefaultStrategy::PrepareForCreate(ctx, obj);
  PruneAndDefault(obj);
}

void CustomResourceStrategy::PrepareForUpdate(const registry::Context& ctx, Object& obj, const Object& old) const {
  PruneAndDefault(obj);
  DefaultStrategy::PrepareForUpdate(ctx, obj, old);
}

void CustomResourceStrategy::ValidateRules(const registry::Context& ctx, const Object& obj, const Object* old, ErrorList& errs) const {
  if (!c_.rules) return;
  // kube's hasBlockingErr: these schema errors mean the rules would see data of the wrong shape.
  for (const auto& e : errs) {
    if (e.type == FieldErrorType::kNotSupported || e.type == FieldErrorType::kRequired || e.type == FieldErrorType::kTooLong ||
        e.type == FieldErrorType::kTooMany || e.type == FieldErrorType::kTypeInvalid) {
      errs.push_back(InvalidError(FieldPath("<nil>"), json::value(),
                                  "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"));
      return;
    }
  }
  json::value v(obj);
  std::vector<std::string> ratcheted;
  if (old) {
    json::value o(*old);
    c_.rules->Validate(v, &o, errs, &ratcheted);
  } else {
    c_.rules->Validate(v, nullptr, errs, &ratcheted);
  }
  for (auto& w : ratcheted) ctx.Warn(std::move(w));  // the request scope keeps each warning once
}

ErrorList CustomResourceStrategy::Validate(const registry::Context& ctx, const Object& obj) const {
  ErrorList errs = ValidateSchema(obj);
  ValidateRules(ctx, obj, nullptr, errs);
  return errs;
}

ErrorList CustomResourceStrategy::ValidateUpdate(const registry::Context& ctx, const Object& obj, const Object& old) const {
  ErrorList errs = ValidateSchema(obj);
  RatchetSchemaErrors(errs, json::value(obj), json::value(old));
  ValidateRules(ctx, obj, &old, errs);
  return errs;
}

// kube's crConverter: metadata.name, metadata.namespace of a namespaced resource, the CRD's
// selectableFields; anything else is "field label not supported".
std::vector<std::string> CustomResourceStrategy::SelectableFieldNames() const {
  std::vector<std::string> names = {"metadata.name"};
  if (NamespaceScoped()) names.push_back("metadata.namespace");
  for (const auto& [name, steps] : selectable_) names.push_back(name);
  return names;
}

std::string CustomResourceStrategy::UnsupportedFieldLabelMessage(std::string_view field) const {
  return am::FieldLabelNotSupportedError(field);
}

am::FieldSet CustomResourceStrategy::SelectableFields(const Object& obj) const {
  am::FieldSet f = Strategy::SelectableFields(obj);
  if (selectable_.empty()) return f;
  json::value v(obj);
  for (const auto& [name, steps] : selectable_) {
    auto r = EvalJsonPath(steps, v);
    std::string s;
    if (!r.empty()) {
      const json::value& x = *r[0];
      if (x.is_string()) {
        s = std::string(x.get_string());
      } else if (x.is_bool()) {
        s = x.get_bool() ? "true" : "false";
      } else if (x.is_int64()) {
        s = std::to_string(x.get_int64());
      } else if (x.is_uint64()) {
        s = std::to_string(x.get_uint64());
      }
    }
    f[name] = s;
  }
  return f;
}

void CustomResourceStatusStrategy::PrepareForUpdate(const registry::Context& ctx, Object& obj, const Object& old) const {
  cr_->PruneAndDefault(obj);
  StatusStrategy::PrepareForUpdate(ctx, obj, old);
}

ErrorList CustomResourceStatusStrategy::ValidateUpdate(const registry::Context& ctx, const Object& obj, const Object& old) const {
  ErrorList errs = StatusStrategy::ValidateUpdate(ctx, obj, old);
  ErrorList schema_errs = cr_->ValidateSchema(obj);
  RatchetSchemaErrors(schema_errs, json::value(obj), json::value(old));
  for (auto& e : schema_errs) errs.push_back(std::move(e));
  cr_->ValidateRules(ctx, obj, &old, errs);
  return errs;
}

}  // namespace capstan::api::apiextensions
