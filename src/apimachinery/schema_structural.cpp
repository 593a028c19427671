#include "apimachinery/schema_structural.h"

#include <algorithm>

namespace capstan::apimachinery {

namespace {

enum class Level { kRoot, kItem, kField };

// --- NewStructural's refusals

std::optional<std::string> UnsupportedMessage(const Schema& s) {
  for (const auto& k : s.unsupported_keywords) {
    if (k == "items") return "OpenAPIV3Schema 'items' must be a schema, but is an array";
    std::string name = k == "$schema" ? "schema" : k;
    return "OpenAPIV3Schema '" + name + "' is not supported";
  }
  if (!s.ref.empty()) return "OpenAPIV3Schema '$ref' is not supported";
  return std::nullopt;
}

std::optional<std::string> ConversionError(const Schema& s, int depth) {
  if (depth > 1000) return std::nullopt;
  if (auto m = UnsupportedMessage(s)) return m;
  for (const auto* list : {&s.all_of, &s.one_of, &s.any_of}) {
    for (const Schema* sub : *list) {
      if (auto m = ConversionError(*sub, depth + 1)) return m;
    }
  }
  if (s.not_schema) {
    if (auto m = ConversionError(*s.not_schema, depth + 1)) return m;
  }
  if (s.preserve_unknown_fields == false) {
    return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  }
  if (s.items) {
    if (auto m = ConversionError(*s.items, depth + 1)) return m;
  }
  for (const auto& [name, prop] : s.properties) {
    if (auto m = ConversionError(*prop, depth + 1)) return m;
  }
  if (s.additional_properties) return ConversionError(*s.additional_properties, depth + 1);
  return std::nullopt;
}

// --- invariants

std::string_view TypeOf(const Schema& s) { return s.SingleType(); }

// A node of the int-or-string anyOf pattern: only {"type": t}.
bool OnlyType(const Schema& s, std::string_view t) {
  return s.type.size() == 1 && s.type[0] == t && s.format.empty() && s.description.empty() && s.title.empty() &&
         !s.nullable && !s.default_value && !s.example && s.properties.empty() && !s.items &&
         s.additional_properties_kind == AdditionalPropertiesKind::kUnset && !s.maximum && !s.minimum &&
         !s.exclusive_maximum && !s.exclusive_minimum && !s.max_length && !s.min_length && !s.max_items &&
         !s.min_items && !s.max_properties && !s.min_properties && s.pattern.empty() && !s.unique_items &&
         !s.multiple_of && !s.has_enum && s.required.empty() && s.all_of.empty() && s.any_of.empty() &&
         s.one_of.empty() && !s.not_schema && !s.preserve_unknown_fields && !s.int_or_string &&
         !s.embedded_resource && !s.list_type_name && s.list_map_keys.empty() && !s.map_type_name &&
         !s.validations;
}

bool IsIntOrStringAnyOf(const std::vector<const Schema*>& any_of) {
  return any_of.size() == 2 && OnlyType(*any_of[0], "integer") && OnlyType(*any_of[1], "string");
}

bool HasValidations(const Schema& s) {
  return s.validations && !(s.validations->is_array() && s.validations->get_array().empty());
}

class Checker {
 public:
  ErrorList errs;

  void Structural(const Schema& s, Level lvl, const FieldPath& path, int depth) {
    if (depth > 1000) return;
    if (TypeOf(s) == "array" && s.items == nullptr) errs.push_back(RequiredError(path.Child("items"), "must be specified"));
    if (s.items) Structural(*s.items, Level::kItem, path.Child("items"), depth + 1);
    for (const auto& [name, prop] : s.properties) {
      Structural(*prop, Level::kField, path.Child("properties").Key(name), depth + 1);
    }
    bool has_ap = s.additional_properties_kind != AdditionalPropertiesKind::kUnset;
    if (has_ap) {
      if (lvl == Level::kRoot) errs.push_back(ForbiddenError(path.Child("additionalProperties"), "must not be used at the root"));
      if (s.additional_properties) Structural(*s.additional_properties, Level::kField, path.Child("additionalProperties"), depth + 1);
    }
    bool preserve = s.preserve_unknown_fields.value_or(false);
    if (s.int_or_string && preserve) {
      errs.push_back(InvalidError(path.Child("x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"));
    }
    if (s.int_or_string && s.embedded_resource) {
      errs.push_back(InvalidError(path.Child("x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"));
    }
    bool skip_any_of = IsIntOrStringAnyOf(s.any_of);
    bool skip_first_all_of_any_of = !s.all_of.empty() && IsIntOrStringAnyOf(s.all_of[0]->any_of);
    ValueValidation(s, skip_any_of, skip_first_all_of_any_of, path, depth);

    bool check_metadata = lvl == Level::kRoot || s.embedded_resource;
    std::string type(TypeOf(s));
    if (s.embedded_resource && type != "object") {
      if (type.empty()) {
        errs.push_back(RequiredError(path.Child("type"), "must be object if x-kubernetes-embedded-resource is true"));
      } else {
        errs.push_back(InvalidError(path.Child("type"), boost::json::value(type), "must be object if x-kubernetes-embedded-resource is true"));
      }
    } else if (type.empty() && !s.int_or_string && !preserve) {
      const char* detail = lvl == Level::kRoot   ? "must not be empty at the root"
                           : lvl == Level::kItem ? "must not be empty for specified array items"
                                                 : "must not be empty for specified object fields";
      errs.push_back(RequiredError(path.Child("type"), detail));
    }
    if (s.embedded_resource && has_ap) {
      errs.push_back(ForbiddenError(path.Child("additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"));
    }
    if (lvl == Level::kRoot && !type.empty() && type != "object") {
      errs.push_back(InvalidError(path.Child("type"), boost::json::value(type), "must be object at the root"));
    }
    for (const char* meta : {"kind", "apiVersion"}) {
      const Schema* p = s.Property(meta);
      if (p && check_metadata && TypeOf(*p) != "string") {
        errs.push_back(InvalidError(path.Child("properties").Key(meta).Child("type"), boost::json::value(std::string(TypeOf(*p))), "must be string"));
      }
    }
    if (const Schema* metadata = s.Property("metadata")) {
      Metadata(*metadata, check_metadata, lvl, path.Child("properties").Key("metadata"));
    }
    if (s.embedded_resource && !preserve && s.properties.empty()) {
      errs.push_back(RequiredError(path.Child("properties"),
                                   "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"));
    }
  }

  // Fields named under the root's junctors must exist in the structural part (kube checks the root's
  // junctors only).
  void Completeness(const Schema& v, const Schema* s, const FieldPath& s_path, const FieldPath& v_path, int depth) {
    if (depth > 1000) return;
    if (s == nullptr) {
      errs.push_back(RequiredError(s_path, "because it is defined in " + v_path.str()));
      return;
    }
    if (v.not_schema) NestedCompleteness(*v.not_schema, s, s_path, v_path.Child("not"), depth + 1);
    for (size_t i = 0; i < v.all_of.size(); ++i) NestedCompleteness(*v.all_of[i], s, s_path, v_path.Child("allOf").Index(i), depth + 1);
    for (size_t i = 0; i < v.any_of.size(); ++i) NestedCompleteness(*v.any_of[i], s, s_path, v_path.Child("anyOf").Index(i), depth + 1);
    for (size_t i = 0; i < v.one_of.size(); ++i) NestedCompleteness(*v.one_of[i], s, s_path, v_path.Child("oneOf").Index(i), depth + 1);
  }

 private:
  void NestedCompleteness(const Schema& v, const Schema* s, const FieldPath& s_path, const FieldPath& v_path, int depth) {
    if (depth > 1000) return;
    if (s == nullptr) {
      errs.push_back(RequiredError(s_path, "because it is defined in " + v_path.str()));
      return;
    }
    Completeness(v, s, s_path, v_path, depth + 1);
    if (v.items) NestedCompleteness(*v.items, s->items, s_path.Child("items"), v_path.Child("items"), depth + 1);
    for (const auto& [name, vp] : v.properties) {
      const Schema* sp = s->Property(name);
      if (sp == nullptr) {
        errs.push_back(RequiredError(s_path.Child("properties").Key(name),
                                     "because it is defined in " + v_path.Child("properties").Key(name).str()));
      } else {
        NestedCompleteness(*vp, sp, s_path.Child("properties").Key(name), v_path.Child("properties").Key(name), depth + 1);
      }
    }
  }

  void ValueValidation(const Schema& v, bool skip_any_of, bool skip_first_all_of_any_of, const FieldPath& path, int depth) {
    if (!skip_any_of) {
      for (size_t i = 0; i < v.any_of.size(); ++i) NestedValue(*v.any_of[i], false, path.Child("anyOf").Index(i), depth + 1);
    }
    for (size_t i = 0; i < v.all_of.size(); ++i) {
      NestedValue(*v.all_of[i], skip_first_all_of_any_of && i == 0, path.Child("allOf").Index(i), depth + 1);
    }
    for (size_t i = 0; i < v.one_of.size(); ++i) NestedValue(*v.one_of[i], false, path.Child("oneOf").Index(i), depth + 1);
    if (v.not_schema) NestedValue(*v.not_schema, false, path.Child("not"), depth + 1);
    if (!v.pattern.empty() && !v.pattern_re) {
      errs.push_back(InvalidError(path.Child("pattern"), boost::json::value(v.pattern), "must be a valid regular expression, but isn't: " + v.pattern_error));
    }
  }

  void NestedValue(const Schema& v, bool skip_any_of, const FieldPath& path, int depth) {
    if (depth > 1000) return;
    ValueValidation(v, skip_any_of, false, path, depth);
    if (v.items) NestedValue(*v.items, false, path.Child("items"), depth + 1);
    for (const auto& [name, p] : v.properties) NestedValue(*p, false, path.Child("properties").Key(name), depth + 1);
    auto forbid = [&](const char* field, const char* detail) { errs.push_back(ForbiddenError(path.Child(field), detail)); };
    if (!v.type.empty()) forbid("type", "must be empty to be structural");
    if (v.additional_properties_kind == AdditionalPropertiesKind::kTrue ||
        v.additional_properties_kind == AdditionalPropertiesKind::kSchema) {
      forbid("additionalProperties", "must be undefined to be structural");
    }
    if (v.default_value) forbid("default", "must be undefined to be structural");
    if (!v.title.empty()) forbid("title", "must be empty to be structural");
    if (!v.description.empty()) forbid("description", "must be empty to be structural");
    if (v.nullable) forbid("nullable", "must be false to be structural");
    if (v.preserve_unknown_fields.value_or(false)) forbid("x-kubernetes-preserve-unknown-fields", "must be false to be structural");
    if (v.embedded_resource) forbid("x-kubernetes-embedded-resource", "must be false to be structural");
    if (v.int_or_string) forbid("x-kubernetes-int-or-string", "must be false to be structural");
    if (!v.list_map_keys.empty()) forbid("x-kubernetes-list-map-keys", "must be empty to be structural");
    if (v.list_type_name) forbid("x-kubernetes-list-type", "must be undefined to be structural");
    if (v.map_type_name) forbid("x-kubernetes-map-type", "must be undefined to be structural");
    if (HasValidations(v)) forbid("x-kubernetes-validations", "must be empty to be structural");
    if (v.Property("metadata")) {
      errs.push_back(ForbiddenError(path.Child("properties").Key("metadata"), "must not be specified in a nested context"));
    }
  }

  void Metadata(const Schema& m, bool check_metadata, Level lvl, const FieldPath& path) {
    std::string type(TypeOf(m));
    if (check_metadata && type != "object") errs.push_back(InvalidError(path.Child("type"), boost::json::value(type), "must be object"));
    if (lvl != Level::kRoot) return;
    bool only_names = true;
    for (const auto& [name, p] : m.properties) only_names = only_names && (name == "name" || name == "generateName");
    bool anything_else =
        !only_names || !m.format.empty() || !m.description.empty() || !m.title.empty() || m.nullable || m.example ||
        m.items || m.additional_properties_kind != AdditionalPropertiesKind::kUnset || m.maximum || m.minimum ||
        m.exclusive_maximum || m.exclusive_minimum || m.max_length || m.min_length || m.max_items || m.min_items ||
        m.max_properties || m.min_properties || !m.pattern.empty() || m.unique_items || m.multiple_of || m.has_enum ||
        !m.required.empty() || !m.all_of.empty() || !m.any_of.empty() || !m.one_of.empty() || m.not_schema ||
        m.preserve_unknown_fields.value_or(false) || m.int_or_string || m.embedded_resource || m.list_type_name ||
        !m.list_map_keys.empty() || m.map_type_name || HasValidations(m);
    if (anything_else) {
      errs.push_back(ForbiddenError(path, "must not specify anything other than name and generateName, but metadata is implicitly specified"));
    }
  }
};

}  // namespace

std::optional<FieldError> StructuralConversionError(const Schema& schema, const FieldPath& path) {
  if (auto m = ConversionError(schema, 0)) return InvalidError(path, "", *m);
  return std::nullopt;
}

ErrorList ValidateStructural(const Schema& schema, const FieldPath& path) {
  Checker c;
  c.Structural(schema, Level::kRoot, path, 0);
  c.Completeness(schema, &schema, path, path, 0);
  std::stable_sort(c.errs.begin(), c.errs.end(),
                   [](const FieldError& a, const FieldError& b) { return a.ToString() < b.ToString(); });
  return std::move(c.errs);
}

}  // namespace capstan::apimachinery
