// cmd/version.h: the version Capstan reports (/version, --version).
#pragma once

#include <string>

namespace capstan::cmd {

// The Kubernetes API level Capstan implements.
inline constexpr int kKubeMajor = 1;
inline constexpr int kKubeMinor = 32;
// e.g. "v1.32.0+capstan-0.1.0"
std::string GitVersion();
std::string CapstanVersion();

}  // namespace capstan::cmd
