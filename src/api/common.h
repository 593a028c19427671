// api/common.h: small helpers every built-in group's files use: ResourceInfo construction, reading
// typed fields out of JSON objects, and the printer helpers of kube's server-side tables.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "registry/resource_info.h"
#include "registry/rest.h"
#include "registry/table.h"

namespace capstan::api {

using registry::Object;

struct InfoArgs {
  std::string group;
  std::string version;
  std::string resource;
  std::string singular;
  std::string kind;
  bool namespaced = true;
  std::vector<std::string> short_names = {};
  std::vector<std::string> categories = {};
  std::string definition;  // schema definition name
};
registry::ResourceInfo MakeInfo(InfoArgs a);

// Field access on JSON objects: null when absent or of another type.
const boost::json::object* ObjectAt(const Object& o, std::string_view key);
const boost::json::array* ArrayAt(const Object& o, std::string_view key);
std::string StringAt(const Object& o, std::string_view key);
int64_t IntAt(const Object& o, std::string_view key, int64_t def = 0);
bool BoolAt(const Object& o, std::string_view key, bool def = false);
// Follows a path of object keys.
const boost::json::value* PathAt(const Object& o, std::initializer_list<std::string_view> path);

// Number of entries of an object-valued field (map) or elements of an array-valued field.
int64_t CountAt(const Object& o, std::string_view key);

// The AGE cell of an object.
std::string AgeCell(const Object& o);

}  // namespace capstan::api
