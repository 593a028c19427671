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
// The build's identity, as kube's version package carries it (stamped by cmake/build_info.cmake).
std::string GitCommit();     // the commit built; "" outside a git checkout
std::string GitTreeState();  // "clean", "dirty", or "" outside a git checkout
std::string BuildDate();     // RFC 3339 UTC, e.g. "2026-12-01T19:38:57Z"

}  // namespace capstan::cmd
