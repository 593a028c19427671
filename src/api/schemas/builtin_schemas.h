#pragma once

// The built-in API schemas: the files of src/api/schemas/*.json, compiled into the binary. Each
// file holds the structural schemas of one Kubernetes API package as
// {"definitions": {"<OpenAPI definition name>": schema, ...}}, with the definition names
// kube-apiserver publishes (io.k8s.api.core.v1.ConfigMap, ...), the x-kubernetes-* extensions,
// x-kubernetes-group-version-kind on kinds, and Capstan's protobuf description (x-proto,
// x-proto-message, x-proto-embedded). docs/schema-format.md is the reference for the format;
// tools/schemagen/schemagen.py writes the files.
//
// The data is immutable static storage: every function here is safe to call from any thread, and
// the returned views stay valid for the life of the process.

#include <span>
#include <string_view>

namespace capstan::api {

struct BuiltinSchemaFile {
  std::string_view name;  // file name, e.g. "core.v1.json"
  std::string_view text;  // the JSON document
};

// Every schema file, sorted by name.
std::span<const BuiltinSchemaFile> BuiltinSchemaFiles();

// The documentation of the definitions (src/api/schemas/descriptions/*.json), one file per
// package, named by the package's definition-name prefix ("io.k8s.api.core.v1.json"), sorted by
// name. Each is {"descriptions": {"<definition>": {"description": ..., "properties": {"<name>":
// {"description": ..., "enum": [...], "items": {"enum": [...]}}}}}}: what kube's OpenAPI
// generator takes from the Go doc comments and +enum types. Only the published OpenAPI documents
// read them (endpoints/openapi_schema.h).
std::span<const BuiltinSchemaFile> BuiltinDescriptionFiles();

// The file with this name, or nullptr.
const BuiltinSchemaFile* FindBuiltinSchemaFile(std::string_view name);

}  // namespace capstan::api
