// apimachinery/yaml_resolve.h: go-yaml v2's plain-scalar resolution (resolve.go), shared by the YAML
// reader and writer: what an untagged scalar means (null, bool, int, float, timestamp, string).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace capstan::apimachinery::yaml_internal {

enum class ScalarKind { kNull, kBool, kInt, kUint, kFloat, kTimestamp, kString, kMerge };

struct Resolved {
  ScalarKind kind = ScalarKind::kString;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;
  double f = 0;
};

// go-yaml v2's resolve("", s) for a plain scalar.
Resolved ResolvePlain(std::string_view s);

// Go's strconv.ParseInt(s, 0, 64) / ParseUint(s, 0, 64) (base prefixes 0x 0o 0b and leading-0 octal).
bool GoParseInt(std::string_view s, int base, int64_t& out);
bool GoParseUint(std::string_view s, int base, uint64_t& out);

// Whether go-yaml v2 reads s as a timestamp (and the writer therefore quotes it).
bool IsYamlTimestamp(std::string_view s);
// go-yaml's isBase60Float: "1:30" style numbers, which the writer quotes.
bool IsBase60Float(std::string_view s);

inline constexpr std::string_view kTagPrefix = "tag:yaml.org,2002:";

}  // namespace capstan::apimachinery::yaml_internal
