#include "apimachinery/schema_default.h"

#include <string>
#include <vector>

namespace capstan::apimachinery {

namespace json = boost::json;

namespace {

bool IsNonNullableNull(const json::value& x, const Schema* s) { return x.is_null() && s != nullptr && !s->Nullable(); }

// The schema of a field: its property, else the additionalProperties schema.
const Schema* FieldSchema(const Schema* node, std::string_view k) {
  if (node == nullptr) return nullptr;
  const Schema& s = node->Deref();
  if (const Schema* p = s.Property(k)) return p;
  return s.additional_properties_kind == AdditionalPropertiesKind::kSchema ? s.additional_properties : nullptr;
}

json::value DefaultOrNull(const Schema* s) {
  const json::value* d = s->Default();
  return d ? *d : json::value(nullptr);
}

}  // namespace

void ApplyDefaults(json::value& x, const Schema* node) {
  if (node == nullptr) return;
  const Schema& s = node->Deref();
  if (x.is_object()) {
    json::object& obj = x.get_object();
    for (const auto& [name, prop] : s.properties) {
      const json::value* def = prop->Default();
      if (def == nullptr) continue;
      json::value* cur = obj.if_contains(name);
      if (cur == nullptr || IsNonNullableNull(*cur, prop)) obj[name] = *def;
    }
    for (auto& kv : obj) {
      if (const Schema* prop = s.Property(kv.key())) {
        ApplyDefaults(kv.value(), prop);
      } else if (s.additional_properties_kind != AdditionalPropertiesKind::kUnset) {
        const Schema* ap = s.additional_properties;
        if (IsNonNullableNull(kv.value(), ap)) kv.value() = DefaultOrNull(ap);
        ApplyDefaults(kv.value(), ap);
      }
    }
  } else if (x.is_array()) {
    for (auto& e : x.get_array()) {
      if (IsNonNullableNull(e, s.items)) e = DefaultOrNull(s.items);
      ApplyDefaults(e, s.items);
    }
  }
}

void PruneNonNullableNullsWithoutDefaults(json::value& x, const Schema* node) {
  if (x.is_object()) {
    json::object& obj = x.get_object();
    std::vector<std::string> remove;
    for (auto& kv : obj) {
      const Schema* fs = FieldSchema(node, kv.key());
      if (kv.value().is_null() && fs != nullptr && !fs->Nullable() && fs->Default() == nullptr) {
        remove.emplace_back(kv.key());
      } else {
        PruneNonNullableNullsWithoutDefaults(kv.value(), fs);
      }
    }
    for (const auto& k : remove) obj.erase(k);
  } else if (x.is_array()) {
    const Schema* items = node ? node->Deref().items : nullptr;
    for (auto& e : x.get_array()) PruneNonNullableNullsWithoutDefaults(e, items);
  }
}

}  // namespace capstan::apimachinery
