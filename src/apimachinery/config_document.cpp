#include "apimachinery/config_document.h"

#include <boost/json.hpp>

#include "apimachinery/yaml.h"
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

}  // namespace capstan::apimachinery
