#include "server/pprof.h"

#include <dirent.h>
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "server/http/responses.h"
#include "util/log.h"
#include "util/timer.h"

namespace capstan::server {
namespace {

// gperftools' profiler.h entry points, resolved from libprofiler.so.0 at the first profile.
struct CpuProfiler {
  int (*start)(const char* fname) = nullptr;
  void (*stop)() = nullptr;
  bool loaded() const { return start && stop; }
};

const CpuProfiler& Profiler() {
  static const CpuProfiler p = [] {
    CpuProfiler out;
    void* lib = dlopen("libprofiler.so.0", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return out;
    out.start = reinterpret_cast<int (*)(const char*)>(dlsym(lib, "ProfilerStart"));
    out.stop = reinterpret_cast<void (*)()>(dlsym(lib, "ProfilerStop"));
    return out;
  }();
  return p;
}

std::atomic<bool> profiling{false};

// net/http/pprof's error answers: plain text with X-Go-Pprof and no caching.
Task<void> PprofError(http::RequestContext& ctx, int code, const std::string& text) {
  http::HttpResponse resp;
  resp.status = code;
  resp.headers.Set("Content-Type", "text/plain; charset=utf-8");
  resp.headers.Set("X-Content-Type-Options", "nosniff");
  resp.headers.Set("X-Go-Pprof", "1");
  resp.body = text + "\n";
  co_await ctx.writer->Respond(std::move(resp));
}

Task<void> CpuProfile(http::RequestContext& ctx) {
  int seconds = 30;
  if (auto s = ctx.request.query.Get("seconds"); s && !s->empty()) {
    char* end = nullptr;
    long v = std::strtol(s->c_str(), &end, 10);
    if (*end != '\0' || v <= 0) {
      co_await PprofError(ctx, 400, "bad seconds");
      co_return;
    }
    seconds = static_cast<int>(std::min<long>(v, 3600));
  }
  // As in kube, the request is not long-running: a profile longer than --request-timeout gets a 504.
  const CpuProfiler& p = Profiler();
  if (!p.loaded()) {
    co_await PprofError(ctx, 501,
                        "Could not enable CPU profiling: libprofiler.so.0 (Debian's libgoogle-perftools4) is not installed");
    co_return;
  }
  if (profiling.exchange(true)) {
    co_await PprofError(ctx, 500, "Could not enable CPU profiling: cpu profiling already in use");
    co_return;
  }
  std::string path = (std::filesystem::temp_directory_path() / ("capstan-cpu-" + std::to_string(getpid()) + ".prof")).string();
  if (!p.start(path.c_str())) {
    profiling = false;
    co_await PprofError(ctx, 500, "Could not enable CPU profiling: ProfilerStart failed");
    co_return;
  }
  LogInfo("CPU profile started", {{"seconds", seconds}});
  co_await SleepFor(std::chrono::seconds(seconds));
  p.stop();
  profiling = false;
  std::ifstream in(path, std::ios::binary);
  std::stringstream data;
  data << in.rdbuf();
  std::error_code ec;
  std::filesystem::remove(path, ec);
  http::HttpResponse resp;
  resp.headers.Set("Content-Type", "application/octet-stream");
  resp.headers.Set("Content-Disposition", "attachment; filename=\"profile\"");
  resp.headers.Set("X-Content-Type-Options", "nosniff");
  resp.body = data.str();
  co_await ctx.writer->Respond(std::move(resp));
}

// The threads of the process: id, name and state from /proc, the nearest thing to goroutines.
Task<void> Threads(http::RequestContext& ctx) {
  std::string out;
  int count = 0;
  std::string body;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      std::string dir = std::string("/proc/self/task/") + e->d_name;
      std::string name, stat;
      std::getline(std::ifstream(dir + "/comm"), name);
      std::getline(std::ifstream(dir + "/stat"), stat);
      // The state is the field after the parenthesised name.
      std::string state = "?";
      if (auto close = stat.rfind(')'); close != std::string::npos && close + 2 < stat.size()) state = stat.substr(close + 2, 1);
      body += "thread " + std::string(e->d_name) + " [" + name + "] state " + state + "\n";
      ++count;
    }
    closedir(d);
  }
  out = "threads profile: total " + std::to_string(count) + "\n" + body;
  http::HttpResponse resp;
  resp.headers.Set("Content-Type", "text/plain; charset=utf-8");
  resp.headers.Set("X-Content-Type-Options", "nosniff");
  resp.body = std::move(out);
  co_await ctx.writer->Respond(std::move(resp));
}

Task<void> Cmdline(http::RequestContext& ctx) {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::stringstream data;
  data << in.rdbuf();
  http::HttpResponse resp;
  resp.headers.Set("Content-Type", "text/plain; charset=utf-8");
  resp.headers.Set("X-Content-Type-Options", "nosniff");
  resp.body = data.str();
  co_await ctx.writer->Respond(std::move(resp));
}

Task<void> Index(http::RequestContext& ctx) {
  http::HttpResponse resp;
  resp.headers.Set("Content-Type", "text/html; charset=utf-8");
  resp.body =
      "<html>\n<head>\n<title>/debug/pprof/</title>\n</head>\n<body>\n/debug/pprof/\n<br>\n"
      "<p>Set debug=1 as a query parameter to export in legacy text format</p>\n<br>\nTypes of profiles available:\n"
      "<table>\n<thead><td>Count</td><td>Profile</td></thead>\n"
      "<tr><td></td><td><a href='cmdline'>cmdline</a></td></tr>\n"
      "<tr><td></td><td><a href='goroutine?debug=1'>goroutine</a></td></tr>\n"
      "<tr><td></td><td><a href='profile'>profile</a></td></tr>\n"
      "</table>\n</body>\n</html>\n";
  co_await ctx.writer->Respond(std::move(resp));
}

}  // namespace

void InstallProfiling(Router& router) {
  router.HandleUnlisted("/debug/pprof", [](http::RequestContext& ctx) -> Task<void> {
    http::HttpResponse resp;
    resp.status = 301;
    resp.headers.Set("Location", "/debug/pprof/");
    co_await ctx.writer->Respond(std::move(resp));
  });
  router.HandlePrefixUnlisted("/debug/pprof", [](http::RequestContext& ctx) -> Task<void> {
    std::string name = ctx.request.path.substr(std::string("/debug/pprof/").size());
    if (name.empty()) co_return co_await Index(ctx);
    if (name == "profile") co_return co_await CpuProfile(ctx);
    if (name == "goroutine") co_return co_await Threads(ctx);
    if (name == "cmdline") co_return co_await Cmdline(ctx);
    if (name == "heap" || name == "allocs") {
      co_return co_await PprofError(ctx, 501, "Capstan does not profile its heap: it is not linked with tcmalloc");
    }
    co_return co_await PprofError(ctx, 404, "Unknown profile");
  });
}

}  // namespace capstan::server
