#include "api/common.h"

#include "apimachinery/json_path.h"
#include "apimachinery/object_meta.h"

namespace capstan::api {

namespace am = capstan::apimachinery;

registry::ResourceInfo MakeInfo(InfoArgs a) {
  registry::ResourceInfo i;
  i.group = std::move(a.group);
  i.version = std::move(a.version);
  i.resource = std::move(a.resource);
  i.singular = std::move(a.singular);
  i.kind = a.kind;
  i.list_kind = a.kind + "List";
  i.namespaced = a.namespaced;
  i.short_names = std::move(a.short_names);
  i.categories = std::move(a.categories);
  i.definition = std::move(a.definition);
  return i;
}

const boost::json::object* ObjectAt(const Object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

const boost::json::array* ArrayAt(const Object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

std::string StringAt(const Object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

int64_t IntAt(const Object& o, std::string_view key, int64_t def) {
  const auto* v = o.if_contains(key);
  if (!v) return def;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) return static_cast<int64_t>(v->get_double());
  return def;
}

bool BoolAt(const Object& o, std::string_view key, bool def) {
  const auto* v = o.if_contains(key);
  return v && v->is_bool() ? v->get_bool() : def;
}

const boost::json::value* PathAt(const Object& o, std::initializer_list<std::string_view> path) {
  return apimachinery::GetPath(o, path);
}

int64_t CountAt(const Object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v) return 0;
  if (v->is_object()) return static_cast<int64_t>(v->get_object().size());
  if (v->is_array()) return static_cast<int64_t>(v->get_array().size());
  return 0;
}

std::string AgeCell(const Object& o) { return registry::TranslateTimestampSince(am::GetCreationTimestamp(o)); }

}  // namespace capstan::api
