// apimachinery/json_write.h: boost::json values to JSON text, byte for byte as kube writes it.
//
// kube-apiserver encodes with Go's encoding/json: compact, strings with <, > and & escaped as
// \u003c \u003e \u0026, U+2028/U+2029 as \u2028/\u2029, control characters as \n \r \t \b \f or
// \u00XX, invalid UTF-8 as \ufffd; int64/uint64 as integers; doubles in Go's float64 form
// (go_float.h: 1e+21, 1e-7, 0.5). Keys keep the object's order (the typed-struct order built-in
// kinds are stored in), or sort bytewise as Go does for map[string]interface{} (custom resources).
// The writer is iterative: any depth the parser accepted can be written. Thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace capstan::apimachinery {

struct JsonWriteOptions {
  bool sort_keys = false;    // Go's map encoding order (bytewise)
  bool escape_html = true;   // encoding/json's default
};

void AppendJson(std::string& out, const boost::json::value& v, const JsonWriteOptions& opts = {});
std::string ToJson(const boost::json::value& v, const JsonWriteOptions& opts = {});
// A JSON string literal with Go's escaping.
void AppendJsonString(std::string& out, std::string_view s, bool escape_html = true);

// Writes an object with some metadata fields replaced or added, without copying or re-parsing it:
// the watch cache and the store write each object once with its resourceVersion (and, on create,
// uid/creationTimestamp/generation) in place. An override of a field already in metadata is written
// at that field's position; a new one goes where kube's ObjectMeta order puts it (name, generateName,
// namespace, selfLink, uid, resourceVersion, generation, creationTimestamp, ...). A missing metadata
// object is written after apiVersion/kind.
using MetadataOverrides = std::vector<std::pair<std::string, boost::json::value>>;
void AppendJsonWithMetadata(std::string& out, const boost::json::object& obj,
                            const MetadataOverrides& overrides, const JsonWriteOptions& opts = {});
// The common case: only metadata.resourceVersion.
std::string ToJsonWithResourceVersion(const boost::json::object& obj, std::string_view resource_version);

}  // namespace capstan::apimachinery
