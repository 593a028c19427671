#include "cmd/observability_flags.h"

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "apimachinery/yaml.h"
#include "cmd/kube_flags.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::cmd {

std::optional<Status> SetObservabilityFlag(ObservabilityFlags& flags, const std::string& name, const std::string& value) {
  auto fail = [](std::string msg) { return Status(400, "BadRequest", std::move(msg)); };
  if (name == "show-hidden-metrics-for-version") {
    std::string err = ParseShowHiddenMetricsVersion(value, flags.metrics);
    return err.empty() ? Status() : fail(err);
  }
  if (name == "disabled-metrics") {
    for (auto& m : StringSliceValues(value)) flags.metrics.disabled.insert(m);
    return Status();
  }
  if (name == "allow-metric-labels") {
    flags.allow_metric_labels_given = true;
    for (const auto& [k, v] : StringToStringPairs(value)) {
      if (std::string err = AddAllowedMetricLabels(k, v, flags.metrics); !err.empty()) return fail(err);
    }
    return Status();
  }
  if (name == "allow-metric-labels-manifest") {
    flags.allow_metric_labels_manifest = value;
    return Status();
  }
  if (name == "logging-format") {
    // component-base's logs registry knows "text" and "json"; its error for others.
    if (value != "text" && value != "json") {
      return fail("format: Invalid value: \"" + value + "\": Unsupported log format");
    }
    flags.logging_format = value;
    return Status();
  }
  if (name == "vmodule") {
    // The syntax was checked with the flag table's kube texts: pattern=N pairs.
    for (const std::string& pair : Split(value, ',')) {
      if (pair.empty()) continue;
      size_t eq = pair.find('=');
      flags.vmodule.emplace_back(pair.substr(0, eq), std::stoi(pair.substr(eq + 1)));
    }
    return Status();
  }
  // Log lines are written unbuffered, so every flush frequency holds (the value's syntax was checked).
  if (name == "log-flush-frequency") return Status();
  if (name == "profiling") {
    flags.profiling = GoParseBool(value).value_or(false);
    return Status();
  }
  return std::nullopt;
}

void LoadMetricLabelsManifest(ObservabilityFlags& flags) {
  if (flags.allow_metric_labels_given || flags.allow_metric_labels_manifest.empty()) return;
  std::ifstream in(flags.allow_metric_labels_manifest);
  if (!in) {
    LogError("Failed to read allow list manifest", {{"file", flags.allow_metric_labels_manifest}});
    return;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = apimachinery::YamlToJson(text.str());
  if (!parsed.ok() || !parsed->value.is_object()) {
    LogError("Failed to parse allow list manifest", {{"file", flags.allow_metric_labels_manifest}});
    return;
  }
  MetricsExposure from_file = flags.metrics;
  for (const auto& [k, v] : parsed->value.as_object()) {
    if (!v.is_string()) {
      LogError("Failed to parse allow list manifest", {{"file", flags.allow_metric_labels_manifest}});
      return;
    }
    if (std::string err = AddAllowedMetricLabels(std::string(k), std::string(v.as_string()), from_file); !err.empty()) {
      LogError("Failed to parse allow list manifest", {{"file", flags.allow_metric_labels_manifest}, {"error", err}});
      return;
    }
  }
  flags.metrics = std::move(from_file);
}

}  // namespace capstan::cmd
