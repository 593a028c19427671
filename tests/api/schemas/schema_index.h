#pragma once

// SchemaIndex: the built-in schema files parsed and indexed for tests: definitions by name,
// kinds by group/version/kind (from x-kubernetes-group-version-kind), and $ref resolution.
// Immutable after Load(); safe to share between threads for reading.

#include <boost/json.hpp>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace capstan::api::testing {

inline constexpr std::string_view kRefPrefix = "#/definitions/";

class SchemaIndex {
 public:
  // Parses every file of BuiltinSchemaFiles(). Parse errors and duplicate definition names are
  // appended to *errors (the index then holds what could be read).
  static std::unique_ptr<SchemaIndex> Load(std::vector<std::string>* errors);

  // The definition with this name, or nullptr.
  const boost::json::object* Find(std::string_view name) const;

  // Follows "$ref" (repeatedly) from a schema; nullptr when a reference does not resolve.
  const boost::json::object* Resolve(const boost::json::object& schema) const;

  // The definition name of a "$ref" value ("#/definitions/X" -> "X"); empty if malformed.
  static std::string RefName(std::string_view ref);

  // The definition that declares this kind, or "" when none does.
  std::string DefinitionForKind(const std::string& group, const std::string& version,
                                const std::string& kind) const;

  // Group/versions that have at least one kind.
  std::set<std::pair<std::string, std::string>> GroupVersions() const;

  const std::map<std::string, const boost::json::object*>& definitions() const { return defs_; }

  // Which file a definition came from.
  const std::string& FileOf(const std::string& name) const { return file_of_.at(name); }

 private:
  std::vector<boost::json::value> docs_;
  std::map<std::string, const boost::json::object*> defs_;
  std::map<std::string, std::string> file_of_;
  std::map<std::tuple<std::string, std::string, std::string>, std::string> kinds_;
};

}  // namespace capstan::api::testing
