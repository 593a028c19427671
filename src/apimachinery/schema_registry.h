// apimachinery/schema_registry.h: named schema definitions from one or more definitions files, and
// the parser that turns schema JSON into Schema nodes (schema.h).
//
// A definitions file is {"definitions": {"io.k8s.api.core.v1.ConfigMap": {...}, ...}} (OpenAPI v2
// style) or {"components": {"schemas": {...}}} (v3 style); properties point at other definitions with
// {"$ref": "#/definitions/<name>"} (or "#/components/schemas/<name>"). A property written as
// {"allOf": [{"$ref": ...}], "default": ...} (how kube's v3 documents attach a default to a reference)
// is read as a $ref with that default.
//
// Life cycle: Add*() every file, then Resolve() once, which links each $ref to its definition's node
// (a pointer, so recursive types are fine) and fails on unknown names or bare $ref cycles. After
// Resolve() the registry is immutable: share it as std::shared_ptr<const SchemaRegistry> and read it
// from any thread. Add*() and Resolve() are not thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "apimachinery/schema.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery {

class SchemaRegistry {
 public:
  SchemaRegistry();
  ~SchemaRegistry();
  SchemaRegistry(const SchemaRegistry&) = delete;
  SchemaRegistry& operator=(const SchemaRegistry&) = delete;

  // Adds every definition of a definitions document (parsed JSON or its text).
  Status AddDocument(const boost::json::value& doc);
  Status AddDocumentJson(std::string_view json_text);
  // Adds one named definition. A name may be defined once.
  Status Add(const std::string& name, const boost::json::value& schema_json);

  // Links every $ref (within this registry, then in `fallback` when given: definitions loaded
  // earlier into another resolved registry). Call once, after the last Add.
  Status Resolve(std::shared_ptr<const SchemaRegistry> fallback = nullptr);

  // The root node of a definition, or nullptr.
  const Schema* Find(std::string_view name) const;
  size_t size() const { return definitions_.size(); }
  bool resolved() const { return resolved_; }
  const std::map<std::string, const Schema*, std::less<>>& definitions() const { return definitions_; }

  // Parses a schema into this registry's arena without naming it; the node is linked by Resolve().
  StatusOr<const Schema*> ParseAnonymous(const boost::json::value& schema_json);

  // The documentation of a package's definitions (its "description"s and enums, which only the
  // published OpenAPI documents need), kept as the unparsed text: `package` is the definition-name
  // prefix before the last '.' ("io.k8s.api.core.v1"), `json_text` static text that outlives the
  // registry. Like Add*(), before Resolve().
  void AddDescriptions(std::string package, std::string_view json_text);
  // The documentation text of the package that defines `definition`, or "" when none was added.
  std::string_view DescriptionsFor(std::string_view definition) const;

 private:
  friend class SchemaParser;
  std::deque<Schema> nodes_;  // stable addresses: children point into it
  std::map<std::string, const Schema*, std::less<>> definitions_;
  std::map<std::string, std::string_view, std::less<>> descriptions_;  // by package
  std::shared_ptr<const SchemaRegistry> fallback_;
  bool resolved_ = false;
};

// Parses one standalone schema (a CRD version's openAPIV3Schema). $refs, if any, resolve against
// `definitions` (already resolved), which the returned pointer keeps alive. The returned root and
// every node under it are immutable and safe to share across threads.
StatusOr<std::shared_ptr<const Schema>> ParseSchema(
    const boost::json::value& schema_json, std::shared_ptr<const SchemaRegistry> definitions = nullptr);
StatusOr<std::shared_ptr<const Schema>> ParseSchemaJson(
    std::string_view json_text, std::shared_ptr<const SchemaRegistry> definitions = nullptr);

}  // namespace capstan::apimachinery
