// apimachinery/yaml.h: YAML request bodies and YAML responses, as kube-apiserver handles
// application/yaml through sigs.k8s.io/yaml (go-yaml v2 underneath).
//
// YamlToJson reads the first document the way sigs.k8s.io/yaml.YAMLToJSON does and returns the value
// kube's JSON decoder would then see: go-yaml v2's YAML 1.1 scalar rules (yes/no/on/off are booleans,
// 0x1F and 0o17 and 017 are integers, 1.0 and 1e3 are numbers that read back as integers, timestamps
// stay strings, ~ and empty are null), merge keys (<<), anchors and aliases, and non-string keys
// turned into strings. Errors carry go-yaml's texts ("yaml: line 3: mapping values are not allowed in
// this context", "yaml: document contains excessive aliasing", "json: unsupported value: NaN");
// the scanner is libyaml, of which go-yaml is a line-by-line port, so what is accepted and every
// position match. Nesting is limited like go-yaml's (10000) and alias expansion by go-yaml's
// aliasing ratio, so bad input is an error, never a crash or a hang. Strict mode also reports
// duplicate keys as go-yaml's UnmarshalStrict does ("line 5: key \"x\" already set in map").
//
// JsonToYaml writes a value the way kube answers Accept: application/yaml (sigs.k8s.io/yaml
// JSONToYAML): block style, 2-space indent, sequences not indented under their key, keys in
// go-yaml's natural order, strings quoted only when YAML would read them as something else (so
// timestamps, "true", "123" and "" are double-quoted), multi-line strings as literal blocks, long
// lines folded at 80 columns. Pure functions; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

struct YamlParseOptions {
  size_t max_bytes = 0;   // 0: no limit; past it a 413 like the JSON path
  int max_depth = 10000;  // go-yaml v2's nesting limit
  bool strict = false;    // collect duplicate-key errors
};

struct YamlParseResult {
  boost::json::value value;  // null for an empty document
  // Strict mode: go-yaml's "line N: key \"k\" already set in map" texts, in document order.
  std::vector<std::string> strict_errors;
};

// A 400 BadRequest with go-yaml's or encoding/json's text on failure.
StatusOr<YamlParseResult> YamlToJson(std::string_view yaml, const YamlParseOptions& opts = {});

// go-yaml's UnmarshalStrict summary of strict_errors: "yaml: unmarshal errors:\n  line 5: ...".
std::string YamlStrictErrorMessage(const std::vector<std::string>& strict_errors);

// kube's YAMLReader: splits a stream at lines starting with "---" (only spaces or a comment may
// follow on that line, else "invalid Yaml document separator: <rest>"). Empty documents are dropped.
StatusOr<std::vector<std::string>> SplitYamlDocuments(std::string_view stream);

// kube's YAML response body for v (ends with a newline).
std::string JsonToYaml(const boost::json::value& v);

}  // namespace capstan::apimachinery
