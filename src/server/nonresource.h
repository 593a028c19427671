// server/nonresource.h: the non-resource endpoints every kube-apiserver serves: /version, /metrics and
// the root path listing. Installed into the Router at start.
#pragma once

#include <string>

#include "server/router.h"
#include "util/metrics.h"

namespace capstan::server {

struct VersionInfo {
  std::string major;
  std::string minor;
  std::string git_version;
  std::string git_commit;
  std::string build_date;
  std::string compiler_version;
  std::string platform;
};

VersionInfo CurrentVersionInfo(int major, int minor, const std::string& git_version);
std::string VersionJson(const VersionInfo& v);

void InstallVersion(Router& router, VersionInfo v);
void InstallMetrics(Router& router, MetricsRegistry& registry);
// "/" answers the list of paths, as kube's index handler does.
void InstallRootPaths(Router& router);

// process_* metrics (resident memory, start time, CPU, open fds) computed at scrape time.
void AddProcessMetrics(MetricsRegistry& registry);

}  // namespace capstan::server
