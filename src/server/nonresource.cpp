#include "server/nonresource.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <fstream>

#include "server/http/responses.h"

namespace capstan::server {

VersionInfo CurrentVersionInfo(int major, int minor, const std::string& git_version) {
  VersionInfo v;
  v.major = std::to_string(major);
  v.minor = std::to_string(minor);
  v.git_version = git_version;
#if defined(__clang__)
  v.compiler_version = "clang " + std::to_string(__clang_major__) + "." + std::to_string(__clang_minor__) + "." +
                       std::to_string(__clang_patchlevel__);
#elif defined(__GNUC__)
  v.compiler_version = "gcc " + std::to_string(__GNUC__) + "." + std::to_string(__GNUC_MINOR__) + "." +
                       std::to_string(__GNUC_PATCHLEVEL__);
#else
  v.compiler_version = "unknown";
#endif
#if defined(__x86_64__)
  v.platform = "linux/amd64";
#elif defined(__aarch64__)
  v.platform = "linux/arm64";
#else
  v.platform = "linux/unknown";
#endif
  return v;
}

std::string VersionJson(const VersionInfo& v) {
  boost::json::object o;
  o["major"] = v.major;
  o["minor"] = v.minor;
  o["gitVersion"] = v.git_version;
  o["gitCommit"] = v.git_commit;
  o["gitTreeState"] = v.git_tree_state;
  o["buildDate"] = v.build_date;
  o["goVersion"] = v.compiler_version;
  o["compiler"] = "clang";
  o["platform"] = v.platform;
  return boost::json::serialize(o);
}

void InstallVersion(Router& router, VersionInfo v) {
  std::string body = VersionJson(v);
  router.Handle("/version", [body](http::RequestContext& ctx) -> Task<void> { co_await http::RespondJson(ctx, body); });
}

void InstallMetrics(Router& router, MetricsRegistry& registry) {
  router.Handle("/metrics", [&registry](http::RequestContext& ctx) -> Task<void> {
    http::HttpResponse resp;
    resp.headers.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    resp.body = registry.Expose();
    co_await ctx.writer->Respond(std::move(resp));
  });
}

void InstallRootPaths(Router& router) {
  router.Handle("/", [&router](http::RequestContext& ctx) -> Task<void> {
    boost::json::object o;
    boost::json::array paths;
    for (const auto& p : router.Paths()) {
      if (p != "/") paths.push_back(boost::json::value(p));
    }
    o["paths"] = std::move(paths);
    co_await http::RespondJson(ctx, boost::json::serialize(o));
  });
}

void AddProcessMetrics(MetricsRegistry& registry) {
  auto start = std::chrono::system_clock::now();
  double start_secs = std::chrono::duration<double>(start.time_since_epoch()).count();
  registry.AddCollector([start_secs](std::string& out) {
    long page = sysconf(_SC_PAGESIZE);
    long vm_pages = 0, rss_pages = 0;
    {
      std::ifstream statm("/proc/self/statm");
      statm >> vm_pages >> rss_pages;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    int fds = 0;
    if (DIR* d = opendir("/proc/self/fd")) {
      while (readdir(d)) ++fds;
      closedir(d);
      fds -= 3;  // ".", ".." and the directory itself
    }
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    auto line = [&out](const char* name, const char* type, const char* help, double v) {
      out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " +
             FormatMetricValue(v) + "\n";
    };
    line("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", cpu);
    line("process_max_fds", "gauge", "Maximum number of open file descriptors.", static_cast<double>(rl.rlim_cur));
    line("process_open_fds", "gauge", "Number of open file descriptors.", fds);
    line("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
         static_cast<double>(rss_pages) * static_cast<double>(page));
    line("process_start_time_seconds", "gauge", "Start time of the process since unix epoch in seconds.", start_secs);
    line("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.",
         static_cast<double>(vm_pages) * static_cast<double>(page));
  });
}

}  // namespace capstan::server
