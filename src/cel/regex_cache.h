// cel/regex_cache.h: compiled RE2 programs for matches(), find() and findAll(), shared by every
// evaluation. Patterns are Go regexp (RE2) syntax; a bad pattern gives Go's compile error text.
// Thread-safe (a mutex around a bounded map; compiled programs are immutable).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace capstan::cel {

struct CompiledRegex {
  std::shared_ptr<const re2::RE2> re;  // null on error
  std::string error;
  bool ok() const { return re != nullptr; }
};

CompiledRegex CompileRegex(std::string_view pattern);

}  // namespace capstan::cel
