#include "cmd/version.h"

#include "cmd/build_info.h"  // generated in the build tree

#ifndef CAPSTAN_VERSION_STRING
#define CAPSTAN_VERSION_STRING "0.1.0"
#endif

namespace capstan::cmd {
std::string CapstanVersion() { return CAPSTAN_VERSION_STRING; }
std::string GitVersion() {
  return "v" + std::to_string(kKubeMajor) + "." + std::to_string(kKubeMinor) + ".0+capstan-" + CapstanVersion();
}
std::string GitCommit() { return CAPSTAN_GIT_COMMIT; }
std::string GitTreeState() { return CAPSTAN_GIT_TREE_STATE; }
std::string BuildDate() { return CAPSTAN_BUILD_DATE; }
}  // namespace capstan::cmd
