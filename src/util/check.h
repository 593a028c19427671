// util/check.h: CAPSTAN_CHECK aborts with a message when an invariant is broken. Never for bad input.
#pragma once

namespace capstan {
[[noreturn]] void CheckFailed(const char* cond, const char* file, int line);
}  // namespace capstan

#define CAPSTAN_CHECK(cond)                                         \
  do {                                                              \
    if (!(cond)) ::capstan::CheckFailed(#cond, __FILE__, __LINE__); \
  } while (0)
