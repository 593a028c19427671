// apimachinery/schema.h: the in-memory schema tree for the OpenAPI v3 / JSON-Schema subset Kubernetes
// uses (a CRD's openAPIV3Schema, or the built-in definitions compiled into the binary).
//
// One Schema node per schema object. Children (properties, items, additionalProperties, allOf/anyOf/
// oneOf/not) are plain pointers into the arena of the SchemaRegistry (schema_registry.h) that parsed
// them; a "$ref" is a pointer to the named definition's root node, so recursive types such as
// JSONSchemaProps are a graph, never an infinite copy. Algorithms call Deref() to reach the node that
// carries the structure; a node with a $ref keeps its own description, default, nullable, patch
// metadata and x-proto (the "field" facts), the definition keeps the "type" facts.
//
// Nodes are built by the registry's parser and never change afterwards: once a registry is resolved
// (or ParseSchema returned), any number of threads may read the nodes concurrently without locks.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace re2 {
class RE2;
}

namespace capstan::apimachinery {

// Heterogeneous lookup by string_view in property maps.
struct SchemaNameHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};

enum class AdditionalPropertiesKind { kUnset, kFalse, kTrue, kSchema };
enum class ListType { kUnset, kAtomic, kSet, kMap, kOther };
enum class MapType { kUnset, kGranular, kAtomic, kOther };

// The field types of Capstan's x-proto extension.
enum class ProtoType {
  kNone, kString, kBytes, kBool, kInt32, kInt64, kUint32, kUint64, kFloat, kDouble, kMessage, kMap,
};
std::string_view ProtoTypeName(ProtoType t);
std::optional<ProtoType> ParseProtoType(std::string_view name);

// x-proto: {"tag": N, "type": T, "ptr": bool, "key": T, "value": T}. An array property is a repeated
// field of element type `type`; a "message" names its definition through the property's $ref
// (items.$ref for arrays, additionalProperties.$ref for map values).
struct ProtoField {
  int32_t tag = 0;
  ProtoType type = ProtoType::kNone;
  bool ptr = false;  // the Go field is a pointer: written only when set
  ProtoType key = ProtoType::kNone;
  ProtoType value = ProtoType::kNone;
  bool omitempty = false;  // the Go field's json tag has omitempty (JSON written from a decoded message)
  std::vector<int32_t> in;  // set: the field belongs to embedded message(s), field numbers outward-in
};

struct Schema {
  // --- generic
  std::vector<std::string> type;  // as written; empty when unspecified
  std::string format;
  std::string description;
  std::string title;
  bool nullable = false;
  std::optional<boost::json::value> default_value;  // absent, or "default": null, means no default
  std::optional<boost::json::value> example;

  // --- structure
  std::vector<std::pair<std::string, const Schema*>> properties;  // declaration order
  std::unordered_map<std::string, const Schema*, SchemaNameHash, std::equal_to<>> property_index;
  const Schema* items = nullptr;
  AdditionalPropertiesKind additional_properties_kind = AdditionalPropertiesKind::kUnset;
  const Schema* additional_properties = nullptr;  // set when kind is kSchema

  // --- value validations
  std::optional<double> maximum;
  bool exclusive_maximum = false;
  std::optional<double> minimum;
  bool exclusive_minimum = false;
  std::optional<int64_t> max_length, min_length;
  std::optional<int64_t> max_items, min_items;
  std::optional<int64_t> max_properties, min_properties;
  std::string pattern;
  std::shared_ptr<const re2::RE2> pattern_re;  // null when the pattern is empty or does not compile
  std::string pattern_error;                   // Go-style compile error when it does not
  bool unique_items = false;
  std::optional<double> multiple_of;
  bool has_enum = false;
  std::vector<boost::json::value> enum_values;
  std::vector<std::string> required;
  std::vector<const Schema*> all_of, any_of, one_of;
  const Schema* not_schema = nullptr;

  // --- Kubernetes extensions
  std::optional<bool> preserve_unknown_fields;  // x-kubernetes-preserve-unknown-fields
  bool int_or_string = false;                   // x-kubernetes-int-or-string
  bool embedded_resource = false;               // x-kubernetes-embedded-resource
  std::optional<std::string> list_type_name;    // x-kubernetes-list-type as written
  ListType list_type = ListType::kUnset;
  std::vector<std::string> list_map_keys;       // x-kubernetes-list-map-keys
  std::optional<std::string> map_type_name;     // x-kubernetes-map-type as written
  MapType map_type = MapType::kUnset;
  std::string patch_merge_key;                  // x-kubernetes-patch-merge-key
  std::vector<std::string> patch_strategies;    // x-kubernetes-patch-strategy, split at ','
  std::optional<boost::json::value> validations;  // x-kubernetes-validations: kept, not enforced
  std::optional<ProtoField> proto;              // x-proto
  // Other vendor extensions ("x-..." keys) the parser does not interpret, as written:
  // x-proto-message, x-proto-embedded, x-kubernetes-group-version-kind, ... (read by the protobuf codec).
  boost::json::object extensions;

  // Keywords outside the structural subset that were present (id, $schema, patternProperties,
  // dependencies, additionalItems, definitions, items given as an array): the structural check
  // reports them; the algorithms ignore them.
  std::vector<std::string> unsupported_keywords;

  // --- $ref
  std::string ref;                    // as written, e.g. "#/definitions/io.k8s.api.core.v1.Pod"
  const Schema* ref_target = nullptr;  // the referenced definition, once resolved

  // --- derived at parse time for validation (kube's conversion to an OpenAPI schema)
  std::vector<std::string> validation_type;  // {"integer","string"} for int-or-string, else `type`
  std::string validation_format;             // `format` after kube drops formats it does not check

  // The node that carries the structure: the end of the $ref chain (this node when it has no ref).
  const Schema& Deref() const {
    const Schema* s = this;
    for (int i = 0; i < 64 && s->ref_target != nullptr; ++i) s = s->ref_target;
    return *s;
  }
  const Schema* Property(std::string_view name) const {
    auto it = property_index.find(name);
    return it == property_index.end() ? nullptr : it->second;
  }
  bool HasType(std::string_view t) const {
    for (const auto& x : type) {
      if (x == t) return true;
    }
    return false;
  }
  // The single type name, or "" when none or several are given.
  std::string_view SingleType() const { return type.size() == 1 ? std::string_view(type[0]) : ""; }

  // Facts that may sit on the node holding a $ref or on the definition (the node's own value wins).
  const boost::json::value* Default() const {
    if (default_value) return &*default_value;
    const Schema& d = Deref();
    return d.default_value ? &*d.default_value : nullptr;
  }
  bool Nullable() const { return nullable || Deref().nullable; }
  bool PreservesUnknownFields() const {
    return preserve_unknown_fields.value_or(false) || Deref().preserve_unknown_fields.value_or(false);
  }
  bool EmbeddedResource() const { return embedded_resource || Deref().embedded_resource; }
  const std::string& PatchMergeKey() const {
    return patch_merge_key.empty() ? Deref().patch_merge_key : patch_merge_key;
  }
  const std::vector<std::string>& PatchStrategies() const {
    return patch_strategies.empty() ? Deref().patch_strategies : patch_strategies;
  }
};

}  // namespace capstan::apimachinery
