// admission/chain.h: the admission chain: every mutating plugin in order, then every validating plugin
// in order, as kube-apiserver runs them; the first refusal wins. Immutable after construction; thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "admission/plugin.h"
#include "util/metrics.h"

namespace capstan::admission {

class Chain : public registry::AdmissionHook {
 public:
  explicit Chain(std::vector<std::unique_ptr<Plugin>> plugins) : plugins_(std::move(plugins)) {}
  Task<Status> Admit(Attributes& a) override;
  Task<Status> Validate(const Attributes& a) override;
  const std::vector<std::unique_ptr<Plugin>>& plugins() const { return plugins_; }
  // Records apiserver_admission_step_admission_duration_seconds (each of the two steps) and
  // apiserver_admission_controller_admission_duration_seconds (each plugin), as kube's chain does.
  // Call before the chain serves requests.
  void RecordTo(MetricsRegistry& registry);

 private:
  void Observe(HistogramVec* vec, std::vector<std::string> labels, std::chrono::steady_clock::time_point start) const;

  std::vector<std::unique_ptr<Plugin>> plugins_;
  HistogramVec* step_ = nullptr;        // {type, operation, rejected}
  HistogramVec* controller_ = nullptr;  // {name, type, operation, rejected}
};

}  // namespace capstan::admission
