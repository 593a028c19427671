#include "apimachinery/unstructured_convert.h"

#include <cmath>
#include <string_view>

#include "util/strings.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;

// Definitions whose Go types decode themselves (json.Unmarshaler): the converter hands them the
// value as JSON, so their errors are their own.
bool DecodesItself(const Schema* s) {
  if (s->int_or_string) return true;
  for (std::string_view name : {"resource.Quantity", "v1.Time", "v1.MicroTime", "intstr.IntOrString",
                                "runtime.RawExtension", "v1.FieldsV1", "v1.Duration", "v1.JSON", "v1.JSONSchemaPropsOrArray",
                                "v1.JSONSchemaPropsOrBool", "v1.JSONSchemaPropsOrStringArray"}) {
    if (EndsWith(s->ref, name)) return true;
  }
  return false;
}

// reflect.Kind of a decoded JSON value.
std::string_view KindOf(const json::value& v) {
  switch (v.kind()) {
    case json::kind::object: return "map";
    case json::kind::array: return "slice";
    case json::kind::string: return "string";
    case json::kind::bool_: return "bool";
    case json::kind::int64:
    case json::kind::uint64: return "int64";
    default: return "float64";
  }
}

std::string Check(const json::value& v, const Schema* s, int depth) {
  if (s == nullptr || v.is_null() || depth > 200) return "";
  for (int hops = 0; hops < 64 && s->ref_target != nullptr; ++hops) {
    if (DecodesItself(s)) return "";
    s = s->ref_target;
  }
  if (DecodesItself(s) || (s->preserve_unknown_fields && *s->preserve_unknown_fields)) return "";
  std::string_view t = s->SingleType();
  if (t == "object") {
    if (s->additional_properties != nullptr || s->properties.empty()) {
      if (s->properties.empty() && s->additional_properties == nullptr) return "";  // interface{}-like
      if (!v.is_object()) return "cannot restore map from " + std::string(KindOf(v));
      for (const auto& kv : v.get_object()) {
        if (auto e = Check(kv.value(), s->additional_properties, depth + 1); !e.empty()) return e;
      }
      return "";
    }
    if (!v.is_object()) return "cannot restore struct from: " + std::string(KindOf(v));
    // Go walks the struct's fields in declaration order.
    for (const auto& [name, child] : s->properties) {
      if (const json::value* c = v.get_object().if_contains(name)) {
        if (auto e = Check(*c, child, depth + 1); !e.empty()) return e;
      }
    }
    return "";
  }
  if (t == "array") {
    if (!v.is_array()) return "cannot restore slice from " + std::string(KindOf(v));
    for (const auto& e : v.get_array()) {
      if (auto err = Check(e, s->items, depth + 1); !err.empty()) return err;
    }
    return "";
  }
  if (t == "string") {
    if (v.is_string()) return "";
    if (s->format == "byte") return v.is_array() ? "" : "cannot restore slice from " + std::string(KindOf(v));
    if (v.is_int64() || v.is_uint64()) return "cannot convert int64 to string";  // Go converts ints to strings, JSON does not
    return "unrecognized type: string";
  }
  if (t == "integer") {
    std::string go = s->format == "int32" ? "int32" : "int64";
    if (v.is_int64() || v.is_uint64()) return "";
    if (v.is_double()) return v.get_double() == std::trunc(v.get_double()) ? "" : "cannot convert float64 to " + go;
    return "unrecognized type: " + go;
  }
  if (t == "number") {
    if (v.is_int64() || v.is_uint64() || v.is_double()) return "";
    return "unrecognized type: float64";
  }
  if (t == "boolean") return v.is_bool() ? "" : "unrecognized type: bool";
  return "";
}

}  // namespace

std::string FromUnstructuredError(const json::value& v, const Schema* schema) { return Check(v, schema, 0); }

}  // namespace capstan::apimachinery
