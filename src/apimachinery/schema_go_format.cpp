#include "apimachinery/schema_go_format.h"

#include <algorithm>
#include <cfloat>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "util/go_float.h"
#include "apimachinery/json_write.h"
#include "util/strings.h"

namespace capstan::apimachinery {

namespace json = boost::json;

namespace {

std::string ToChars(double f, std::chars_format fmt) {
  char buf[400];
  auto res = std::to_chars(buf, buf + sizeof buf, f, fmt);
  return std::string(buf, res.ptr);
}

// Decoded numbers: int64 stays an integer, every other number is a float64 (as Go decodes them).
bool AsGoFloat(const json::value& v, double* out) {
  if (v.is_double()) {
    *out = v.get_double();
    return true;
  }
  if (v.is_uint64()) {
    *out = static_cast<double>(v.get_uint64());
    return true;
  }
  return false;
}

// fmt prints a map's entries in key order.
std::vector<const json::key_value_pair*> SortedMembers(const json::object& o) {
  std::vector<const json::key_value_pair*> kvs;
  for (const auto& kv : o) kvs.push_back(&kv);
  std::sort(kvs.begin(), kvs.end(), [](auto* a, auto* b) { return a->key() < b->key(); });
  return kvs;
}

}  // namespace

std::string GoFloatV(double f) { return FormatFloatG(f); }

std::string GoFloatF(double f) {
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "+Inf" : "-Inf";
  return ToChars(f, std::chars_format::fixed);
}

std::string GoSprint(const json::value& v) {
  double f;
  switch (v.kind()) {
    case json::kind::null: return "<nil>";
    case json::kind::bool_: return v.get_bool() ? "true" : "false";
    case json::kind::int64: return std::to_string(v.get_int64());
    case json::kind::uint64:
    case json::kind::double_:
      AsGoFloat(v, &f);
      return GoFloatV(f);
    case json::kind::string: return std::string(v.get_string());
    case json::kind::array: {
      std::string s = "[";
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) s.push_back(' ');
        first = false;
        s += GoSprint(e);
      }
      return s + "]";
    }
    case json::kind::object: {
      std::string s = "map[";
      bool first = true;
      for (const auto* kv : SortedMembers(v.get_object())) {
        if (!first) s.push_back(' ');
        first = false;
        s += std::string(kv->key()) + ":" + GoSprint(kv->value());
      }
      return s + "]";
    }
  }
  return "";
}

std::string GoSharpV(const json::value& v) {
  double f;
  switch (v.kind()) {
    case json::kind::null: return "interface {}(nil)";
    case json::kind::bool_: return v.get_bool() ? "true" : "false";
    case json::kind::int64: return std::to_string(v.get_int64());
    case json::kind::uint64:
    case json::kind::double_:
      AsGoFloat(v, &f);
      return GoFloatV(f);
    case json::kind::string: return GoQuote(std::string_view(v.get_string()));
    case json::kind::array: {
      std::string s = "[]interface {}{";
      bool first = true;
      for (const auto& e : v.get_array()) {
        if (!first) s += ", ";
        first = false;
        s += GoSharpV(e);
      }
      return s + "}";
    }
    case json::kind::object: {
      std::string s = "map[string]interface {}{";
      bool first = true;
      for (const auto* kv : SortedMembers(v.get_object())) {
        if (!first) s += ", ";
        first = false;
        s += GoQuote(std::string_view(kv->key())) + ":" + GoSharpV(kv->value());
      }
      return s + "}";
    }
  }
  return "";
}

std::string GoTypeName(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return "%!s(<nil>)";
    case json::kind::bool_: return "bool";
    case json::kind::int64: return "int64";
    case json::kind::uint64:
    case json::kind::double_: return "float64";
    case json::kind::string: return "string";
    case json::kind::array: return "[]interface {}";
    case json::kind::object: return "map[string]interface {}";
  }
  return "";
}

std::string GoJsonMarshal(const json::value& v) {
  JsonWriteOptions opts;
  opts.sort_keys = true;
  return ToJson(v, opts);
}

bool IsFloat64AJSONInteger(double f) {
  constexpr double kMaxJSONFloat = 9007199254740991.0;  // 1<<53 - 1
  if (std::isnan(f) || std::isinf(f) || f < -kMaxJSONFloat || f > kMaxJSONFloat) return false;
  double fa = std::fabs(f);
  // Go's uint64(f) on amd64: a negative value converts through int64.
  double g = f >= 0 ? static_cast<double>(static_cast<uint64_t>(f))
                    : static_cast<double>(static_cast<uint64_t>(static_cast<int64_t>(f)));
  double ga = std::fabs(g);
  double diff = std::fabs(f - g);
  if (f == g) return true;
  if (f == static_cast<double>(static_cast<int64_t>(f))) return true;
  if (f == 0 || g == 0 || diff < DBL_TRUE_MIN) return false;  // Go: diff < 1e-9 * smallest, never true
  return diff / std::min(fa + ga, DBL_MAX) < 1e-9;
}

}  // namespace capstan::apimachinery
