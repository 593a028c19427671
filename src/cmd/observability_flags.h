// cmd/observability_flags.h: the metrics, logging and profiling flags of kube-apiserver
// (component-base's metrics and logs options, and --profiling) → ObservabilityFlags in Options.
// options.cpp asks here for every flag its own table does not set; values were already checked
// against the flag's kind (cmd/kube_flags.h). Pure functions, except the manifest read at start.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "apimachinery/status.h"
#include "util/metrics.h"

namespace capstan::cmd {

struct ObservabilityFlags {
  // --show-hidden-metrics-for-version, --disabled-metrics, --allow-metric-labels.
  MetricsExposure metrics;
  bool allow_metric_labels_given = false;
  std::string allow_metric_labels_manifest;  // --allow-metric-labels-manifest
  std::string logging_format = "text";       // --logging-format: text or json
  std::vector<std::pair<std::string, int>> vmodule;  // --vmodule: pattern=N pairs, in order
  bool profiling = true;                     // --profiling: the debug endpoints and the metrics reset
};

// nullopt: not one of these flags. Otherwise the outcome of setting it (kube's error texts).
std::optional<Status> SetObservabilityFlag(ObservabilityFlags& flags, const std::string& name, const std::string& value);

// --allow-metric-labels-manifest, read as component-base does: only when --allow-metric-labels was not
// given; a file that cannot be read or parsed is logged and ignored.
void LoadMetricLabelsManifest(ObservabilityFlags& flags);

}  // namespace capstan::cmd
