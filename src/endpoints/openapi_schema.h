// endpoints/openapi_schema.h: schema definitions as kube-apiserver publishes them in its OpenAPI
// documents (/openapi/v2 "definitions", /openapi/v3 "components.schemas").
//
// The definitions come from the schema registry (the built-in kinds, api/schemas) and from schemas
// registered beside it (a custom resource's kind, when CRDs are served). A published definition is
// the structural schema written back in kube's shape:
// - v2: no "default" anywhere (kube prunes defaults from its v2 document); "$ref" keeps its sibling
//   keys (description, extensions) in place.
// - v3: a "$ref" with siblings is wrapped as {"allOf": [{"$ref": ...}], <siblings>}; array items and
//   map values of built-in kinds carry Go's zero value as "default" ("" / 0 / false, {} for structs),
//   as kube's generated definitions do.
// - Capstan's protobuf description (x-proto, x-proto-message, x-proto-embedded) is left out.
// - Types that write their own JSON get kube's published shapes: IntOrString (string/int-or-string;
//   v3 oneOf integer|string), Quantity (string; v3 oneOf string|number), RawExtension and FieldsV1
//   ({"type": "object"}), apiextensions JSON and JSONSchemaPropsOr* (no type) — without the
//   preserve-unknown-fields marker the registry needs for pruning.
// - Slices that only protobuf wraps in a message (meta/v1 Verbs, ExtraValue, ...) are inlined as the
//   array they are, as kube publishes them.
// Properties are written in sorted order (Go's map order), so the output is deterministic.
//
// Built-in definitions also carry kube's documentation: the "description"s of the definition and
// its properties, and the enums of +enum string types (with their "Possible enum values:"
// paragraph), from the registry's documentation files (SchemaRegistry::AddDescriptions). They are
// parsed when a document is built, per package, and dropped with the OpenApiDefinitions. With the
// OpenAPIEnums feature gate off, enums and that paragraph are left out, as kube prunes them.
//
// Thread-safety: an OpenApiDefinitions is used by one thread at a time (it parses the
// documentation it is asked for on first use); the functions are otherwise pure.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/schema.h"
#include "apimachinery/schema_registry.h"

namespace capstan::endpoints {

enum class OpenApiVersion { kV2, kV3 };

// The prefix of a definition reference: "#/definitions/" (v2) or "#/components/schemas/" (v3).
std::string_view DefinitionRefPrefix(OpenApiVersion v);
// {"$ref": "<prefix><name>"}.
boost::json::object DefinitionRef(std::string_view name, OpenApiVersion v);

// Where published definitions are found: schemas added here (custom resources), then the built-in
// registry.
class OpenApiDefinitions {
 public:
  explicit OpenApiDefinitions(const apimachinery::SchemaRegistry* builtin) : builtin_(builtin) {}
  // A definition that is not in the built-in registry (a custom resource's kind). A name added
  // here shadows a built-in one.
  void Add(std::string name, const apimachinery::Schema* root) { extra_[std::move(name)] = root; }

  const apimachinery::Schema* Find(std::string_view name) const;
  // True when `name` is served from the built-in registry (generated kube types).
  bool IsBuiltin(std::string_view name) const;
  // The documentation of a built-in definition ({"description", "properties": {...}}), or nullptr.
  const boost::json::object* Documentation(std::string_view name) const;

 private:
  const apimachinery::SchemaRegistry* builtin_;
  std::map<std::string, const apimachinery::Schema*, std::less<>> extra_;
  mutable std::map<const char*, boost::json::value> documentation_;  // by file text: its "descriptions"
};

struct DefinitionSet {
  std::map<std::string, boost::json::value> definitions;  // name -> published schema, sorted
  std::vector<std::string> missing;                       // referenced names no source defines
};

// The definitions `roots` refer to, transitively, in the published form for `v`. A name that no
// source defines is listed in `missing` (and left out).
DefinitionSet BuildDefinitions(const OpenApiDefinitions& defs, const std::vector<std::string>& roots,
                               OpenApiVersion v);

// One definition's published schema; the names it references are appended to `refs`.
boost::json::value PublishedDefinition(const OpenApiDefinitions& defs, std::string_view name,
                                       const apimachinery::Schema& root, OpenApiVersion v,
                                       std::vector<std::string>* refs);

// The definition name a "$ref" points at ("#/definitions/<name>", "#/components/schemas/<name>"),
// or "" for another form.
std::string_view RefDefinitionName(std::string_view ref);

}  // namespace capstan::endpoints
