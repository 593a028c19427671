// admission/pod_security_json.h: the small JSON readers and text helpers the Pod Security checks
// share (a field of a pod spec as kube's typed structs would see it: a missing or null field is unset,
// a value of the wrong type is unset too, as the API's schema check has refused it before admission).
// Inline pure functions; thread-safe.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capstan::admission::psa::detail {

inline const boost::json::object* Obj(const boost::json::object* o, std::string_view key) {
  if (!o) return nullptr;
  const boost::json::value* v = o->if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}
inline const boost::json::array* Arr(const boost::json::object* o, std::string_view key) {
  if (!o) return nullptr;
  const boost::json::value* v = o->if_contains(key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}
inline std::optional<std::string_view> Str(const boost::json::object* o, std::string_view key) {
  if (!o) return std::nullopt;
  const boost::json::value* v = o->if_contains(key);
  if (!v || !v->is_string()) return std::nullopt;
  return std::string_view(v->get_string());
}
inline std::string StrOr(const boost::json::object* o, std::string_view key) {
  auto s = Str(o, key);
  return s ? std::string(*s) : std::string();
}
inline std::optional<bool> Bool(const boost::json::object* o, std::string_view key) {
  if (!o) return std::nullopt;
  const boost::json::value* v = o->if_contains(key);
  if (!v || !v->is_bool()) return std::nullopt;
  return v->get_bool();
}
inline std::optional<int64_t> Int(const boost::json::object* o, std::string_view key) {
  if (!o) return std::nullopt;
  const boost::json::value* v = o->if_contains(key);
  if (!v) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) {
    // A number no int64 holds (or NaN) is no Go int64 field: not a value (and no undefined cast).
    const double d = v->get_double();
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return std::nullopt;
    return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

// initContainers, containers, then ephemeralContainers, as kube's visitContainers.
template <typename F>
void VisitContainers(const boost::json::object& spec, F&& f) {
  for (const char* key : {"initContainers", "containers", "ephemeralContainers"}) {
    if (const boost::json::array* list = Arr(&spec, key)) {
      for (const auto& c : *list) {
        if (c.is_object()) f(c.get_object());
      }
    }
  }
}

inline std::string ContainerName(const boost::json::object& c) { return StrOr(&c, "name"); }

// "a", "b", "c" (no escaping, as kube's joinQuote).
inline std::string JoinQuote(const std::vector<std::string>& items) {
  if (items.empty()) return "";
  std::string out = "\"";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += "\", \"";
    out += items[i];
  }
  return out + "\"";
}

inline std::string Pluralize(const char* singular, const char* plural, size_t n) { return n == 1 ? singular : plural; }

inline std::string JoinWith(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

// Windows pods skip the Linux-only restricted checks from v1.25 on.
inline bool IsWindowsPod(const boost::json::object& spec) { return StrOr(Obj(&spec, "os"), "name") == "windows"; }

}  // namespace capstan::admission::psa::detail
