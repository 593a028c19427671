// cel/parser.h: CEL source text to an AST (google/cel-spec langdef.md), with cel-go's limits and
// error texts:
//   ERROR: <input>:1:5: Syntax error: mismatched input 'x' expecting <EOF>
//    | a + + x
//    | ....^
// Errors carry a 1-based line and column. The parser is a recursive-descent implementation of the
// grammar (cel-go uses ANTLR); the common ANTLR messages (token recognition error, mismatched input,
// extraneous input, missing token) are reproduced for the cases users meet.
//
// Stateless; thread-safe.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cel/ast.h"

namespace capstan::cel {

struct ParseOptions {
  int max_recursion_depth = 250;            // cel-go's default
  int expression_size_code_point_limit = 100000;
  bool enable_optional_syntax = true;       // kube enables optional types (1.28+)
};

struct Issue {
  int line = -1;    // 1-based; -1 when the issue has no location
  int column = 0;   // 0-based
  std::string message;
};

// cel-go's "ERROR: <input>:L:C: msg" rendering with the source snippet and caret, issues joined by
// newlines.
std::string FormatIssues(std::string_view source, const std::vector<Issue>& issues);

struct ParseResult {
  std::unique_ptr<Expr> expr;  // null when issues is not empty
  std::vector<Issue> issues;
};

ParseResult Parse(std::string_view source, const ParseOptions& opts = {});

// Line (1-based) and column (0-based, in code points) of a byte offset.
void OffsetToLocation(std::string_view source, int32_t offset, int* line, int* column);

}  // namespace capstan::cel
