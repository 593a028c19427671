#include "util/check.h"

#include <cstdio>
#include <cstdlib>

namespace capstan {
void CheckFailed(const char* cond, const char* file, int line) {
  std::fprintf(stderr, "CHECK failed: %s at %s:%d\n", cond, file, line);
  std::abort();
}
}  // namespace capstan
