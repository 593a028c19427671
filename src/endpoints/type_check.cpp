#include "endpoints/type_check.h"

#include <cmath>

#include "apimachinery/go_base64.h"

namespace capstan::endpoints {

namespace am = capstan::apimachinery;

namespace {

const am::Schema* Resolve(const am::Schema* s) {
  int hops = 0;
  while (s && s->ref_target && hops++ < 32) s = s->ref_target;
  return s;
}

std::string TypeOf(const am::Schema* s) {
  if (!s || s->type.empty()) return "";
  return s->type.front();
}

std::string GoTypeName(const am::Schema* s, int depth = 0) {
  s = Resolve(s);
  if (!s || depth > 4) return "interface {}";
  std::string t = TypeOf(s);
  if (t == "string") return s->format == "byte" ? "[]uint8" : "string";
  if (t == "integer") return s->format == "int32" ? "int32" : "int64";
  if (t == "number") return "float64";
  if (t == "boolean") return "bool";
  if (t == "array") return "[]" + GoTypeName(s->items, depth + 1);
  if (t == "object") {
    if (s->additional_properties) return "map[string]" + GoTypeName(s->additional_properties, depth + 1);
    return "struct";
  }
  return "interface {}";
}

const char* JsonTypeOf(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::string: return "string";
    case boost::json::kind::bool_: return "bool";
    case boost::json::kind::array: return "array";
    case boost::json::kind::object: return "object";
    case boost::json::kind::null: return "null";
    default: return "number";
  }
}

struct Checker {
  std::string kind;
  std::string error;

  bool Fail(const std::string& path, const boost::json::value& v, const am::Schema* s) {
    std::string what = JsonTypeOf(v);
    if (v.is_double() || v.is_int64() || v.is_uint64()) {
      // Go names the number when it does not fit the integer type.
      if (v.is_double()) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%g", v.get_double());
        what += std::string(" ") + buf;
      }
    }
    error = "json: cannot unmarshal " + what + " into Go struct field " + kind + "." + path + " of type " + GoTypeName(s);
    return false;
  }

  bool Check(const boost::json::value& v, const am::Schema* s, const std::string& path, int depth) {
    s = Resolve(s);
    if (!s || v.is_null() || depth > 200) return true;
    if (s->int_or_string || (s->preserve_unknown_fields && *s->preserve_unknown_fields && s->type.empty())) {
      if (s->int_or_string && !(v.is_string() || v.is_int64() || v.is_uint64() || v.is_double())) return Fail(path, v, s);
      return true;
    }
    std::string t = TypeOf(s);
    if (t.empty()) return true;
    if (t == "string") {
      if (!v.is_string()) return Fail(path, v, s);
      if (s->format == "byte") {
        // A []byte field: Go's decoder base64-decodes the string and reports where it failed.
        if (int64_t at = am::GoBase64CorruptOffset(v.get_string()); at >= 0) {
          error = am::GoBase64ErrorText(at);
          return false;
        }
      }
      return true;
    }
    if (t == "boolean") return v.is_bool() ? true : Fail(path, v, s);
    if (t == "number") return (v.is_double() || v.is_int64() || v.is_uint64()) ? true : Fail(path, v, s);
    if (t == "integer") {
      if (v.is_int64() || v.is_uint64()) return true;
      if (v.is_double() && std::floor(v.get_double()) == v.get_double() && std::fabs(v.get_double()) < 9.2e18) return true;
      return Fail(path, v, s);
    }
    if (t == "array") {
      if (!v.is_array()) return Fail(path, v, s);
      for (const auto& e : v.get_array()) {
        if (!Check(e, s->items, path, depth + 1)) return false;
      }
      return true;
    }
    if (t == "object") {
      if (!v.is_object()) return Fail(path, v, s);
      for (const auto& kv : v.get_object()) {
        std::string child = path.empty() ? std::string(kv.key()) : path + "." + std::string(kv.key());
        const am::Schema* cs = nullptr;
        if (auto it = s->property_index.find(std::string(kv.key())); it != s->property_index.end()) {
          cs = it->second;
        } else if (s->additional_properties) {
          cs = s->additional_properties;
        }
        if (cs && !Check(kv.value(), cs, child, depth + 1)) return false;
      }
      return true;
    }
    return true;
  }
};

}  // namespace

std::string CheckTypes(const boost::json::value& v, const am::Schema* schema, const std::string& kind) {
  Checker c{kind, ""};
  c.Check(v, schema, "", 0);
  return c.error;
}

}  // namespace capstan::endpoints
