#pragma once

// CheckJsonAgainstSchema: walks a JSON object with a definition of the built-in schemas and lists
// every place where the two disagree: a field the schema does not know (a structural-schema pruner
// would drop it), or a value whose JSON type differs from the schema's type. null is accepted
// anywhere (Go writes null for nil slices, maps and zero times). Stateless; thread-safe.

#include <boost/json.hpp>

#include <string>
#include <vector>

#include "api/schemas/schema_index.h"

namespace capstan::api::testing {

// Returns one message per disagreement, each starting with the field path (".spec.containers[0]").
std::vector<std::string> CheckJsonAgainstSchema(const SchemaIndex& index, const std::string& definition,
                                                const boost::json::value& value);

}  // namespace capstan::api::testing
