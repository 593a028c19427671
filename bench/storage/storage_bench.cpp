// bench/storage/storage_bench.cpp: figures for the embedded store, and etcd's put throughput measured
// in the same run for comparison. See bench/storage/README.md. Not run by the test suite.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "etcd_runner.h"
#include "storage/embedded/embedded_backend.h"
#include "util/log.h"
#include "util/metrics.h"
#include "util/task.h"

namespace capstan::bench {
namespace {

using Clock = std::chrono::steady_clock;
using storage::Backend;

struct Flags {
  std::string dir;
  int seconds = 3;
  int open_keys = 100000;
  std::string etcd = "/usr/bin/etcd";
  std::string wrk = "/usr/bin/wrk";
  std::vector<int> writers = {1, 8, 64};
  std::string only;  // put, range, watch or open: run just that part
};

double Secs(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::unique_ptr<Backend> Open(const std::string& dir, size_t max_pending = 10000,
                              MetricsRegistry* metrics = nullptr) {
  storage::EmbeddedOptions o;
  o.dir = dir;
  o.metrics = metrics;
  o.compaction_interval = std::chrono::seconds(0);
  o.watch_max_pending_events = max_pending;
  auto b = storage::OpenEmbeddedBackend(o);
  if (!b.ok()) {
    fprintf(stderr, "open %s: %s\n", dir.c_str(), b.status().ToString().c_str());
    exit(1);
  }
  return std::move(*b);
}

void Fill(Backend& b, const std::string& prefix, int keys, size_t value_size, int per_txn) {
  std::string value(value_size, 'v');
  for (int i = 0; i < keys; i += per_txn) {
    storage::TxnRequest t;
    for (int j = i; j < std::min(keys, i + per_txn); ++j) {
      char k[64];
      snprintf(k, sizeof(k), "%s%08d", prefix.c_str(), j);
      t.success.push_back(storage::RequestOp::Put(k, value));
    }
    auto r = SyncWait(b.Txn(std::move(t)));
    if (!r.ok()) {
      fprintf(stderr, "fill: %s\n", r.status().ToString().c_str());
      exit(1);
    }
  }
}

struct PutResult {
  double ops_per_sec = 0;
  double p50_ms = 0, p99_ms = 0;
  double avg_batch = 0, avg_commit_ms = 0;
};

// Reads a histogram's _sum / _count from the exposition text.
double Mean(const std::string& text, const std::string& name) {
  auto read = [&](const std::string& series) {
    auto pos = text.find("\n" + series + " ");
    return pos == std::string::npos ? 0.0 : std::stod(text.substr(pos + series.size() + 2));
  };
  double count = read(name + "_count");
  return count > 0 ? read(name + "_sum") / count : 0;
}

// One writer: puts until told to stop, recording each latency.
Task<void> Writer(Backend& b, int w, const std::string& value, const std::atomic<bool>& stop,
                  std::vector<double>& lat) {
  for (int i = 0; !stop.load(std::memory_order_relaxed); ++i) {
    auto t0 = Clock::now();
    auto r = co_await b.Put("/bench/put/" + std::to_string(w) + "/" + std::to_string(i % 1000), value);
    if (!r.ok()) {
      fprintf(stderr, "put: %s\n", r.status().ToString().c_str());
      exit(1);
    }
    lat.push_back(Secs(Clock::now() - t0) * 1000);
  }
}

// `writers` concurrent writers as coroutines spread over one event-loop thread per CPU, the way the
// API server's I/O threads call the store.
PutResult EmbeddedPuts(const std::string& dir, int writers, int seconds, size_t value_size) {
  MetricsRegistry metrics;
  auto b = Open(dir, 10000, &metrics);
  std::string value(value_size, 'v');
  std::atomic<bool> stop{false};
  std::vector<std::vector<double>> lat(writers);
  int loops = std::min<int>(writers, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  auto start = Clock::now();
  for (int l = 0; l < loops; ++l) {
    threads.emplace_back([&, l] {
      auto loop = std::make_shared<LocalLoop>();
      ExecutorScope scope(loop);
      std::atomic<int> running{0};
      for (int w = l; w < writers; w += loops) {
        ++running;
        SpawnThen(Writer(*b, w, value, stop, lat[w]), [&] {
          if (--running == 0) loop->Stop();
        });
      }
      loop->Run();
    });
  }
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  stop = true;
  for (auto& t : threads) t.join();
  double elapsed = Secs(Clock::now() - start);
  std::vector<double> all;
  for (auto& l : lat) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  PutResult r;
  r.ops_per_sec = all.size() / elapsed;
  std::string text = metrics.Expose();
  r.avg_batch = Mean(text, "capstan_storage_embedded_commit_batch_size");
  r.avg_commit_ms = Mean(text, "etcd_disk_backend_commit_duration_seconds") * 1000;
  if (!all.empty()) {
    r.p50_ms = all[all.size() / 2];
    r.p99_ms = all[std::min(all.size() - 1, all.size() * 99 / 100)];
  }
  return r;
}

void RangeBench(const std::string& dir) {
  auto b = Open(dir);
  Fill(*b, "/bench/range/", 10000, 1024, 500);
  double best = 1e9;
  size_t n = 0;
  for (int i = 0; i < 10; ++i) {
    storage::RangeRequest req;
    req.key = "/bench/range/";
    req.range_end = storage::PrefixEnd(req.key);
    auto t0 = Clock::now();
    auto r = SyncWait(b->Range(req));
    best = std::min(best, Secs(Clock::now() - t0));
    n = r.ok() ? r->kvs.size() : 0;
  }
  printf("range of %zu keys (1 KiB values): %.1f ms (%.0f keys/s)\n", n, best * 1000, n / best);
}

void WatchBench(const std::string& dir) {
  constexpr int kWatchers = 100, kTxns = 200, kPerTxn = 100;
  constexpr size_t kEvents = kTxns * kPerTxn;
  auto b = Open(dir, /*max_pending=*/1 << 22);
  std::mutex mu;
  std::condition_variable cv;
  std::vector<size_t> got(kWatchers);
  size_t done = 0;
  std::vector<std::unique_ptr<storage::WatchHandle>> handles;
  for (int w = 0; w < kWatchers; ++w) {
    storage::WatchRequest req;
    req.key = "/bench/watch/";
    req.range_end = storage::PrefixEnd(req.key);
    handles.push_back(b->Watch(req, [&, w](storage::WatchResponse r) {
      std::lock_guard lock(mu);
      got[w] += r.events.size();
      if (got[w] == kEvents) {
        ++done;
        cv.notify_all();
      }
      if (!r.error.ok()) fprintf(stderr, "watch error: %s\n", r.error.ToString().c_str());
    }));
  }
  auto t0 = Clock::now();
  std::string value(256, 'w');
  for (int t = 0; t < kTxns; ++t) {
    storage::TxnRequest txn;
    for (int i = 0; i < kPerTxn; ++i) {
      txn.success.push_back(storage::RequestOp::Put("/bench/watch/" + std::to_string(i), value));
    }
    (void)SyncWait(b->Txn(std::move(txn)));
  }
  double write_secs = Secs(Clock::now() - t0);
  std::unique_lock lock(mu);
  cv.wait_for(lock, std::chrono::seconds(120), [&] { return done == kWatchers; });
  double secs = Secs(Clock::now() - t0);
  printf("watch fan-out: %zu events x %d watchers delivered in %.2f s (writes took %.2f s): %.0f events/s delivered\n",
         kEvents, kWatchers, secs, write_secs, kEvents * kWatchers / secs);
}

// Opens an existing store a few times in this (fresh) process and reports the times and sizes.
void OpenMeasure(const std::string& dir, int keys) {
  std::vector<double> times;
  int64_t in_use = 0;
  for (int i = 0; i < 5; ++i) {
    auto t0 = Clock::now();
    auto b = Open(dir);
    times.push_back(Secs(Clock::now() - t0) * 1000);
    auto st = SyncWait(b->GetStatus());
    if (st.ok()) in_use = st->db_size_in_use;
  }
  std::sort(times.begin(), times.end());
  struct stat sb;
  int64_t file = stat((dir + "/data.mdb").c_str(), &sb) == 0 ? sb.st_size : 0;
  printf("open with %d keys (1 KiB values), fresh process, warm page cache: best %.0f ms, median %.0f ms\n", keys,
         times[0], times[2]);
  printf("bytes on disk per 1 KiB value: %.0f (data file %lld bytes for %d keys; %.0f in use per key)\n",
         static_cast<double>(file) / keys, static_cast<long long>(file), keys, static_cast<double>(in_use) / keys);
}

void OpenBench(const std::string& dir, int keys) {
  if (!std::filesystem::exists(dir + "/data.mdb")) {  // an existing store from --dir is reused
    auto b = Open(dir);
    Fill(*b, "/registry/configmaps/default/cm-", keys, 1024, 1000);
  }
  // Measured in a child process so that this one's heap does not colour the figure.
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string cmd = self + " --only=open-measure --dir=" + dir + " --open-keys=" + std::to_string(keys) +
                    " 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  char line[512];
  while (p && fgets(line, sizeof(line), p)) {
    if (strncmp(line, "storage bench", 13) != 0) fputs(line, stdout);
  }
  if (p) pclose(p);
}

int Main(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&](const char* name) -> const char* {
      size_t n = strlen(name);
      return a.compare(0, n, name) == 0 ? a.c_str() + n : nullptr;
    };
    if (auto v = val("--dir=")) f.dir = v;
    else if (auto v = val("--seconds=")) f.seconds = atoi(v);
    else if (auto v = val("--open-keys=")) f.open_keys = atoi(v);
    else if (auto v = val("--etcd=")) f.etcd = v;
    else if (auto v = val("--wrk=")) f.wrk = v;
    else if (auto v = val("--only=")) f.only = v;
    else if (auto v = val("--writers=")) f.writers = {atoi(v)};
    else {
      fprintf(stderr, "usage: %s [--dir=D] [--seconds=N] [--open-keys=N] [--etcd=PATH|--etcd=] [--wrk=PATH] [--only=put|range|watch|open]\n",
              argv[0]);
      return 2;
    }
  }
  bool own_dir = f.dir.empty();
  if (own_dir) {
    std::string tmpl = std::filesystem::temp_directory_path().string() + "/capstan-storage-bench-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    f.dir = mkdtemp(buf.data());
  }
  SetLogVerbosity(0);
  printf("storage bench in %s, %d s per throughput point, 1 KiB values, %u CPUs\n", f.dir.c_str(), f.seconds,
         std::thread::hardware_concurrency());

  auto want = [&](const char* part) { return f.only.empty() || f.only == part; };
  fflush(stdout);
  // Each concurrency level is measured on both stores back to back, so that other load on the
  // machine hits the pair alike.
  std::unique_ptr<EtcdRunner> etcd;
  if (!f.etcd.empty() && want("put")) {
    etcd = std::make_unique<EtcdRunner>();
    std::string err = etcd->Start(f.etcd, f.dir);
    if (!err.empty()) {
      printf("etcd: %s\n", err.c_str());
      etcd.reset();
    }
  }
  for (int w : want("put") ? f.writers : std::vector<int>{}) {
    PutResult r = EmbeddedPuts(f.dir + "/put-" + std::to_string(w), w, f.seconds, 1024);
    printf("embedded put, %2d writers: %8.0f writes/s  (p50 %.2f ms, p99 %.2f ms; %.1f writes per commit, %.2f ms per commit)\n",
           w, r.ops_per_sec, r.p50_ms, r.p99_ms, r.avg_batch, r.avg_commit_ms);
    if (!etcd) continue;
    auto e = etcd->PutThroughput(f.wrk, w, f.seconds, 1024);
    if (!e) {
      printf("etcd put, %2d connections: wrk failed\n", w);
      continue;
    }
    printf("etcd 3.4 put (JSON gateway, wrk), %2d connections: %8.0f writes/s%s   embedded/etcd = %.1fx\n", w,
           e->requests_per_second, e->non_2xx ? " (had non-2xx responses!)" : "", r.ops_per_sec / e->requests_per_second);
    fflush(stdout);
  }
  etcd.reset();
  if (want("range")) RangeBench(f.dir + "/range");
  if (want("watch")) WatchBench(f.dir + "/watch");
  if (want("open")) OpenBench(f.dir + "/open", f.open_keys);
  if (f.only == "open-measure") OpenMeasure(f.dir, f.open_keys);
  if (own_dir) {
    std::error_code ec;
    std::filesystem::remove_all(f.dir, ec);
  }
  return 0;
}

}  // namespace
}  // namespace capstan::bench

int main(int argc, char** argv) { return capstan::bench::Main(argc, argv); }
