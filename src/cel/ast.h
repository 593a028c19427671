// cel/ast.h: the parsed form of a CEL expression (cel-go's ast.Expr after macro expansion).
//
// The parser builds the tree once; programs evaluate it any number of times from any thread.
// Macros (has, all, exists, exists_one, map, filter, optMap, optFlatMap) are their own node kind
// rather than the general comprehension, since CEL's grammar offers no other way to write one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cel/value.h"

namespace capstan::cel {

enum class ExprKind : uint8_t { kConst, kIdent, kSelect, kCall, kList, kMap, kStruct, kMacro };

enum class MacroKind : uint8_t { kAll, kExists, kExistsOne, kMap, kMapFilter, kFilter, kOptMap, kOptFlatMap };

struct Expr {
  ExprKind kind = ExprKind::kConst;
  int32_t offset = 0;  // byte offset of the node in the source, for error locations
  Value value;         // kConst
  // kIdent: the name; kSelect: the field; kCall: the function (global, or a method when `target`
  // is set); kStruct: the message name; kMacro: the iteration variable.
  std::string name;
  std::unique_ptr<Expr> target;  // kSelect operand, kCall receiver, kMacro range
  bool test_only = false;        // kSelect inside has()
  bool optional = false;         // kSelect written `.?field`
  // kCall arguments; kList elements; kMap keys and values interleaved; kStruct field values;
  // kMacro: [predicate or transform] or [filter, transform].
  std::vector<std::unique_ptr<Expr>> args;
  std::vector<bool> optional_entries;  // kList / kMap / kStruct: the element or entry is `?`-marked
  std::vector<std::string> field_names;  // kStruct
  MacroKind macro = MacroKind::kAll;
  // Set on kIdent/kSelect/index calls whose operand chain starts at a variable: cel-go reports
  // missing keys and indexes of such attributes as "no such key" / "index out of bounds".
  bool attribute = false;
};

}  // namespace capstan::cel
