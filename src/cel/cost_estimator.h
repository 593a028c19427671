// cel/cost_estimator.h: the static (worst-case) cost of an expression, as cel-go's checker
// estimates it with kube's size information: every identifier and field selection costs 1, list
// and map literals 10 and 30, string functions a tenth of a unit per byte (regexes a quarter per
// pattern byte, multiplied by the text), `in` one per list element, and a macro its range's largest
// size times the cost of one iteration. Sizes come from the declared types (cel/schema_types.h:
// maxLength, maxItems, maxProperties, or what fits in a 3 MiB request).
//
// Kube compares these against 10,000,000 per expression and 100,000,000 per CRD after multiplying
// by how many times the rule's schema node can occur. This estimate follows cel-go's model for the
// functions CRD rules use; for the others it assumes unit cost and results no larger than their
// inputs, erring towards accepting what kube accepts.
//
// Pure function; thread-safe.
#pragma once

#include <cstdint>

#include "cel/ast.h"

namespace capstan::cel {

class Env;

// Saturates at UINT64_MAX.
uint64_t EstimateMaxCost(const Expr& e, const Env& env);

}  // namespace capstan::cel
