#include "admission/chain.h"

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"

namespace capstan::admission {

namespace am = capstan::apimachinery;

Status ForbiddenFor(const Attributes& a, const std::string& reason) {
  std::string name = a.name;
  if (name.empty() && a.object) name = std::string(am::GetName(*a.object));
  am::GroupResource gr;
  if (a.resource) gr = a.resource->GroupResource();
  return am::NewForbidden(gr, name, reason);
}

void Chain::RecordTo(MetricsRegistry& registry) {
  const std::vector<double> buckets = {0.005, 0.025, 0.1, 0.5, 1.0, 2.5};
  step_ = &registry.NewHistogramVec("apiserver_admission_step_admission_duration_seconds",
                                    "Admission sub-step latency histogram in seconds, broken out for each operation "
                                    "and API resource and step type (validate or admit).",
                                    {"type", "operation", "rejected"}, buckets);
  controller_ = &registry.NewHistogramVec("apiserver_admission_controller_admission_duration_seconds",
                                          "Admission controller latency histogram in seconds, identified by name and "
                                          "broken out for each operation and API resource and type (validate or admit).",
                                          {"name", "type", "operation", "rejected"}, buckets);
}

void Chain::Observe(HistogramVec* vec, std::vector<std::string> labels, std::chrono::steady_clock::time_point start) const {
  if (!vec) return;
  vec->With(labels)->Observe(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

Task<Status> Chain::Admit(Attributes& a) {
  auto step_start = std::chrono::steady_clock::now();
  for (auto& p : plugins_) {
    if (!p->Mutating() || !p->Handles(a.operation)) continue;
    auto start = std::chrono::steady_clock::now();
    Status st = co_await p->Admit(a);
    Observe(controller_, {p->Name(), "admit", a.operation, st.ok() ? "false" : "true"}, start);
    if (!st.ok()) {
      Observe(step_, {"admit", a.operation, "true"}, step_start);
      co_return st;
    }
  }
  Observe(step_, {"admit", a.operation, "false"}, step_start);
  co_return Status();
}

Task<Status> Chain::Validate(const Attributes& a) {
  auto step_start = std::chrono::steady_clock::now();
  for (auto& p : plugins_) {
    if (!p->Validating() || !p->Handles(a.operation)) continue;
    auto start = std::chrono::steady_clock::now();
    Status st = co_await p->Validate(a);
    Observe(controller_, {p->Name(), "validate", a.operation, st.ok() ? "false" : "true"}, start);
    if (!st.ok()) {
      Observe(step_, {"validate", a.operation, "true"}, step_start);
      co_return st;
    }
  }
  Observe(step_, {"validate", a.operation, "false"}, step_start);
  co_return Status();
}

}  // namespace capstan::admission
