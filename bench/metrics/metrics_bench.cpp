// bench/metrics/metrics_bench.cpp: the metrics work the filter chain does for one GET of a
// ConfigMap (apiserver_request_total, _duration_seconds, _sli_ and _slo_duration_seconds,
// apiserver_response_sizes, the authentication and authorization families), measured on the real
// RequestMetrics, and the cost of one exposition of a registry holding that and a few hundred other
// series.
//
//   metrics_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include "server/filters/filters.h"

using namespace capstan;

namespace {

void RecordGet(server::RequestMetrics& m, const std::string& resource) {
  m.authentication_attempts.With({"success"})->Inc();
  m.authentication_durations.With({"success"})->Observe(0.0001);
  m.authenticated_users.With({"other"})->Inc();
  m.authorization_attempts.With({"allowed"})->Inc();
  m.authorization_durations.With({"allowed"})->Observe(0.00002);
  m.requests.With({"GET", "", "", "v1", resource, "", "resource", "apiserver", "200"})->Inc();
  m.durations.With({"GET", "", "", "v1", resource, "", "resource", "apiserver"})->Observe(0.0004);
  LabelValues l{"GET", "", "v1", resource, "", "resource", "apiserver"};
  m.sli_durations.With(l)->Observe(0.0004);
  m.slo_durations.With(l)->Observe(0.0004);
  m.response_sizes.With(l)->Observe(1200);
}

void BM_MetricsPerGet(benchmark::State& state) {
  MetricsRegistry reg;
  server::RequestMetrics m(reg);
  for (auto _ : state) RecordGet(m, "configmaps");
}
BENCHMARK(BM_MetricsPerGet);

void BM_MetricsPerGetFourThreads(benchmark::State& state) {
  static MetricsRegistry reg;
  static server::RequestMetrics m(reg);
  for (auto _ : state) RecordGet(m, "configmaps");
}
BENCHMARK(BM_MetricsPerGetFourThreads)->Threads(4);

void BM_Expose(benchmark::State& state) {
  MetricsRegistry reg;
  server::RequestMetrics m(reg);
  for (const char* r : {"configmaps", "secrets", "pods", "services", "deployments", "namespaces", "events", "leases"}) {
    RecordGet(m, r);
  }
  size_t bytes = 0;
  for (auto _ : state) {
    std::string text = reg.Expose();
    bytes = text.size();
    benchmark::DoNotOptimize(text);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Expose);

}  // namespace

BENCHMARK_MAIN();
