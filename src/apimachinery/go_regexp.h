// apimachinery/go_regexp.h: Go's regexp compile error text for an RE2 that failed to compile, as
// kube reports bad patterns (schema `pattern`, CEL's matches()):
//   error parsing regexp: missing closing ): `(a`
// Pure function; thread-safe.
#pragma once

#include <string>

namespace re2 {
class RE2;
}

namespace capstan::apimachinery {

std::string GoRegexpCompileError(const re2::RE2& re);

}  // namespace capstan::apimachinery
