// apimachinery/config_document.h: the first step of reading a kube configuration file
// (AdmissionConfiguration, AuthorizationConfiguration, ...) as kube's strict config decoders do:
// YAML or JSON to one object (duplicate keys collected), then its apiVersion and kind checked against
// the scheme, with runtime.Decode's texts: "Object 'Kind' is missing in '<data>'", "no kind "K" is
// registered for version "g/v" in scheme "<scheme>"". Typed decoding of the fields is the caller's.
// Pure functions.
#pragma once

#include <boost/json/object.hpp>
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

// encoding/json's word for a value's JSON type in "cannot unmarshal <word> into ...".
std::string JsonTypeWord(const boost::json::value& v);

// "strict decoding error: <unknown fields>, <yaml duplicate summary>" ("" when there is nothing).
std::string StrictDecodingError(const std::vector<std::string>& unknown_fields, const std::vector<std::string>& strict_errors);

}  // namespace capstan::apimachinery
