// apply_bench: microseconds per operation of managedFields bookkeeping and server-side apply on a
// Deployment, against the JSON work every write does anyway. Not a test.
#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "api/schemas/builtin_schemas.h"
#include "apimachinery/go_normalize.h"
#include "apimachinery/json_write.h"
#include "apimachinery/managedfields/field_manager.h"
#include "apimachinery/merge_patch.h"
#include "apimachinery/schema_registry.h"

namespace am = capstan::apimachinery;
namespace mf = capstan::apimachinery::managedfields;
namespace json = boost::json;

namespace {

json::object DeploymentConfig(int replicas) {
  std::string c;
  for (int i = 0; i < 3; ++i) {
    if (i) c += ",";
    c += R"({"name":"c)" + std::to_string(i) + R"(","image":"registry.example.com/app:1.)" + std::to_string(i) +
         R"(","args":["--port=8080","--verbose"],"ports":[{"containerPort":)" + std::to_string(8080 + i) +
         R"(,"name":"http)" + std::to_string(i) + R"("}],"env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],)" +
         R"("resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"memory":"256Mi"}},)" +
         R"("readinessProbe":{"httpGet":{"path":"/ready","port":8080},"periodSeconds":5},)" +
         R"("volumeMounts":[{"name":"data","mountPath":"/data"}]})";
  }
  std::string text = R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default",)"
                     R"("labels":{"app":"web","tier":"frontend"},"annotations":{"owner":"team-a"}},)"
                     R"("spec":{"replicas":)" + std::to_string(replicas) +
                     R"(,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},)"
                     R"("spec":{"containers":[)" + c + R"(],"volumes":[{"name":"data","emptyDir":{}}]}}}})";
  return json::parse(text).as_object();
}

// Thread CPU time, so that the shared machine's other work does not count.
double CpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1e3;
}

double MedianMicros(int iterations, const std::function<void()>& op) {
  std::vector<double> batches;
  for (int b = 0; b < 5; ++b) {
    double start = CpuMicros();
    for (int i = 0; i < iterations; ++i) op();
    batches.push_back((CpuMicros() - start) / iterations);
  }
  std::sort(batches.begin(), batches.end());
  return batches[2];
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  am::SchemaRegistry reg;
  for (const auto& f : capstan::api::BuiltinSchemaFiles()) {
    if (!reg.AddDocumentJson(f.text).ok()) return 1;
  }
  if (!reg.Resolve().ok()) return 1;
  mf::FieldManagerScope scope;
  scope.schema = reg.Find("io.k8s.api.apps.v1.Deployment");
  scope.api_version = "apps/v1";
  scope.empty_object = &mf::GoZeroObject(scope.schema);

  // The stored object: created by kubectl-create, as the Store writes it (normalized).
  json::value stored_v = DeploymentConfig(2);
  am::NormalizeAsGo(stored_v, scope.schema);
  json::object stored = stored_v.as_object();
  mf::RecordUpdate(scope, nullptr, stored, "kubectl-create", "2026-01-01T00:00:00Z");
  json::object changed = stored;
  changed["spec"].as_object()["replicas"] = 3;

  // An applied object for the apply figures.
  json::object cfg = DeploymentConfig(2);
  auto applied = mf::Apply(scope, nullptr, cfg, "kubectl", false, "2026-01-01T00:00:00Z");
  if (!applied.ok()) return 1;
  json::object cfg3 = DeploymentConfig(3);

  std::printf("object: %zu bytes of JSON, %zu managedFields bytes after a create\n",
              am::ToJson(json::value(stored)).size(),
              am::ToJson(stored.at("metadata").at("managedFields")).size());
  volatile size_t sink = 0;
  double baseline = MedianMicros(iterations, [&] {
    json::value v = changed;
    am::NormalizeAsGo(v, scope.schema);
    std::string s = am::ToJson(v);
    sink = sink + json::parse(s).as_object().size();
  });
  json::object fresh = changed;
  fresh["metadata"].as_object().erase("managedFields");
  double create = MedianMicros(iterations, [&] {
    json::object o = fresh;
    mf::RecordUpdate(scope, nullptr, o, "kubectl-create", "2026-01-01T00:00:01Z");
    sink = sink + o.size();
  });
  double update = MedianMicros(iterations, [&] {
    json::object o = changed;
    mf::RecordUpdate(scope, &stored, o, "kubectl-edit", "2026-01-01T00:00:01Z");
    sink = sink + o.size();
  });
  double apply_update = MedianMicros(iterations, [&] {
    auto r = mf::Apply(scope, &*applied, cfg3, "kubectl", false, "2026-01-01T00:00:01Z");
    sink = sink + r.ok();
  });
  double apply_noop = MedianMicros(iterations, [&] {
    auto r = mf::Apply(scope, &*applied, cfg, "kubectl", false, "2026-01-01T00:00:01Z");
    sink = sink + r.ok();
  });
  double merge = MedianMicros(iterations, [&] {
    auto r = am::ApplyMergePatch(json::value(*applied), R"({"spec":{"replicas":3}})");
    sink = sink + r.ok();
  });
  std::printf("baseline (normalize+serialize+parse) %8.1f us\n", baseline);
  std::printf("record create                        %8.1f us\n", create);
  std::printf("record update (1 field)              %8.1f us\n", update);
  std::printf("apply update (1 field)               %8.1f us\n", apply_update);
  std::printf("apply noop                           %8.1f us\n", apply_noop);
  std::printf("merge patch (1 field)                %8.1f us\n", merge);
  return 0;
}
