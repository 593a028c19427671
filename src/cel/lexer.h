// cel/lexer.h: CEL's lexical grammar (langdef.md "Syntax"): identifiers, int/uint/double literals
// (decimal and hex), string and bytes literals in all quote styles with raw prefixes and escapes,
// operators, `//` comments. A character no token starts with is reported as ANTLR's
// "token recognition error at: 'c'" and skipped, as cel-go's lexer does.
//
// Stateless functions over the source text; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace capstan::cel {

enum class Tok : uint8_t {
  kEof, kIdent, kInt, kUint, kDouble, kString, kBytes, kTrue, kFalse, kNull,
  kLParen, kRParen, kLBracket, kRBracket, kLBrace, kRBrace, kDot, kComma, kColon, kQuestion,
  kOr, kAnd, kNot, kEq, kNe, kLt, kLe, kGt, kGe, kPlus, kMinus, kStar, kSlash, kPercent, kIn,
  kError,  // a literal that does not unescape: text holds the message
};

struct Token {
  Tok kind = Tok::kEof;
  int32_t offset = 0;  // byte offset of the first character
  std::string text;    // as written (the unescaped value for strings and bytes)
  std::string value;   // kString/kBytes: the unescaped contents
};

struct LexIssue {
  int32_t offset;
  std::string message;  // without the "Syntax error: " prefix
};

std::vector<Token> Lex(std::string_view src, std::vector<LexIssue>& issues);

// The token as ANTLR names it in "expecting ..." lists and "mismatched input '...'".
std::string TokenDisplay(const Token& t);

}  // namespace capstan::cel
