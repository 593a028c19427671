// apimachinery/json_path.h: get, set and remove nested fields of a JSON object by key path.
//
// GetPath(obj, {"metadata", "name"}) returns the value or nullptr when a step is missing or is not an
// object. SetPath creates (or replaces with) objects along the way. Typed getters return nullopt for
// absent fields and for fields of another JSON type. Pure functions over the value passed in; the
// usual boost::json thread-safety (concurrent readers, one writer).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

namespace capstan::apimachinery {

using JsonPath = std::span<const std::string_view>;

const boost::json::value* GetPath(const boost::json::value& v, JsonPath path);
const boost::json::value* GetPath(const boost::json::object& o, JsonPath path);
boost::json::value* GetPathMutable(boost::json::value& v, JsonPath path);
boost::json::value* GetPathMutable(boost::json::object& o, JsonPath path);

// Sets the field, creating intermediate objects and replacing non-object steps; returns the stored
// value. An empty path replaces v itself.
boost::json::value& SetPath(boost::json::value& v, JsonPath path, boost::json::value x);
boost::json::value& SetPath(boost::json::object& o, JsonPath path, boost::json::value x);

// Removes the field; false when it was not there.
bool RemovePath(boost::json::value& v, JsonPath path);
bool RemovePath(boost::json::object& o, JsonPath path);

std::optional<std::string_view> GetStringPath(const boost::json::object& o, JsonPath path);
// An integer field: an int64, a uint64 that fits, or a double with an integral value in range.
std::optional<int64_t> GetIntPath(const boost::json::object& o, JsonPath path);
std::optional<bool> GetBoolPath(const boost::json::object& o, JsonPath path);
const boost::json::object* GetObjectPath(const boost::json::object& o, JsonPath path);
const boost::json::array* GetArrayPath(const boost::json::object& o, JsonPath path);

// initializer_list conveniences: GetPath(obj, {"metadata", "name"}).
inline const boost::json::value* GetPath(const boost::json::object& o, std::initializer_list<std::string_view> p) {
  return GetPath(o, JsonPath(p.begin(), p.size()));
}
inline const boost::json::value* GetPath(const boost::json::value& v, std::initializer_list<std::string_view> p) {
  return GetPath(v, JsonPath(p.begin(), p.size()));
}
inline boost::json::value* GetPathMutable(boost::json::object& o, std::initializer_list<std::string_view> p) {
  return GetPathMutable(o, JsonPath(p.begin(), p.size()));
}
inline boost::json::value& SetPath(boost::json::object& o, std::initializer_list<std::string_view> p,
                                   boost::json::value x) {
  return SetPath(o, JsonPath(p.begin(), p.size()), std::move(x));
}
inline bool RemovePath(boost::json::object& o, std::initializer_list<std::string_view> p) {
  return RemovePath(o, JsonPath(p.begin(), p.size()));
}
inline std::optional<std::string_view> GetStringPath(const boost::json::object& o,
                                                     std::initializer_list<std::string_view> p) {
  return GetStringPath(o, JsonPath(p.begin(), p.size()));
}
inline std::optional<int64_t> GetIntPath(const boost::json::object& o, std::initializer_list<std::string_view> p) {
  return GetIntPath(o, JsonPath(p.begin(), p.size()));
}

}  // namespace capstan::apimachinery
