// server/nonresource.h: the non-resource endpoints every kube-apiserver serves: /version, /metrics and
// the root path listing. Installed into the Router at start.
#pragma once

#include <string>

#include "server/router.h"
#include "util/metrics.h"

namespace capstan::server {

// kube's version.Info. The git fields come from the build; kube's defaults stand where it has none.
struct VersionInfo {
  std::string major;
  std::string minor;
  std::string git_version;
  std::string git_commit;
  std::string git_tree_state;
  std::string build_date = "1970-01-01T00:00:00Z";
  std::string compiler_version;  // goVersion: Capstan is not written in Go, so its compiler, "clang 14.0.6"
  std::string platform;
};

// The version of this binary: the given version and the compiler and platform it was built with.
VersionInfo CurrentVersionInfo(int major, int minor, const std::string& git_version);
std::string VersionJson(const VersionInfo& v);

void InstallVersion(Router& router, VersionInfo v);
void InstallMetrics(Router& router, MetricsRegistry& registry);
// "/" answers the list of paths, as kube's index handler does.
void InstallRootPaths(Router& router);

// process_* metrics (resident memory, start time, CPU, open fds) computed at scrape time.
void AddProcessMetrics(MetricsRegistry& registry);

}  // namespace capstan::server
