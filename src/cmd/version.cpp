#include "cmd/version.h"

#ifndef CAPSTAN_VERSION_STRING
#define CAPSTAN_VERSION_STRING "0.1.0"
#endif

namespace capstan::cmd {
std::string CapstanVersion() { return CAPSTAN_VERSION_STRING; }
std::string GitVersion() {
  return "v" + std::to_string(kKubeMajor) + "." + std::to_string(kKubeMinor) + ".0+capstan-" + CapstanVersion();
}
}  // namespace capstan::cmd
