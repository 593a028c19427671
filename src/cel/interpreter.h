// cel/interpreter.h: evaluates a checked AST against an activation (the variables' values) with
// CEL's semantics: strict functions propagate the first error argument, `&&` / `||` absorb errors
// when the other side decides the result, the ternary evaluates one branch, macros iterate with
// the same absorption as their cel-go expansions, and every step is charged to the context's cost
// so an expression stops with "operation cancelled: actual cost limit exceeded" at the limit.
//
// Evaluation only reads the AST and the registry; any number of threads may evaluate one program.
#pragma once

#include <string_view>

#include "cel/ast.h"
#include "cel/functions.h"
#include "cel/value.h"

namespace capstan::cel {

// Resolves top-level variables (self, oldSelf, ...). Null when the name is not bound.
class Activation {
 public:
  virtual ~Activation() = default;
  virtual const Value* Resolve(std::string_view name) const = 0;
};

Value Evaluate(const Expr& e, const Activation& act, const FunctionRegistry& fns, EvalContext& ctx);

}  // namespace capstan::cel
