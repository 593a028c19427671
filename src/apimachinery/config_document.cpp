#include "apimachinery/config_document.h"

#include <boost/json.hpp>
#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "apimachinery/yaml.h"
#include "util/duration.h"
#include "util/strings.h"

namespace capstan::apimachinery {

namespace json = boost::json;

namespace {
Status Bad(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }
}  // namespace

std::string JsonTypeWord(const json::value& v) {
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_bool()) return "bool";
  return "number";
}

StatusOr<ConfigDocument> DecodeConfigDocument(std::string_view data, std::string_view kind,
                                              const std::set<std::string>& versions, std::string_view scheme_name) {
  YamlParseOptions yo;
  yo.strict = true;
  yo.max_bytes = 4 << 20;
  auto parsed = YamlToJson(data, yo);
  if (!parsed.ok()) return Bad("error converting YAML to JSON: " + parsed.status().message());
  json::value& v = parsed->value;
  if (!v.is_object()) {
    if (v.is_null()) return Bad("Object 'Kind' is missing in '" + std::string(data) + "'");
    return Bad("couldn't get version/kind; json parse error: json: cannot unmarshal " + JsonTypeWord(v) +
               " into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string "
               "\"json:\\\"kind,omitempty\\\"\" }");
  }
  ConfigDocument doc;
  doc.object = std::move(v.get_object());
  doc.strict_errors = std::move(parsed->strict_errors);
  auto str = [&](const char* k) {
    const json::value* x = doc.object.if_contains(k);
    return x && x->is_string() ? std::string(x->get_string()) : std::string();
  };
  std::string got_kind = str("kind");
  doc.api_version = str("apiVersion");
  if (got_kind.empty()) return Bad("Object 'Kind' is missing in '" + std::string(data) + "'");
  if (doc.api_version.empty()) return Bad("Object 'apiVersion' is missing in '" + std::string(data) + "'");
  if (!versions.count(doc.api_version) || got_kind != kind) {
    return Bad("no kind " + GoQuote(got_kind) + " is registered for version " + GoQuote(doc.api_version) + " in scheme " +
               GoQuote(scheme_name));
  }
  return doc;
}

std::string StrictDecodingError(const std::vector<std::string>& unknown_fields, const std::vector<std::string>& strict_errors) {
  if (unknown_fields.empty() && strict_errors.empty()) return "";
  std::vector<std::string> all = unknown_fields;
  if (!strict_errors.empty()) all.push_back(YamlStrictErrorMessage(strict_errors));
  return "strict decoding error: " + Join(all, ", ");
}

void ConfigDecoder::Unknown(const json::object& o, const std::string& prefix, std::initializer_list<std::string_view> known) {
  for (const auto& [k, v] : o) {
    if (std::find(known.begin(), known.end(), std::string_view(k)) == known.end()) {
      unknown.push_back("unknown field \"" + prefix + std::string(k) + "\"");
    }
  }
}

void ConfigDecoder::String(const json::object& o, std::string_view key, const std::string& go_field, std::string& out,
                           const char* go_type) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return;
  if (!v->is_string()) return TypeError(*v, go_field, go_type);
  out = std::string(v->get_string());
}

void ConfigDecoder::OptionalString(const json::object& o, std::string_view key, const std::string& go_field,
                                   std::optional<std::string>& out) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return;
  std::string s;
  String(o, key, go_field, s);
  out = std::move(s);
}

void ConfigDecoder::Bool(const json::object& o, std::string_view key, const std::string& go_field, bool& out) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return;
  if (!v->is_bool()) return TypeError(*v, go_field, "bool");
  out = v->get_bool();
}

void ConfigDecoder::StringList(const json::object& o, std::string_view key, const std::string& go_field,
                               std::vector<std::string>& out) {
  const json::array* a = Array(o, key, go_field, "[]string");
  if (!a) return;
  for (const auto& x : *a) {
    if (!x.is_string()) {
      TypeError(x, go_field, "string");
      continue;
    }
    out.emplace_back(x.get_string());
  }
}

void ConfigDecoder::Duration(const json::object& o, std::string_view key, const std::string& go_field,
                             std::chrono::nanoseconds& out) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return;
  if (!v->is_string()) return TypeError(*v, go_field, "string");
  auto d = ParseGoDuration(v->get_string());
  if (!d) {
    if (type_error.empty()) type_error = "time: invalid duration " + GoQuote(v->get_string());
    return;
  }
  out = *d;
}

const json::object* ConfigDecoder::Object(const json::object& o, std::string_view key, const std::string& go_field,
                                          const char* go_type) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return nullptr;
  if (!v->is_object()) {
    TypeError(*v, go_field, go_type);
    return nullptr;
  }
  return &v->get_object();
}

const json::array* ConfigDecoder::Array(const json::object& o, std::string_view key, const std::string& go_field,
                                        const char* go_type) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return nullptr;
  if (!v->is_array()) {
    TypeError(*v, go_field, go_type);
    return nullptr;
  }
  return &v->get_array();
}

void ConfigDecoder::TypeError(const json::value& v, const std::string& go_field, const char* go_type) {
  if (type_error.empty()) {
    type_error = "json: cannot unmarshal " + JsonTypeWord(v) + " into Go struct field " + go_field + " of type " + go_type;
  }
}

StatusOr<std::string> ReadConfigFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return Bad("read " + path + ": is a directory");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const char* why = errno == EACCES ? "permission denied" : "no such file or directory";
    return Bad("open " + path + ": " + why);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace capstan::apimachinery
