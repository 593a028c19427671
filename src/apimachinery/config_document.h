// apimachinery/config_document.h: the first step of reading a kube configuration file
// (AdmissionConfiguration, AuthorizationConfiguration, ...) as kube's strict config decoders do:
// YAML or JSON to one object (duplicate keys collected), then its apiVersion and kind checked against
// the scheme, with runtime.Decode's texts: "Object 'Kind' is missing in '<data>'", "no kind "K" is
// registered for version "g/v" in scheme "<scheme>"". Typed decoding of the fields is the caller's.
// Pure functions.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <chrono>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

struct ConfigDocument {
  boost::json::object object;
  std::string api_version;
  std::vector<std::string> strict_errors;  // go-yaml's duplicate-key texts
};

StatusOr<ConfigDocument> DecodeConfigDocument(std::string_view data, std::string_view kind,
                                              const std::set<std::string>& versions, std::string_view scheme_name);

// Decodes the typed fields of a config object the way encoding/json under kube's strict decoder
// does: unknown fields are collected as `unknown field "<path>"` (`prefix` is the object's path
// with a trailing dot), a value of the wrong JSON type is encoding/json's error (the first one is
// kept: "json: cannot unmarshal <word> into Go struct field <go_field> of type <go_type>"). Absent
// and null fields leave `out` as it was.
class ConfigDecoder {
 public:
  std::vector<std::string> unknown;
  std::string type_error;

  void Unknown(const boost::json::object& o, const std::string& prefix, std::initializer_list<std::string_view> known);
  void String(const boost::json::object& o, std::string_view key, const std::string& go_field, std::string& out,
              const char* go_type = "string");
  // Present (even as ""): out is set; absent or null: out stays empty.
  void OptionalString(const boost::json::object& o, std::string_view key, const std::string& go_field,
                      std::optional<std::string>& out);
  void Bool(const boost::json::object& o, std::string_view key, const std::string& go_field, bool& out);
  void StringList(const boost::json::object& o, std::string_view key, const std::string& go_field,
                  std::vector<std::string>& out);
  // A Go duration string ("5m", "1h30s"); a bad one is time's "time: invalid duration \"x\"".
  void Duration(const boost::json::object& o, std::string_view key, const std::string& go_field,
                std::chrono::nanoseconds& out);
  const boost::json::object* Object(const boost::json::object& o, std::string_view key, const std::string& go_field,
                                    const char* go_type);
  const boost::json::array* Array(const boost::json::object& o, std::string_view key, const std::string& go_field,
                                  const char* go_type);
  void TypeError(const boost::json::value& v, const std::string& go_field, const char* go_type);
};

// os.ReadFile for a configuration file, with Go's texts: "open <path>: no such file or directory",
// "open <path>: permission denied", "read <path>: is a directory".
StatusOr<std::string> ReadConfigFile(const std::string& path);

// encoding/json's word for a value's JSON type in "cannot unmarshal <word> into ...".
std::string JsonTypeWord(const boost::json::value& v);

// "strict decoding error: <unknown fields>, <yaml duplicate summary>" ("" when there is nothing).
std::string StrictDecodingError(const std::vector<std::string>& unknown_fields, const std::vector<std::string>& strict_errors);

}  // namespace capstan::apimachinery
