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
// /metrics (and /metrics/slis from the SLI registry). With `with_reset` (kube does it under
// --profiling), DELETE zeroes every sample and answers "metrics reset".
void InstallMetrics(Router& router, const std::string& path, MetricsRegistry& registry, bool with_reset);
// kubernetes_build_info{major,minor,git_version,...} 1.
void AddBuildInfo(MetricsRegistry& registry, const VersionInfo& v);
// /debug/flags (the index page) and /debug/flags/v: PUT a new -v verbosity at runtime, kube's texts.
void InstallDebugFlags(Router& router);
// "/" answers the list of paths, as kube's index handler does.
void InstallRootPaths(Router& router);

// process_* metrics (resident memory, start time, CPU, open fds) computed at scrape time.
void AddProcessMetrics(MetricsRegistry& registry);
// process_start_time_seconds alone (the SLI registry carries it, as kube's does).
void AddProcessStartTime(MetricsRegistry& registry);

}  // namespace capstan::server
