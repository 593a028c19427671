// admission/plugin_config_decode.h: the checks kube's UniversalDecoder makes on a plugin's versioned
// configuration (a `kind` of some `<group>/<version>` registered in the plugin's own scheme), and Go
// encoding/json's texts for a field of the wrong type, so each plugin's parser reports start-up errors
// as kube-apiserver does. Pure functions; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::admission {

// A 400 BadRequest carrying `message` (a start-up error: the caller prefixes the plugin's name).
Status ConfigError(std::string message);

// The configuration is an object with kind `kind` in one of `api_versions`; else kube's decoder
// errors: "Object 'Kind' is missing in '<json>'", "Object 'apiVersion' is missing in '<json>'", or
// "no kind \"K\" is registered for version \"V\" in scheme \"<scheme_name>\"".
Status CheckConfigKind(const boost::json::value& config, const std::vector<std::string>& api_versions,
                       std::string_view kind, std::string_view scheme_name);

// Go encoding/json's description of a value it cannot unmarshal: "string", "number 1.5", "object",
// "array", "bool".
std::string GoJsonValueWord(const boost::json::value& v);

// "json: cannot unmarshal <word> into Go struct field <go_field> of type <go_type>".
Status UnmarshalTypeError(const boost::json::value& v, std::string_view go_field, std::string_view go_type);

// An int32 field of a config struct (absent or null: 0); other values are UnmarshalTypeErrors.
StatusOr<int32_t> Int32Field(const boost::json::object& o, std::string_view key, std::string_view go_field);

}  // namespace capstan::admission
