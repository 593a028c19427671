#include "admission/plugin_config_decode.h"

#include <boost/json.hpp>
#include <algorithm>
#include <cctype>
#include <limits>

#include "apimachinery/json_write.h"
#include "util/go_float.h"

namespace capstan::admission {

namespace json = boost::json;

Status ConfigError(std::string message) { return Status(400, "BadRequest", std::move(message)); }

Status PlainError(std::string message) { return Status(500, "", std::move(message)); }

bool EqualFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

Status CheckConfigKind(const json::value& config, const std::vector<std::string>& api_versions, std::string_view kind,
                       std::string_view scheme_name) {
  std::string raw = apimachinery::ToJson(config);
  if (!config.is_object()) {
    if (config.is_null()) return ConfigError("Object 'Kind' is missing in '" + raw + "'");
    return ConfigError("couldn't get version/kind; json parse error: json: cannot unmarshal " +
                       GoJsonValueWord(config) +
                       " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; "
                       "Kind string \"json:\\\"kind,omitempty\\\"\" }");
  }
  const json::object& o = config.get_object();
  auto str = [&](const char* k) {
    const json::value* x = o.if_contains(k);
    return x && x->is_string() ? std::string(x->get_string()) : std::string();
  };
  std::string api_version = str("apiVersion"), got_kind = str("kind");
  if (got_kind.empty()) return ConfigError("Object 'Kind' is missing in '" + raw + "'");
  if (api_version.empty()) return ConfigError("Object 'apiVersion' is missing in '" + raw + "'");
  bool known = std::find(api_versions.begin(), api_versions.end(), api_version) != api_versions.end();
  if (!known || got_kind != kind) {
    return ConfigError("no kind \"" + got_kind + "\" is registered for version \"" + api_version + "\" in scheme \"" +
                       std::string(scheme_name) + "\"");
  }
  return Status();
}

std::string GoJsonValueWord(const json::value& v, bool number_literal) {
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  if (!number_literal && v.is_number()) return "number";
  if (v.is_int64()) return "number " + std::to_string(v.get_int64());
  if (v.is_uint64()) return "number " + std::to_string(v.get_uint64());
  if (v.is_double()) return "number " + FormatFloatJson(v.get_double());
  return "null";
}

Status UnmarshalTypeError(const json::value& v, std::string_view go_field, std::string_view go_type) {
  bool integer = go_type.starts_with("int") || go_type.starts_with("uint");
  return ConfigError("json: cannot unmarshal " + GoJsonValueWord(v, integer) + " into Go struct field " + std::string(go_field) +
                     " of type " + std::string(go_type));
}

StatusOr<int32_t> Int32Field(const json::object& o, std::string_view key, std::string_view go_field) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return 0;
  if (v->is_int64() && v->get_int64() >= std::numeric_limits<int32_t>::min() &&
      v->get_int64() <= std::numeric_limits<int32_t>::max()) {
    return static_cast<int32_t>(v->get_int64());
  }
  if (v->is_uint64() && v->get_uint64() <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
    return static_cast<int32_t>(v->get_uint64());
  }
  return UnmarshalTypeError(*v, go_field, "int32");
}

}  // namespace capstan::admission
