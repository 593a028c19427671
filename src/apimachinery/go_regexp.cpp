#include "apimachinery/go_regexp.h"

#include <re2/re2.h>

namespace capstan::apimachinery {

namespace {

// Go's regexp/syntax names for RE2's error codes.
std::string GoRegexpErrorCode(RE2::ErrorCode code) {
    switch (code) {
      case RE2::ErrorBadEscape: return "invalid escape sequence";
      case RE2::ErrorBadCharClass: return "invalid character class";
      case RE2::ErrorBadCharRange: return "invalid character class range";
      case RE2::ErrorMissingBracket: return "missing closing ]";
      case RE2::ErrorMissingParen: return "missing closing )";
      case RE2::ErrorTrailingBackslash: return "trailing backslash at end of expression";
      case RE2::ErrorRepeatArgument: return "missing argument to repetition operator";
      case RE2::ErrorRepeatSize: return "invalid repeat count";
      case RE2::ErrorRepeatOp: return "invalid nested repetition operator";
      case RE2::ErrorBadPerlOp: return "invalid or unsupported Perl syntax";
      case RE2::ErrorBadUTF8: return "invalid UTF-8";
      case RE2::ErrorBadNamedCapture: return "invalid named capture";
      case RE2::ErrorPatternTooLarge: return "expression too large";
      case RE2::ErrorUnexpectedParen: return "unexpected )";
      default: return "regexp/syntax: internal error";
    }
  }

}  // namespace

std::string GoRegexpCompileError(const re2::RE2& re) {
  return "error parsing regexp: " + GoRegexpErrorCode(re.error_code()) + ": `" + re.error_arg() + "`";
}

}  // namespace capstan::apimachinery
