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

// A plain Go error (not an API status) returned by a kube plugin, as kube-apiserver answers it: a
// 500 with no reason and the error's text.
Status PlainError(std::string message);

// Go's ASCII case folding, as encoding/json matches an object key to a struct field.
bool EqualFold(std::string_view a, std::string_view b);

// The configuration is an object with kind `kind` in one of `api_versions`; else kube's decoder
// errors: "Object 'Kind' is missing in '<json>'", "Object 'apiVersion' is missing in '<json>'", or
// "no kind \"K\" is registered for version \"V\" in scheme \"<scheme_name>\"".
Status CheckConfigKind(const boost::json::value& config, const std::vector<std::string>& api_versions,
                       std::string_view kind, std::string_view scheme_name);

// Go encoding/json's description of a value it cannot unmarshal: "string", "object", "array", "bool",
// "number", or "number 1.5" where the target is an integer (Go quotes the literal only then).
std::string GoJsonValueWord(const boost::json::value& v, bool number_literal = false);

// "json: cannot unmarshal <word> into Go struct field <go_field> of type <go_type>" (the number's
// literal is shown when go_type is an integer type).
Status UnmarshalTypeError(const boost::json::value& v, std::string_view go_field, std::string_view go_type);

// An int32 field of a config struct (absent or null: 0); other values are UnmarshalTypeErrors.
StatusOr<int32_t> Int32Field(const boost::json::object& o, std::string_view key, std::string_view go_field);

}  // namespace capstan::admission
