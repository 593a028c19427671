#include "server/nonresource.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <fstream>

#include "server/http/responses.h"
#include "util/log.h"
#include "util/strings.h"

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
  // kube's route is "/version/" under the "/version" web service: both paths answer (the Python
  // client asks for "/version/").
  for (const char* path : {"/version", "/version/"}) {
    router.Handle(path, [body](http::RequestContext& ctx) -> Task<void> { co_await http::RespondJson(ctx, body); });
  }
}

void InstallMetrics(Router& router, const std::string& path, MetricsRegistry& registry, bool with_reset) {
  router.Handle(path, [&registry, with_reset](http::RequestContext& ctx) -> Task<void> {
    http::HttpResponse resp;
    if (with_reset && ctx.request.method == "DELETE") {
      registry.Reset();
      resp.headers.Set("Content-Type", "text/plain; charset=utf-8");
      resp.body = "metrics reset\n";
      co_await ctx.writer->Respond(std::move(resp));
      co_return;
    }
    resp.headers.Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    resp.body = registry.Expose();
    co_await ctx.writer->Respond(std::move(resp));
  });
}

void AddBuildInfo(MetricsRegistry& registry, const VersionInfo& v) {
  registry
      .NewGaugeVec("kubernetes_build_info",
                   "A metric with a constant '1' value labeled by major, minor, git version, git commit, git tree "
                   "state, build date, Go version, and compiler from which Kubernetes was built, and platform on "
                   "which it is running.",
                   {"major", "minor", "git_version", "git_commit", "git_tree_state", "build_date", "go_version",
                    "compiler", "platform"})
      .With({v.major, v.minor, v.git_version, v.git_commit, v.git_tree_state, v.build_date, v.compiler_version, "clang",
             v.platform})
      ->Set(1);
}

namespace {
// routes.writePlainText: the text and a newline, as text/plain with nosniff.
Task<void> PlainText(http::RequestContext& ctx, int status, const std::string& text) {
  http::HttpResponse resp;
  resp.status = status;
  resp.headers.Set("Content-Type", "text/plain");
  resp.headers.Set("X-Content-Type-Options", "nosniff");
  resp.body = text + "\n";
  co_await ctx.writer->Respond(std::move(resp));
}
}  // namespace

void InstallDebugFlags(Router& router) {
  auto index = [](http::RequestContext& ctx) -> Task<void> {
    http::HttpResponse resp;
    resp.headers.Set("Content-Type", "text/html; charset=utf-8");
    resp.body =
        "<html>\n<head>\n<title>/debug/flags/</title>\n</head>\n<body>\n/debug/flags/<br>\n<br>\nflags:<br>\n"
        "<table>\n\n<tr>v<br>\n\n</table>\n<br>\nfull flags configurable<br>\n</body>\n</html>\n";
    co_await ctx.writer->Respond(std::move(resp));
  };
  router.HandleUnlisted("/debug/flags", index);
  router.HandlePrefixUnlisted("/debug/flags", index);
  router.HandleUnlisted("/debug/flags/v", [](http::RequestContext& ctx) -> Task<void> {
    if (ctx.request.method != "PUT") {
      co_await PlainText(ctx, 406, "unsupported http method");
      co_return;
    }
    // component-base's GlogSetter: strconv.ParseUint(val, 10, 32).
    const std::string& val = ctx.request.body;
    bool digits = !val.empty() && std::all_of(val.begin(), val.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits) {
      co_await PlainText(ctx, 400, "strconv.ParseUint: parsing " + GoQuote(val) + ": invalid syntax");
      co_return;
    }
    if (val.size() > 10 || std::stoull(val) > 0xffffffffULL) {
      co_await PlainText(ctx, 400, "strconv.ParseUint: parsing " + GoQuote(val) + ": value out of range");
      co_return;
    }
    uint64_t v = std::stoull(val);
    SetLogVerbosity(static_cast<int>(std::min<uint64_t>(v, 1u << 30)));
    LogInfo("verbosity changed", {{"verbosity", static_cast<int64_t>(v)}});
    co_await PlainText(ctx, 200, "successfully set klog.logging.verbosity to " + val);
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

namespace {
double ProcessStartSeconds() {
  static const double start =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  return start;
}
void AppendGauge(std::string& out, const char* name, const char* type, const char* help, double v) {
  out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " " + type + "\n" + name + " " +
         FormatMetricValue(v) + "\n";
}
}  // namespace

void AddProcessStartTime(MetricsRegistry& registry) {
  double start_secs = ProcessStartSeconds();
  registry.AddCollector(
      [start_secs](std::string& out) {
        AppendGauge(out, "process_start_time_seconds", "gauge", "[ALPHA] Start time of the process since unix epoch in seconds.",
                    start_secs);
      },
      "process_start_time_seconds");
}

void AddProcessMetrics(MetricsRegistry& registry) {
  double start_secs = ProcessStartSeconds();
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
      AppendGauge(out, name, type, help, v);
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
