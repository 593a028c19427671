// cacher_bench: the watch cache's figures (not part of make test; see README.md).
//
//   cacher_bench watch  --capstan build/capstan [--watchers 1000] [--updates 1000] [--writers 4]
//                       [--protobuf 1]
//       W watchers on one namespace's configmaps (TLS, one connection each), U updates: the time
//       until every watcher has every event, and events/s delivered; --protobuf 1 watches as client-go
//       does (Accept: application/vnd.kubernetes.protobuf).
//   cacher_bench list   --capstan build/capstan [--objects 10000] [--size 1024] [--iterations 20]
//                       [--concurrency 16]
//       LIST of N ConfigMaps: p50/p99 (consistent and resourceVersion=0), the server's peak extra memory
//       during C concurrent LISTs, and its RSS; measured from the cache, then (same store, same run)
//       with --watch-cache=false.
//   cacher_bench populate --dir D [--objects 10000] [--size 1024]
//       Only writes the ConfigMaps into the embedded store under D (to profile a server by hand).
//   cacher_bench memory [--objects 10000] [--size 1024]
//       In process: heap bytes per cached object against its JSON size.
#include <arpa/inet.h>
#include <fcntl.h>
#include <malloc.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <boost/json.hpp>
#include "storage/backend_object_store.h"
#include "storage/cacher/cacher.h"
#include "storage/embedded/embedded_backend.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace capstan;
using capstan::storage::Object;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

std::map<std::string, std::string> ParseArgs(int argc, char** argv, int from) {
  std::map<std::string, std::string> a;
  for (int i = from; i + 1 < argc; i += 2) a[argv[i]] = argv[i + 1];
  return a;
}
long Arg(const std::map<std::string, std::string>& a, const std::string& k, long def) {
  auto it = a.find(k);
  return it == a.end() ? def : std::stol(it->second);
}

// ---- the server ----

struct Server {
  pid_t pid = -1;
  int port = 0;
  std::string dir;
  std::string Cert() const { return dir + "/pki/admin.crt"; }
  std::string Key() const { return dir + "/pki/admin.key"; }
};

bool StartServer(const std::string& binary, const std::string& dir, Server& s, bool watch_cache = true) {
  s.dir = dir;
  std::filesystem::create_directories(dir);
  std::filesystem::remove(dir + "/admin.kubeconfig");  // a restart on the same dir must not read the old port
  s.pid = fork();
  if (s.pid == 0) {
    FILE* f = fopen((dir + "/server.log").c_str(), "w");
    if (f) {
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
    }
    execl(binary.c_str(), binary.c_str(), "--data-dir", dir.c_str(), "--secure-port", "0",
          watch_cache ? "--watch-cache=true" : "--watch-cache=false", nullptr);
    _exit(127);
  }
  for (int i = 0; i < 600; ++i) {
    std::ifstream k(dir + "/admin.kubeconfig");
    std::stringstream ss;
    ss << k.rdbuf();
    std::string text = ss.str();
    auto p = text.find("https://127.0.0.1:");
    if (p != std::string::npos) {
      s.port = std::atoi(text.c_str() + p + 18);
      if (s.port > 0) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

void StopServer(Server& s) {
  if (s.pid <= 0) return;
  kill(s.pid, SIGTERM);
  int st;
  waitpid(s.pid, &st, 0);
  s.pid = -1;
}

long ProcKb(pid_t pid, const char* field) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind(field, 0) == 0) return std::atol(line.c_str() + std::strlen(field));
  }
  return 0;
}

// The process's CPU time (user + system) in seconds: a figure that other load on the machine does not
// inflate the way wall time is.
double ProcCpuSeconds(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream in(text.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double LoadAverage() {
  std::ifstream f("/proc/loadavg");
  double l = 0;
  f >> l;
  return l;
}

// ---- TLS ----

SSL_CTX* ClientCtx(const Server& s) {
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL_CTX_use_certificate_chain_file(ctx, s.Cert().c_str());
  SSL_CTX_use_PrivateKey_file(ctx, s.Key().c_str(), SSL_FILETYPE_PEM);
  return ctx;
}

struct Tls {
  int fd = -1;
  SSL* ssl = nullptr;
  bool Open(SSL_CTX* ctx, int port) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) return false;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    ssl = SSL_new(ctx);
    SSL_set_fd(ssl, fd);
    return SSL_connect(ssl) == 1;
  }
  void Close() {
    if (ssl) SSL_free(ssl);
    if (fd >= 0) close(fd);
    ssl = nullptr;
    fd = -1;
  }
  bool Write(const std::string& s) { return SSL_write(ssl, s.data(), static_cast<int>(s.size())) > 0; }
  // Reads one response with Content-Length or chunked body (keep-alive); returns the status, 0 on error.
  int ReadResponse(std::string* body = nullptr) {
    std::string buf;
    char tmp[65536];
    size_t head_end;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
      int n = SSL_read(ssl, tmp, sizeof tmp);
      if (n <= 0) return 0;
      buf.append(tmp, static_cast<size_t>(n));
    }
    int status = std::atoi(buf.c_str() + 9);
    std::string head = buf.substr(0, head_end);
    std::string rest = buf.substr(head_end + 4);
    auto cl = head.find("Content-Length: ");
    if (cl != std::string::npos) {
      size_t len = std::stoul(head.substr(cl + 16));
      while (rest.size() < len) {
        int n = SSL_read(ssl, tmp, sizeof tmp);
        if (n <= 0) return 0;
        rest.append(tmp, static_cast<size_t>(n));
      }
      if (body) *body = rest.substr(0, len);
      return status;
    }
    // Chunked: read until the terminating chunk.
    while (rest.size() < 5 || rest.compare(rest.size() - 5, 5, "0\r\n\r\n") != 0) {
      int n = SSL_read(ssl, tmp, sizeof tmp);
      if (n <= 0) return 0;
      rest.append(tmp, static_cast<size_t>(n));
    }
    if (body) *body = std::move(rest);
    return status;
  }
  int Request(const std::string& method, const std::string& path, const std::string& body = "",
              const std::string& type = "application/json", std::string* out = nullptr) {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n";
    if (!body.empty()) req += "Content-Type: " + type + "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
    req += "\r\n" + body;
    if (!Write(req)) return 0;
    return ReadResponse(out);
  }
};

std::string RvOf(const std::string& body) {
  auto p = body.find("\"resourceVersion\":\"");
  if (p == std::string::npos) return "";
  p += 19;
  return body.substr(p, body.find('"', p) - p);
}

bool WaitReady(SSL_CTX* ctx, int port) {
  for (int i = 0; i < 600; ++i) {
    Tls t;
    if (t.Open(ctx, port) && t.Request("GET", "/readyz") == 200) {
      t.Close();
      return true;
    }
    t.Close();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

// ---- watch ----

// This process's CPU time (all threads), in seconds.
double SelfCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

int Watch(const std::string& binary, long watchers, long updates, long writers, bool protobuf) {
  Server s;
  std::string dir = "/tmp/cacher-bench-watch-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  if (!StartServer(binary, dir, s)) return 1;
  SSL_CTX* ctx = ClientCtx(s);
  if (!WaitReady(ctx, s.port)) return 1;
  Tls admin;
  admin.Open(ctx, s.port);
  admin.Request("POST", "/api/v1/namespaces", R"({"metadata":{"name":"bench"}})");
  std::string created;
  admin.Request("POST", "/api/v1/namespaces/bench/configmaps",
                R"({"metadata":{"name":"hot","labels":{"app":"bench"}},"data":{"v":"0"}})", "application/json", &created);
  std::string rv = RvOf(created);

  std::vector<Tls> conns(static_cast<size_t>(watchers));
  int ep = epoll_create1(0);
  auto t_connect = Clock::now();
  for (size_t i = 0; i < conns.size(); ++i) {
    if (!conns[i].Open(ctx, s.port)) {
      std::fprintf(stderr, "watch connection %zu failed\n", i);
      return 1;
    }
    conns[i].Write("GET /api/v1/namespaces/bench/configmaps?watch=1&resourceVersion=" + rv +
                   " HTTP/1.1\r\nHost: x\r\nAccept: " + (protobuf ? "application/vnd.kubernetes.protobuf" : "application/json") +
                   "\r\n\r\n");
    fcntl(conns[i].fd, F_SETFL, fcntl(conns[i].fd, F_GETFL) | O_NONBLOCK);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
  }
  // Every watcher registered with the cache.
  for (int i = 0; i < 600; ++i) {
    std::string metrics;
    admin.Request("GET", "/metrics", "", "", &metrics);
    auto p = metrics.find("capstan_watch_cache_watchers{group=\"\",resource=\"configmaps\"} ");
    if (p != std::string::npos && std::atol(metrics.c_str() + p + 61) >= watchers) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  std::printf("connected %ld watchers in %.0f ms\n", watchers, Ms(Clock::now() - t_connect));

  // The event type is a JSON member or, in a protobuf frame, WatchEvent.type's bytes.
  const std::string needle = protobuf ? std::string("MODIFIED") : std::string("\"type\":\"MODIFIED\"");
  std::vector<long> seen(conns.size(), 0);
  std::vector<std::string> carry(conns.size());
  std::atomic<bool> writing{true};
  double cpu0 = ProcCpuSeconds(s.pid);
  double client0 = SelfCpuSeconds();
  auto t0 = Clock::now();
  std::vector<std::thread> ws;
  for (long w = 0; w < writers; ++w) {
    ws.emplace_back([&, w] {
      Tls t;
      t.Open(ctx, s.port);
      for (long u = w; u < updates; u += writers) {
        int st = t.Request("PATCH", "/api/v1/namespaces/bench/configmaps/hot",
                           "{\"data\":{\"v\":\"" + std::to_string(u + 1) + "\"}}", "application/merge-patch+json");
        if (st != 200) std::fprintf(stderr, "update %ld: %d\n", u, st);
      }
      t.Close();
    });
  }
  std::thread joiner([&] {
    for (auto& t : ws) t.join();
    writing = false;
  });
  Clock::time_point t_written{}, t_all{};
  size_t done = 0;
  std::vector<epoll_event> evs(256);
  char buf[65536];
  while (done < conns.size()) {
    if (!writing && t_written == Clock::time_point{}) t_written = Clock::now();
    int n = epoll_wait(ep, evs.data(), static_cast<int>(evs.size()), 1000);
    if (n == 0 && Ms(Clock::now() - t0) > 120000) {
      std::fprintf(stderr, "timed out\n");
      break;
    }
    for (int k = 0; k < n; ++k) {
      size_t i = evs[k].data.u64;
      while (true) {
        int r = SSL_read(conns[i].ssl, buf, sizeof buf);
        if (r <= 0) break;
        std::string text = carry[i];
        text.append(buf, static_cast<size_t>(r));
        size_t pos = 0;
        while ((pos = text.find(needle, pos)) != std::string::npos) {
          ++seen[i];
          pos += needle.size();
        }
        carry[i] = text.size() > needle.size() ? text.substr(text.size() - needle.size() + 1) : text;
        if (seen[i] == updates) ++done;
      }
    }
  }
  t_all = Clock::now();
  joiner.join();
  if (t_written == Clock::time_point{}) t_written = t_all;
  long total = 0;
  for (long v : seen) total += v;
  double secs = std::chrono::duration<double>(t_all - t0).count();
  std::printf("watchers=%ld updates=%ld: updates written in %.0f ms; every watcher had every event after %.0f ms\n",
              watchers, updates, Ms(t_written - t0), Ms(t_all - t0));
  double cpu = ProcCpuSeconds(s.pid) - cpu0;
  std::printf("events delivered=%ld (%.0f events/s); server RSS %ld KiB\n", total, static_cast<double>(total) / secs,
              ProcKb(s.pid, "VmRSS:"));
  std::printf("server CPU during the run %.2f s = %.2f us per delivered event (updates included); load average %.1f\n",
              cpu, total ? cpu * 1e6 / static_cast<double>(total) : 0.0, LoadAverage());
  // The bench's own reading (TLS decryption and scanning of every event) shares the 2 cores.
  std::printf("bench client CPU during the run %.2f s\n", SelfCpuSeconds() - client0);
  for (auto& c : conns) c.Close();
  admin.Close();
  StopServer(s);
  std::filesystem::remove_all(dir);
  return total == watchers * updates ? 0 : 1;
}

// ---- list ----

Object ConfigMapOfSize(const std::string& name, size_t size) {
  Object o;
  o["apiVersion"] = "v1";
  o["kind"] = "ConfigMap";
  boost::json::object md;
  md["name"] = name;
  md["namespace"] = "bench";
  md["uid"] = "4e0bd1d6-3f6f-4b1c-9b1e-" + std::string(12 - std::min<size_t>(12, name.size()), '0') + name.substr(0, 12);
  md["creationTimestamp"] = "2024-01-01T00:00:00Z";
  boost::json::object labels;
  labels["app"] = "bench";
  md["labels"] = std::move(labels);
  o["metadata"] = std::move(md);
  size_t base = boost::json::serialize(o).size() + 30;
  boost::json::object data;
  data["v"] = std::string(size > base ? size - base : 1, 'x');
  o["data"] = std::move(data);
  return o;
}

// Writes N ConfigMaps of about `size` JSON bytes into the store of `dir` (before the server starts).
bool Populate(const std::string& dir, long n, size_t size) {
  storage::EmbeddedOptions eo;
  eo.dir = dir + "/store";
  std::filesystem::create_directories(eo.dir);
  auto b = storage::OpenEmbeddedBackend(eo);
  if (!b.ok()) return false;
  storage::BackendObjectStore store(**b);
  std::vector<std::thread> ts;
  for (int t = 0; t < 8; ++t) {
    ts.emplace_back([&, t] {
      for (long i = t; i < n; i += 8) {
        char name[32];
        std::snprintf(name, sizeof name, "cm-%06ld", i);
        (void)SyncWait(store.Create(std::string("/registry/configmaps/bench/") + name, ConfigMapOfSize(name, size), 0));
      }
    });
  }
  for (auto& t : ts) t.join();
  return true;
}

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

// One server over the populated store, with or without the watch cache: LIST latencies and memory.
int ListOnce(const std::string& binary, const std::string& dir, bool watch_cache, long objects, long iterations,
             long concurrency) {
  Server s;
  std::printf("--- --watch-cache=%s\n", watch_cache ? "true" : "false");
  auto ts = Clock::now();
  if (!StartServer(binary, dir, s, watch_cache)) return 1;
  SSL_CTX* ctx = ClientCtx(s);
  if (!WaitReady(ctx, s.port)) return 1;
  std::printf("server ready (caches listed) %.0f ms after start; RSS %ld KiB (anon %ld KiB)\n", Ms(Clock::now() - ts),
              ProcKb(s.pid, "VmRSS:"), ProcKb(s.pid, "RssAnon:"));
  const std::string path = "/api/v1/namespaces/bench/configmaps";
  size_t resp_bytes = 0;
  for (const char* q : {"", "?resourceVersion=0"}) {
    Tls t;
    t.Open(ctx, s.port);
    std::vector<double> lat;
    double cpu0 = ProcCpuSeconds(s.pid);
    for (long i = 0; i < iterations; ++i) {
      std::string body;
      auto t0 = Clock::now();
      int st = t.Request("GET", path + q, "", "", &body);
      lat.push_back(Ms(Clock::now() - t0));
      if (st != 200) std::fprintf(stderr, "list: %d\n", st);
      resp_bytes = body.size();
    }
    double cpu_ms = (ProcCpuSeconds(s.pid) - cpu0) * 1000 / static_cast<double>(iterations);
    t.Close();
    std::printf("LIST %ld %s: p50 %.1f ms p99 %.1f ms, server CPU %.1f ms per LIST (response %.1f MiB; load %.1f)\n",
                objects, *q ? "resourceVersion=0" : "consistent", Pct(lat, 0.5), Pct(lat, 0.99), cpu_ms,
                static_cast<double>(resp_bytes) / (1 << 20), LoadAverage());
  }
  long base_rss = ProcKb(s.pid, "VmRSS:");
  long base_anon = ProcKb(s.pid, "RssAnon:");
  std::atomic<bool> sampling{true};
  long peak = base_rss, peak_anon = base_anon;
  std::thread sampler([&] {
    while (sampling) {
      peak = std::max(peak, ProcKb(s.pid, "VmRSS:"));
      peak_anon = std::max(peak_anon, ProcKb(s.pid, "RssAnon:"));
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  std::vector<std::thread> cs;
  std::vector<double> lat;
  std::mutex mu;
  auto t0 = Clock::now();
  for (long c = 0; c < concurrency; ++c) {
    cs.emplace_back([&] {
      Tls t;
      t.Open(ctx, s.port);
      for (long i = 0; i < std::max<long>(iterations / 4, 2); ++i) {
        auto a = Clock::now();
        t.Request("GET", path, "", "", nullptr);
        std::lock_guard lock(mu);
        lat.push_back(Ms(Clock::now() - a));
      }
      t.Close();
    });
  }
  for (auto& c : cs) c.join();
  double wall = Ms(Clock::now() - t0);
  sampling = false;
  sampler.join();
  std::printf("%ld concurrent LISTs of %ld: p50 %.0f ms p99 %.0f ms (%.0f lists/s); peak extra RSS %.1f MiB "
              "(anon %.1f MiB) = %.2f responses per LIST in flight\n",
              concurrency, objects, Pct(lat, 0.5), Pct(lat, 0.99), static_cast<double>(lat.size()) * 1000 / wall,
              static_cast<double>(peak - base_rss) / 1024, static_cast<double>(peak_anon - base_anon) / 1024,
              static_cast<double>(peak_anon - base_anon) * 1024 / static_cast<double>(resp_bytes) /
                  static_cast<double>(concurrency));
  std::printf("server RSS with %ld objects %s: %ld KiB (anon %ld KiB)\n", objects,
              watch_cache ? "cached" : "stored (no cache)", ProcKb(s.pid, "VmRSS:"), ProcKb(s.pid, "RssAnon:"));
  StopServer(s);
  return 0;
}

int List(const std::string& binary, long objects, long size, long iterations, long concurrency) {
  std::string dir = "/tmp/cacher-bench-list-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  auto tp = Clock::now();
  if (!Populate(dir, objects, static_cast<size_t>(size))) return 1;
  std::printf("populated %ld ConfigMaps of ~%ld bytes in %.0f ms\n", objects, size, Ms(Clock::now() - tp));
  int rc = ListOnce(binary, dir, true, objects, iterations, concurrency);
  if (rc == 0) rc = ListOnce(binary, dir, false, objects, iterations, concurrency);
  std::filesystem::remove_all(dir);
  return rc;
}

// ---- memory ----

int Memory(long objects, long size) {
  std::string dir = "/tmp/cacher-bench-mem-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  if (!Populate(dir, objects, static_cast<size_t>(size))) return 1;
  storage::EmbeddedOptions eo;
  eo.dir = dir + "/store";
  auto b = storage::OpenEmbeddedBackend(eo);
  if (!b.ok()) return 1;
  storage::BackendObjectStore store(**b);
  // The JSON the cache serves, measured from a list of the store.
  auto list = SyncWait(store.GetList("/registry/configmaps/bench", {}));
  size_t json_bytes = 0;
  for (const auto& o : list->items) json_bytes += boost::json::serialize(o).size();
  list->items.clear();
  list->items.shrink_to_fit();
  malloc_trim(0);
  size_t before = mallinfo2().uordblks;
  storage::CacherConfig c;
  c.resource_prefix = "/registry/configmaps";
  c.resource = "configmaps";
  c.storage = &store;
  c.backend = b->get();
  c.decode = [&store](std::string_view v, const std::string& k, int64_t rev) { return store.Decode(v, k, rev); };
  auto cacher = std::make_unique<storage::Cacher>(std::move(c));
  cacher->WaitReady(std::chrono::seconds(120));
  malloc_trim(0);
  size_t after = mallinfo2().uordblks;
  auto stats = cacher->GetStats();
  double per_object = static_cast<double>(after - before) / static_cast<double>(objects);
  double json_per = static_cast<double>(json_bytes) / static_cast<double>(objects);
  std::printf("%ld objects, JSON %.0f bytes each: heap %.0f bytes per cached object = %.2fx JSON "
              "(the cache's own estimate %.0f)\n",
              objects, json_per, per_object, per_object / json_per,
              static_cast<double>(stats.object_bytes) / static_cast<double>(objects));
  cacher.reset();
  std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc < 2) {
    std::fprintf(stderr, "usage: cacher_bench watch|list|memory [--flag value]...\n");
    return 2;
  }
  std::string mode = argv[1];
  auto a = ParseArgs(argc, argv, 2);
  std::string binary = a.count("--capstan") ? a["--capstan"] : "build/capstan";
  if (mode == "watch") {
    return Watch(binary, Arg(a, "--watchers", 1000), Arg(a, "--updates", 1000), Arg(a, "--writers", 4),
                 Arg(a, "--protobuf", 0) != 0);
  }
  if (mode == "list") {
    return List(binary, Arg(a, "--objects", 10000), Arg(a, "--size", 1024), Arg(a, "--iterations", 20),
                Arg(a, "--concurrency", 16));
  }
  if (mode == "populate" && a.count("--dir")) {  // a store to run a server over by hand (profiling)
    return Populate(a["--dir"], Arg(a, "--objects", 10000), static_cast<size_t>(Arg(a, "--size", 1024))) ? 0 : 1;
  }
  if (mode == "memory") return Memory(Arg(a, "--objects", 10000), Arg(a, "--size", 1024));
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
