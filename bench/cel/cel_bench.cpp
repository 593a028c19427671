// bench/cel/cel_bench.cpp: the cost of CRD validation rules. Builds a structural schema with N
// x-kubernetes-validations rules (a mix of field comparisons, string functions, a regex and a list
// macro, as real CRDs write them), then measures
//   - compile: checking and compiling all N rules (what a CRD create/update pays once),
//   - eval: validating one custom resource against all N rules (what every write pays),
// and prints the mean and p50/p99 per iteration for N = 20 (compile) and 1, 10, 100 (eval).
//
//   cel_bench [iterations=2000]
#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "apimachinery/schema_registry.h"
#include "cel/crd_rules.h"

using namespace capstan;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

const char* kRules[] = {
    "self.minReplicas <= self.maxReplicas",
    "self.name.startsWith('app-')",
    "self.name.matches('^[a-z][-a-z0-9]*$')",
    "self.ports.all(p, p > 0 && p < 65536)",
    "size(self.tags) <= 16",
    "self.tags.exists(t, t == 'prod') || self.env != 'prod'",
    "!has(self.image) || self.image.contains(':')",
    "self.env in ['dev', 'staging', 'prod']",
    "self.ports.filter(p, p < 1024).size() <= 2",
    "int(self.maxReplicas) * 2 > self.minReplicas",
};

json::value SchemaWith(int n) {
  json::array rules;
  for (int i = 0; i < n; ++i) {
    rules.push_back(json::object{{"rule", kRules[i % 10]}, {"message", "rule " + std::to_string(i)}});
  }
  json::value s = json::parse(R"({"type": "object", "properties": {"spec": {"type": "object", "properties": {
      "minReplicas": {"type": "integer"}, "maxReplicas": {"type": "integer"}, "name": {"type": "string", "maxLength": 63},
      "ports": {"type": "array", "maxItems": 16, "items": {"type": "integer"}},
      "tags": {"type": "array", "maxItems": 16, "items": {"type": "string", "maxLength": 32}},
      "env": {"type": "string"}, "image": {"type": "string"}}}}})");
  s.as_object()["properties"].as_object()["spec"].as_object()["x-kubernetes-validations"] = std::move(rules);
  return s;
}

const json::value kObject = json::parse(R"({"apiVersion": "example.com/v1", "kind": "App", "metadata": {"name": "a"},
  "spec": {"minReplicas": 1, "maxReplicas": 3, "name": "app-web", "ports": [80, 443, 8080], "tags": ["prod", "web"],
           "env": "prod", "image": "nginx:1.27"}})");

struct Stats {
  double mean_us, p50_us, p99_us;
};

template <class F>
Stats Measure(int iterations, F f) {
  std::vector<double> us;
  us.reserve(static_cast<size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    auto t0 = Clock::now();
    f();
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  double sum = 0;
  for (double x : us) sum += x;
  std::sort(us.begin(), us.end());
  return {sum / us.size(), us[us.size() / 2], us[us.size() * 99 / 100]};
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 2000;
  {
    auto schema = *apimachinery::ParseSchema(SchemaWith(20));
    Stats s = Measure(std::max(1, iterations / 10), [&] {
      ErrorList errs;
      cel::CheckCrdRules(*schema, FieldPath("spec.versions[0].schema.openAPIV3Schema"), true, errs);
      auto rules = cel::CrdRules::Build(schema.get());
      if (!errs.empty() || !rules) std::abort();
    });
    std::printf("compile 20 rules (check + build):   mean %8.1f us  p50 %8.1f us  p99 %8.1f us\n", s.mean_us, s.p50_us, s.p99_us);
  }
  for (int n : {1, 10, 100}) {
    auto schema = *apimachinery::ParseSchema(SchemaWith(n));
    auto rules = cel::CrdRules::Build(schema.get());
    Stats s = Measure(iterations, [&] {
      ErrorList errs;
      rules->Validate(kObject, nullptr, errs, nullptr);
      if (!errs.empty()) std::abort();
    });
    std::printf("validate one object, %3d rules:     mean %8.1f us  p50 %8.1f us  p99 %8.1f us\n", n, s.mean_us, s.p50_us, s.p99_us);
  }
  return 0;
}
