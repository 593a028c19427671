#include "apimachinery/go_normalize.h"

#include <boost/json.hpp>

namespace capstan::apimachinery {

namespace json = boost::json;

namespace {

const Schema* Resolve(const Schema* s) {
  int hops = 0;
  while (s && s->ref_target && hops++ < 32) s = s->ref_target;
  return s;
}

// The x-proto-message kind of a definition ("timestamp", "quantity", ...), or "".
std::string SpecialKind(const Schema* s) {
  if (!s) return "";
  const auto* m = s->extensions.if_contains("x-proto-message");
  if (!m || !m->is_object()) return "";
  const auto* k = m->get_object().if_contains("kind");
  return k && k->is_string() ? std::string(k->get_string()) : "";
}

bool IsStruct(const Schema* s) { return s && !s->properties.empty(); }
bool IsMap(const Schema* s) {
  return s && s->properties.empty() && s->additional_properties_kind == AdditionalPropertiesKind::kSchema;
}
bool IsArray(const Schema* s) { return s && !s->type.empty() && s->type.front() == "array"; }

json::value ZeroScalar(const Schema* s) {
  if (!s || s->type.empty()) return nullptr;
  const std::string& t = s->type.front();
  if (t == "string") return json::string();
  if (t == "integer") return 0;
  if (t == "number") return 0.0;
  if (t == "boolean") return false;
  return nullptr;
}

// Go's omitempty: false, 0, "", and empty maps, slices and strings (not structs).
bool IsEmptyForOmit(const json::value& v, const Schema* target) {
  switch (v.kind()) {
    case json::kind::null: return true;
    case json::kind::bool_: return !v.get_bool();
    case json::kind::int64: return v.get_int64() == 0;
    case json::kind::uint64: return v.get_uint64() == 0;
    case json::kind::double_: return v.get_double() == 0;
    case json::kind::string: return v.get_string().empty() && SpecialKind(target).empty();
    case json::kind::array: return v.get_array().empty();
    case json::kind::object: return v.get_object().empty() && !IsStruct(target) && SpecialKind(target).empty();
  }
  return false;
}

void Walk(json::value& v, const Schema* schema, int depth) {
  const Schema* s = Resolve(schema);
  if (!s || depth > 256) return;
  if (!SpecialKind(s).empty()) return;  // Time, Quantity, IntOrString, RawExtension... keep their JSON
  if (IsArray(s)) {
    if (v.is_array()) {
      for (auto& e : v.get_array()) Walk(e, s->items, depth + 1);
    }
    return;
  }
  if (IsMap(s)) {
    if (v.is_object()) {
      for (auto& kv : v.get_object()) Walk(kv.value(), s->additional_properties, depth + 1);
    }
    return;
  }
  if (!IsStruct(s) || !v.is_object()) return;
  json::object& obj = v.get_object();
  for (const auto& [name, ps] : s->properties) {
    const Schema* target = Resolve(ps);
    const bool has_proto = ps->proto.has_value();
    const bool ptr = has_proto && ps->proto->ptr;
    const bool omitempty = has_proto ? ps->proto->omitempty : true;
    json::value* val = obj.if_contains(name);
    if (!val) {
      if (ptr) continue;
      if (ps->default_value) {
        obj[name] = *ps->default_value;
        val = obj.if_contains(name);
      } else if (SpecialKind(target) == "timestamp") {
        obj[name] = nullptr;  // a zero metav1.Time is written as null
        continue;
      } else {
        continue;
      }
    }
    if (val->is_null()) {
      if (ptr || IsMap(target) || IsArray(target) || !SpecialKind(target).empty()) {
        if (omitempty && SpecialKind(target) != "timestamp") obj.stable_erase(name);
        continue;
      }
      if (IsStruct(target)) {
        *val = json::object();
      } else {
        *val = ZeroScalar(target);
      }
    }
    Walk(*val, ps, depth + 1);
    if (omitempty && !ptr && IsEmptyForOmit(*val, target)) obj.stable_erase(name);
  }
}

}  // namespace

void NormalizeAsGo(json::value& v, const Schema* schema) { Walk(v, schema, 0); }

}  // namespace capstan::apimachinery
