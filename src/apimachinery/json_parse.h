// apimachinery/json_parse.h: request bodies to boost::json values, as kube's JSON decoder reads them.
//
// The grammar, the limits and every error text follow Go's encoding/json as kube-apiserver runs it:
//   invalid character '}' looking for beginning of object key string
//   unexpected end of JSON input
//   invalid character '[' exceeded max depth            (nesting deeper than 10000)
//   json: cannot unmarshal number 1e400 into Go value of type float64
// Syntax errors are Go's SyntaxError texts (no "json: " prefix); value errors start with "json: ".
// kube reports the first kind as "couldn't get version/kind; json parse error: <text>"
// (kFindKindErrorPrefix), see errors.h DecodeError.
//
// Values decode as kube's unstructured decoder does (sigs.k8s.io/json, case-sensitive, PreserveInts):
// a number without '.' that fits int64 is an int64, every other number a double; strings with invalid
// UTF-8 or lone surrogates get U+FFFD; a duplicated key keeps its first position and its last value.
// Strict mode also reports each duplicated key as kube's strict decoder does, with its path:
//   duplicate field "metadata.name"        duplicate field "spec.items[0].x"
// (deduplicated, at most 100), for fieldValidation=Strict (error) or Warn (warnings).
// The parser is iterative: deep input cannot overflow the stack. Thread-safe (no shared state).
#pragma once

#include <boost/json/value.hpp>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

inline constexpr int kJsonMaxDepth = 10000;  // Go's encoding/json maxNestingDepth
// kube-apiserver's default --max-request-bytes for a body (3 MiB).
inline constexpr size_t kMaxRequestBodyBytes = 3 * 1024 * 1024;
inline constexpr std::string_view kFindKindErrorPrefix = "couldn't get version/kind; json parse error: ";

struct JsonParseOptions {
  // 0: no limit. A larger body fails with 413 RequestEntityTooLarge "Request entity too large:
  // limit is N", without being parsed.
  size_t max_bytes = 0;
  int max_depth = kJsonMaxDepth;
  // Collect duplicate-field errors (fieldValidation Strict or Warn).
  bool strict = false;
};

struct JsonParseResult {
  boost::json::value value;
  // Strict mode only: `duplicate field "a.b"` texts in document order, deduplicated, at most 100.
  std::vector<std::string> strict_errors;
};

// Parses exactly one JSON value (surrounding whitespace allowed). A failure is a 400 BadRequest
// Status whose message is Go's error text (see above), or the 413 for max_bytes.
StatusOr<JsonParseResult> ParseJson(std::string_view text, const JsonParseOptions& opts = {});

// kube's strict-decoding texts: UnknownFieldError("spec.foo") is `unknown field "spec.foo"` (the
// schema layer finds those); StrictDecodingMessage joins duplicates and unknowns the way kube's 400
// for fieldValidation=Strict reads: `strict decoding error: duplicate field "a", unknown field "b"`.
// Under fieldValidation=Warn each text is one warning.
std::string UnknownFieldError(std::string_view path);
std::string StrictDecodingMessage(const std::vector<std::string>& errors);

// Convenience: the value only, lenient mode.
StatusOr<boost::json::value> ParseJsonValue(std::string_view text);

}  // namespace capstan::apimachinery
