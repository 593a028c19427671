// apimachinery/managedfields/path_element.h: one step of a field path in server-side apply's field
// sets: a struct or map field ("f:name"), a keyed list item ("k:{\"name\":\"c\"}"), a set-list value
// ("v:\"x\"") or a positional list item ("i:3"), with the total order, the fieldsV1 key form and the
// printed form (".name", "[name=\"c\"]", "[=\"x\"]", "[3]") kube uses in managedFields and conflict
// messages. Values; thread-compatible.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::apimachinery::managedfields {

struct PathElement {
  enum class Kind { kField, kKey, kValue, kIndex };  // the order kube sorts them in
  Kind kind = Kind::kField;
  std::string name;                                            // kField
  std::vector<std::pair<std::string, boost::json::value>> key;  // kKey, sorted by name
  boost::json::value value;                                    // kValue
  int64_t index = 0;                                           // kIndex

  static PathElement Field(std::string name);
  static PathElement Key(std::vector<std::pair<std::string, boost::json::value>> fields);
  static PathElement Value(boost::json::value v);
  static PathElement Index(int64_t i);

  int Compare(const PathElement& o) const;
  bool operator<(const PathElement& o) const { return Compare(o) < 0; }
  bool operator==(const PathElement& o) const { return Compare(o) == 0; }

  // The fieldsV1 key: "f:name", "k:{...}", "v:...", "i:N".
  std::string Serialize() const;
  // The printed form used in conflict messages: ".name", "[k=v,...]", "[=v]", "[N]".
  std::string ToString() const;
};

using Path = std::vector<PathElement>;
std::string PathToString(const Path& p);

// Parses a fieldsV1 key; 400-style error text on malformed input.
StatusOr<PathElement> ParsePathElement(std::string_view s);

// A total order on JSON values (type first, then value), used for keys and set values.
int CompareJson(const boost::json::value& a, const boost::json::value& b);

}  // namespace capstan::apimachinery::managedfields
