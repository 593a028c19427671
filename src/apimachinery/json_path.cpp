#include "apimachinery/json_path.h"

#include <cmath>

namespace capstan::apimachinery {

namespace json = boost::json;

const json::value* GetPath(const json::object& o, JsonPath path) {
  if (path.empty()) return nullptr;
  const json::object* cur = &o;
  for (size_t i = 0; i < path.size(); ++i) {
    auto it = cur->find(path[i]);
    if (it == cur->end()) return nullptr;
    if (i + 1 == path.size()) return &it->value();
    if (!it->value().is_object()) return nullptr;
    cur = &it->value().get_object();
  }
  return nullptr;
}

const json::value* GetPath(const json::value& v, JsonPath path) {
  if (path.empty()) return &v;
  if (!v.is_object()) return nullptr;
  return GetPath(v.get_object(), path);
}

json::value* GetPathMutable(json::object& o, JsonPath path) {
  return const_cast<json::value*>(GetPath(static_cast<const json::object&>(o), path));
}

json::value* GetPathMutable(json::value& v, JsonPath path) {
  return const_cast<json::value*>(GetPath(static_cast<const json::value&>(v), path));
}

json::value& SetPath(json::object& o, JsonPath path, json::value x) {
  json::object* cur = &o;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    json::value& next = (*cur)[path[i]];
    if (!next.is_object()) next = json::object();
    cur = &next.get_object();
  }
  json::value& slot = (*cur)[path.back()];
  slot = std::move(x);
  return slot;
}

json::value& SetPath(json::value& v, JsonPath path, json::value x) {
  if (path.empty()) {
    v = std::move(x);
    return v;
  }
  if (!v.is_object()) v = json::object();
  return SetPath(v.get_object(), path, std::move(x));
}

bool RemovePath(json::object& o, JsonPath path) {
  if (path.empty()) return false;
  json::object* parent = &o;
  if (path.size() > 1) {
    json::value* p = GetPathMutable(o, path.subspan(0, path.size() - 1));
    if (p == nullptr || !p->is_object()) return false;
    parent = &p->get_object();
  }
  return parent->stable_erase(path.back()) > 0;
}

bool RemovePath(json::value& v, JsonPath path) {
  if (!v.is_object()) return false;
  return RemovePath(v.get_object(), path);
}

std::optional<std::string_view> GetStringPath(const json::object& o, JsonPath path) {
  const json::value* v = GetPath(o, path);
  if (v == nullptr || !v->is_string()) return std::nullopt;
  return std::string_view(v->get_string());
}

std::optional<int64_t> GetIntPath(const json::object& o, JsonPath path) {
  const json::value* v = GetPath(o, path);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() <= static_cast<uint64_t>(INT64_MAX)) {
    return static_cast<int64_t>(v->get_uint64());
  }
  if (v->is_double()) {
    double d = v->get_double();
    if (std::trunc(d) == d && d >= -9.2233720368547758e18 && d < 9.2233720368547758e18) {
      return static_cast<int64_t>(d);
    }
  }
  return std::nullopt;
}

std::optional<bool> GetBoolPath(const json::object& o, JsonPath path) {
  const json::value* v = GetPath(o, path);
  if (v == nullptr || !v->is_bool()) return std::nullopt;
  return v->get_bool();
}

const json::object* GetObjectPath(const json::object& o, JsonPath path) {
  const json::value* v = GetPath(o, path);
  return v != nullptr && v->is_object() ? &v->get_object() : nullptr;
}

const json::array* GetArrayPath(const json::object& o, JsonPath path) {
  const json::value* v = GetPath(o, path);
  return v != nullptr && v->is_array() ? &v->get_array() : nullptr;
}

}  // namespace capstan::apimachinery
