// cel/checker.h: the type checker: resolves identifiers and functions against an environment and
// infers each expression's static type from the declared variable types (kube types `self` from the
// structural schema), reporting cel-go's errors:
//   undeclared reference to 'x' (in container '')
//   undefined field 'x'
//   found no matching overload for '_+_' applied to '(int, string)'
//   expected type 'int' but found 'string'          (homogeneous aggregate literals)
// Where a type is not known (dyn, int-or-string, preserve-unknown-fields), checking defers to the
// runtime, as cel-go's does. Stateless; thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "cel/ast.h"
#include "cel/parser.h"
#include "cel/types.h"

namespace capstan::cel {

class Env;

// The result type of `e`; issues are appended (with locations into `source`).
TypePtr Check(const Expr& e, const Env& env, std::string_view source, std::vector<Issue>& issues);

}  // namespace capstan::cel
