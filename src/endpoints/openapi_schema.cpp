#include "endpoints/openapi_schema.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <cmath>
#include <optional>
#include <set>

#include "util/feature_gate.h"
#include "util/strings.h"

namespace capstan::endpoints {

namespace json = boost::json;
using apimachinery::AdditionalPropertiesKind;
using apimachinery::Schema;

std::string_view DefinitionRefPrefix(OpenApiVersion v) {
  return v == OpenApiVersion::kV2 ? "#/definitions/" : "#/components/schemas/";
}

json::object DefinitionRef(std::string_view name, OpenApiVersion v) {
  json::object o;
  std::string ref(DefinitionRefPrefix(v));
  ref += name;
  o["$ref"] = ref;
  return o;
}

std::string_view RefDefinitionName(std::string_view ref) {
  for (std::string_view prefix : {std::string_view("#/definitions/"), std::string_view("#/components/schemas/")}) {
    if (StartsWith(ref, prefix) && ref.size() > prefix.size()) return ref.substr(prefix.size());
  }
  return {};
}

const Schema* OpenApiDefinitions::Find(std::string_view name) const {
  if (auto it = extra_.find(name); it != extra_.end()) return it->second;
  return builtin_ ? builtin_->Find(name) : nullptr;
}

bool OpenApiDefinitions::IsBuiltin(std::string_view name) const {
  return extra_.find(name) == extra_.end() && builtin_ != nullptr && builtin_->Find(name) != nullptr;
}

const json::object* OpenApiDefinitions::Documentation(std::string_view name) const {
  if (!IsBuiltin(name)) return nullptr;
  std::string_view text = builtin_->DescriptionsFor(name);
  if (text.empty()) return nullptr;
  auto [it, fresh] = documentation_.try_emplace(text.data());
  if (fresh) {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    const json::value* d = !ec && v.is_object() ? v.get_object().if_contains("descriptions") : nullptr;
    if (d != nullptr && d->is_object()) it->second = *d;
  }
  if (!it->second.is_object()) return nullptr;
  const json::value* d = it->second.get_object().if_contains(name);
  return d != nullptr && d->is_object() ? &d->get_object() : nullptr;
}

namespace {

// The paragraph kube's generator appends to the description of an enum-typed field.
constexpr std::string_view kEnumHeader = "Possible enum values:";

// The member `key` of a documentation node, when it is an object.
const json::object* DocChild(const json::object* doc, std::string_view key) {
  if (doc == nullptr) return nullptr;
  const json::value* v = doc->if_contains(key);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

// The kind of protobuf mapping a built-in definition has ("" for an ordinary message): types with
// their own JSON form (IntOrString, Quantity, Time, RawExtension, ...) have one.
std::string_view ProtoMessageKind(const Schema& s) {
  auto it = s.extensions.find("x-proto-message");
  if (it == s.extensions.end() || !it->value().is_object()) return {};
  const json::value* k = it->value().get_object().if_contains("kind");
  return k && k->is_string() ? std::string_view(k->get_string()) : std::string_view();
}

// Go types with their own JSON encoding: kube's generator gives them no zero-value default.
bool HasCustomJson(const Schema& def) {
  std::string_view k = ProtoMessageKind(def);
  return !k.empty() && k != "none";
}

// Slices that protobuf wraps in a message; kube publishes them inline as the array they are.
bool IsListWrapper(const Schema* def) { return def != nullptr && ProtoMessageKind(*def) == "list-wrapper"; }

// Definitions whose published form drops the preserve-unknown-fields marker (kube publishes
// {"type": "object"} or no type at all for them).
bool DropsPreserveUnknown(std::string_view proto_kind) {
  return proto_kind == "raw-json" || proto_kind == "raw-extension" || proto_kind == "schema-or-bool" ||
         proto_kind == "schema-or-array" || proto_kind == "schema-or-string-array";
}

json::value Number(double d) {
  if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e15) return json::value(static_cast<int64_t>(d));
  return json::value(d);
}

json::object TypeOnly(std::string_view type) {
  json::object o;
  o["type"] = type;
  return o;
}

class Writer {
 public:
  Writer(const OpenApiDefinitions& defs, OpenApiVersion v, bool builtin, std::vector<std::string>* refs)
      : defs_(defs), v_(v), builtin_(builtin), enums_(features::Enabled("OpenAPIEnums")), refs_(refs) {}

  // `zero`: a default to write when the node has none (an element's Go zero value); `doc`: the
  // node's documentation (built-in definitions).
  json::object Write(const Schema& s, bool root, const json::value* zero = nullptr,
                     const json::object* doc = nullptr) {
    if (!s.ref.empty()) {
      std::string_view name = RefDefinitionName(s.ref);
      const Schema* target = s.ref_target != nullptr ? s.ref_target : (name.empty() ? nullptr : defs_.Find(name));
      if (IsListWrapper(target)) {
        json::object out = Write(*target, false);
        json::object own;
        WriteKeywords(s, own, false, nullptr, doc);
        for (auto& kv : own) out[kv.key()] = std::move(kv.value());
        return out;
      }
      json::object own;
      WriteKeywords(s, own, root, zero, doc);
      std::string ref;
      if (name.empty()) {
        ref = s.ref;
      } else {
        ref = std::string(DefinitionRefPrefix(v_)) + std::string(name);
        if (refs_) refs_->emplace_back(name);
      }
      json::object out;
      if (v_ == OpenApiVersion::kV2 || own.empty()) {
        out["$ref"] = ref;
      } else {
        json::object r;
        r["$ref"] = ref;
        out["allOf"] = json::array{std::move(r)};
      }
      for (auto& kv : own) out[kv.key()] = std::move(kv.value());
      return out;
    }
    json::object out;
    WriteKeywords(s, out, root, zero, doc);
    return out;
  }

 private:
  // Array items and map values: kube's generated v3 definitions give them Go's zero value.
  json::value Element(const Schema& s, const json::object* doc) {
    std::optional<json::value> zero;
    if (v_ == OpenApiVersion::kV3 && builtin_ && !s.default_value) zero = ZeroValue(s);
    return Write(s, false, zero ? &*zero : nullptr, doc);
  }

  // The description a node publishes: its own, else its documentation's (without the enum
  // paragraph when enums are off).
  std::string_view Description(const Schema& s, const json::object* doc) const {
    if (!s.description.empty() || doc == nullptr) return s.description;
    const json::value* d = doc->if_contains("description");
    if (d == nullptr || !d->is_string()) return {};
    std::string_view text = d->get_string();
    if (!enums_) {
      if (size_t at = text.find(kEnumHeader); at != std::string_view::npos) text = TrimSpace(text.substr(0, at));
    }
    return text;
  }

  std::optional<json::value> ZeroValue(const Schema& s) {
    if (!s.ref.empty()) {
      const Schema* target = s.ref_target;
      if (target == nullptr || IsListWrapper(target)) return std::nullopt;
      const Schema& d = s.Deref();
      if (d.SingleType() == "object" && !HasCustomJson(d)) return json::value(json::object());
      return std::nullopt;
    }
    std::string_view t = s.SingleType();
    if (t == "string" && s.format != "byte") return json::value("");
    if (t == "integer" || t == "number") return json::value(0);
    if (t == "boolean") return json::value(false);
    return std::nullopt;
  }

  json::array List(const std::vector<const Schema*>& list) {
    json::array a;
    for (const Schema* c : list) a.push_back(Write(*c, false));
    return a;
  }

  void WriteKeywords(const Schema& s, json::object& out, bool root, const json::value* zero = nullptr,
                     const json::object* doc = nullptr) {
    std::string_view proto_kind = root && builtin_ ? ProtoMessageKind(s) : std::string_view();
    std::string_view description = Description(s, doc);
    if (proto_kind == "int-or-string" || proto_kind == "quantity") {
      // kube's generated definitions for IntOrString and Quantity.
      if (!description.empty()) out["description"] = description;
      const bool ios = proto_kind == "int-or-string";
      if (v_ == OpenApiVersion::kV2) {
        out["type"] = "string";
        if (ios) out["format"] = "int-or-string";
      } else {
        if (ios) out["format"] = "int-or-string";
        out["oneOf"] = ios ? json::array{TypeOnly("integer"), TypeOnly("string")}
                           : json::array{TypeOnly("string"), TypeOnly("number")};
      }
      return;
    }
    if (!description.empty()) out["description"] = description;
    if (s.type.size() == 1) {
      out["type"] = s.type[0];
    } else if (!s.type.empty()) {
      json::array a;
      for (const auto& t : s.type) a.emplace_back(t);
      out["type"] = std::move(a);
    }
    if (!s.format.empty()) out["format"] = s.format;
    if (!s.title.empty()) out["title"] = s.title;
    if (v_ == OpenApiVersion::kV3 && s.default_value) {
      out["default"] = *s.default_value;
    } else if (zero != nullptr) {
      out["default"] = *zero;
    }
    if (s.maximum) out["maximum"] = Number(*s.maximum);
    if (s.exclusive_maximum) out["exclusiveMaximum"] = true;
    if (s.minimum) out["minimum"] = Number(*s.minimum);
    if (s.exclusive_minimum) out["exclusiveMinimum"] = true;
    if (s.max_length) out["maxLength"] = *s.max_length;
    if (s.min_length) out["minLength"] = *s.min_length;
    if (!s.pattern.empty()) out["pattern"] = s.pattern;
    if (s.max_items) out["maxItems"] = *s.max_items;
    if (s.min_items) out["minItems"] = *s.min_items;
    if (s.unique_items) out["uniqueItems"] = true;
    if (s.multiple_of) out["multipleOf"] = Number(*s.multiple_of);
    if (s.has_enum) {
      out["enum"] = json::array(s.enum_values.begin(), s.enum_values.end());
    } else if (const json::value* e = doc && enums_ ? doc->if_contains("enum") : nullptr; e && e->is_array()) {
      out["enum"] = *e;
    }
    if (s.max_properties) out["maxProperties"] = *s.max_properties;
    if (s.min_properties) out["minProperties"] = *s.min_properties;
    if (!s.required.empty()) {
      json::array a;
      for (const auto& r : s.required) a.emplace_back(r);
      out["required"] = std::move(a);
    }
    if (s.items != nullptr) out["items"] = Element(*s.items, DocChild(doc, "items"));
    if (!s.properties.empty()) {
      std::vector<const std::pair<std::string, const Schema*>*> props;
      props.reserve(s.properties.size());
      for (const auto& p : s.properties) props.push_back(&p);
      std::sort(props.begin(), props.end(), [](auto* a, auto* b) { return a->first < b->first; });
      json::object po;
      po.reserve(props.size());
      const json::object* prop_docs = DocChild(doc, "properties");
      for (const auto* p : props) po[p->first] = Write(*p->second, false, nullptr, DocChild(prop_docs, p->first));
      out["properties"] = std::move(po);
    }
    switch (s.additional_properties_kind) {
      case AdditionalPropertiesKind::kTrue: out["additionalProperties"] = true; break;
      case AdditionalPropertiesKind::kFalse: out["additionalProperties"] = false; break;
      case AdditionalPropertiesKind::kSchema:
        if (s.additional_properties != nullptr) {
          out["additionalProperties"] = Element(*s.additional_properties, DocChild(doc, "additionalProperties"));
        }
        break;
      case AdditionalPropertiesKind::kUnset: break;
    }
    if (!s.all_of.empty()) out["allOf"] = List(s.all_of);
    if (!s.any_of.empty()) out["anyOf"] = List(s.any_of);
    if (!s.one_of.empty()) out["oneOf"] = List(s.one_of);
    if (s.not_schema != nullptr) out["not"] = Write(*s.not_schema, false);
    if (s.nullable) out["nullable"] = true;
    if (s.example) out["example"] = *s.example;
    if (s.preserve_unknown_fields && !DropsPreserveUnknown(proto_kind)) {
      out["x-kubernetes-preserve-unknown-fields"] = *s.preserve_unknown_fields;
    }
    if (s.int_or_string) out["x-kubernetes-int-or-string"] = true;
    if (s.embedded_resource) out["x-kubernetes-embedded-resource"] = true;
    if (s.list_type_name) out["x-kubernetes-list-type"] = *s.list_type_name;
    if (!s.list_map_keys.empty()) {
      json::array a;
      for (const auto& k : s.list_map_keys) a.emplace_back(k);
      out["x-kubernetes-list-map-keys"] = std::move(a);
    }
    if (s.map_type_name) out["x-kubernetes-map-type"] = *s.map_type_name;
    if (!s.patch_merge_key.empty()) out["x-kubernetes-patch-merge-key"] = s.patch_merge_key;
    if (!s.patch_strategies.empty()) out["x-kubernetes-patch-strategy"] = Join(s.patch_strategies, ",");
    if (s.validations) out["x-kubernetes-validations"] = *s.validations;
    for (const auto& kv : s.extensions) {
      if (StartsWith(kv.key(), "x-proto")) continue;
      out[kv.key()] = kv.value();
    }
  }

  const OpenApiDefinitions& defs_;
  OpenApiVersion v_;
  bool builtin_;
  bool enums_;  // the OpenAPIEnums feature gate
  std::vector<std::string>* refs_;
};

}  // namespace

json::value PublishedDefinition(const OpenApiDefinitions& defs, std::string_view name, const Schema& root,
                                OpenApiVersion v, std::vector<std::string>* refs) {
  Writer w(defs, v, defs.IsBuiltin(name), refs);
  return w.Write(root, true, nullptr, defs.Documentation(name));
}

DefinitionSet BuildDefinitions(const OpenApiDefinitions& defs, const std::vector<std::string>& roots, OpenApiVersion v) {
  DefinitionSet out;
  std::set<std::string, std::less<>> missing;
  std::vector<std::string> work(roots.rbegin(), roots.rend());
  std::vector<std::string> refs;
  while (!work.empty()) {
    std::string name = std::move(work.back());
    work.pop_back();
    if (out.definitions.count(name) || missing.count(name)) continue;
    const Schema* root = defs.Find(name);
    if (root == nullptr) {
      missing.insert(name);
      continue;
    }
    // A list wrapper is inlined where it is used; it is published only when asked for directly.
    refs.clear();
    json::value published = PublishedDefinition(defs, name, *root, v, &refs);
    out.definitions.emplace(name, std::move(published));
    for (auto it = refs.rbegin(); it != refs.rend(); ++it) {
      if (!out.definitions.count(*it)) work.push_back(*it);
    }
  }
  out.missing.assign(missing.begin(), missing.end());
  return out;
}

}  // namespace capstan::endpoints
