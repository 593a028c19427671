// util/metrics.h: Prometheus metrics (counters, gauges, histograms with labels) and the text format.
//
// Each component owns a struct of the metrics it records, created from the MetricsRegistry passed to
// its constructor; there are no global metrics. Names follow kube-apiserver's where kube has one.
//
// Exposure follows kube's component-base: the help text carries the family's stability level
// ("[STABLE] ...", "[ALPHA] (Deprecated since 1.27.0) ..."), families deprecated before the previous
// minor release are hidden unless --show-hidden-metrics-for-version names that release,
// --disabled-metrics hides families by name, --allow-metric-labels turns label values outside an
// allow-list into "unexpected", and a family with no samples is not written at all.
// Thread-safety: everything here is safe to use from any thread. With(...) returns a pointer that stays
// valid for the registry's lifetime, so hot paths can look a label set up once and keep it.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace capstan {

class Counter {
 public:
  void Inc(double v = 1) { value_.fetch_add(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }
  void Reset() { value_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double v) { value_.fetch_add(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }
  void Reset() { value_.store(0, std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Histogram {
 public:
  explicit Histogram(const std::vector<double>& bounds);
  void Observe(double v);
  uint64_t Count() const { return count_.load(std::memory_order_relaxed); }
  double Sum() const { return sum_.load(std::memory_order_relaxed); }
  // Cumulative count of observations <= bounds[i].
  uint64_t CumulativeCount(size_t i) const;
  const std::vector<double>& bounds() const { return bounds_; }
  void Reset();

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<uint64_t> count_{0};
  std::atomic<double> sum_{0};
};

using LabelValues = std::vector<std::string>;

// Per label position, the values a family may carry (--allow-metric-labels); empty: anything.
using LabelAllowList = std::vector<std::set<std::string>>;

template <class M>
class MetricVec {
 public:
  MetricVec(std::string name, std::string help, std::vector<std::string> label_names,
            std::function<std::unique_ptr<M>()> make)
      : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)), make_(std::move(make)) {}

  M* With(const LabelValues& values) {
    std::lock_guard lock(mu_);
    if (!allow_.empty()) return WithAllowed(values);
    auto it = children_.find(values);
    if (it == children_.end()) it = children_.emplace(values, make_()).first;
    return it->second.get();
  }
  // The child for these labels if it exists (for tests and readers).
  const M* Find(const LabelValues& values) const {
    std::lock_guard lock(mu_);
    auto it = children_.find(values);
    return it == children_.end() ? nullptr : it->second.get();
  }
  template <class F>
  void ForEach(F f) const {
    std::lock_guard lock(mu_);
    for (const auto& [labels, m] : children_) f(labels, *m);
  }
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  const std::vector<std::string>& label_names() const { return label_names_; }
  bool empty() const {
    std::lock_guard lock(mu_);
    return children_.empty();
  }
  // Zeroes every child; pointers handed out by With stay valid.
  void Reset() {
    std::lock_guard lock(mu_);
    for (auto& [labels, m] : children_) m->Reset();
  }
  void SetAllowList(LabelAllowList allow) {
    std::lock_guard lock(mu_);
    allow_ = std::move(allow);
  }

 private:
  M* WithAllowed(LabelValues values) {
    for (size_t i = 0; i < values.size() && i < allow_.size(); ++i) {
      if (!allow_[i].empty() && !allow_[i].count(values[i])) values[i] = "unexpected";
    }
    auto it = children_.find(values);
    if (it == children_.end()) it = children_.emplace(values, make_()).first;
    return it->second.get();
  }

  std::string name_, help_;
  std::vector<std::string> label_names_;
  std::function<std::unique_ptr<M>()> make_;
  mutable std::mutex mu_;
  std::map<LabelValues, std::unique_ptr<M>> children_;
  LabelAllowList allow_;
};

using CounterVec = MetricVec<Counter>;
using GaugeVec = MetricVec<Gauge>;
using HistogramVec = MetricVec<Histogram>;

enum class MetricStability { kAlpha, kBeta, kStable };

// What a family's exposure depends on, from the metrics flags (component-base's metrics.Options).
struct MetricsExposure {
  int current_minor = 32;                  // kube 1.32: families deprecated before 1.31 are hidden
  bool show_hidden = false;                // --show-hidden-metrics-for-version=1.31
  std::set<std::string> disabled;          // --disabled-metrics
  // --allow-metric-labels: family -> label -> allowed values.
  std::map<std::string, std::map<std::string, std::set<std::string>>> allowed_labels;
};

// Reads the metrics flags as component-base validates them: "" when valid, else kube's error text.
std::string ParseShowHiddenMetricsVersion(std::string_view value, MetricsExposure& out);
// One --allow-metric-labels entry: key "metric,label", value "v1,v2".
std::string AddAllowedMetricLabels(std::string_view key, std::string_view values, MetricsExposure& out);

// The stability and deprecation of a family as kube 1.32 declares it (ALPHA and "" when kube does
// not list it: Capstan's own families).
MetricStability StabilityOf(std::string_view name);
std::string_view DeprecatedVersionOf(std::string_view name);

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  CounterVec& NewCounterVec(std::string name, std::string help, std::vector<std::string> labels);
  GaugeVec& NewGaugeVec(std::string name, std::string help, std::vector<std::string> labels);
  HistogramVec& NewHistogramVec(std::string name, std::string help, std::vector<std::string> labels,
                                std::vector<double> bounds);
  Counter& NewCounter(std::string name, std::string help) { return *NewCounterVec(std::move(name), std::move(help), {}).With({}); }
  Gauge& NewGauge(std::string name, std::string help) { return *NewGaugeVec(std::move(name), std::move(help), {}).With({}); }

  // A collector appends complete exposition text (HELP, TYPE and samples) computed at scrape time.
  // `name` is the family it writes, for --disabled-metrics.
  void AddCollector(std::function<void(std::string&)> collect, std::string name = {});

  // DELETE /metrics with --profiling: every sample back to zero (component-base's HandlerWithReset).
  void Reset();

  // Applies the metrics flags to the families registered so far and to later ones.
  void Configure(MetricsExposure exposure);
  // Whether a family of this name is written (not disabled, not hidden), under the flags applied so far.
  bool Shown(const std::string& name) const {
    std::lock_guard lock(mu_);
    return Exposed(name);
  }
  // The help text as exposed: the stability level and deprecation prefixed as component-base does.
  static std::string AnnotatedHelp(std::string_view name, std::string_view help);

  // The Prometheus text exposition format (version 0.0.4).
  std::string Expose() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<CounterVec>> counters_;
  std::vector<std::unique_ptr<GaugeVec>> gauges_;
  std::vector<std::unique_ptr<HistogramVec>> histograms_;
  struct Collector {
    std::function<void(std::string&)> collect;
    std::string name;
  };
  bool Exposed(const std::string& name) const;
  template <class V>
  void ApplyAllowList(V& vec) const;
  void AppendRegistrationCounts(std::string& out) const;

  std::vector<Collector> collectors_;
  MetricsExposure exposure_;
};

// Exponential bucket bounds: start, start*factor, ... (count of them).
std::vector<double> ExponentialBuckets(double start, double factor, int count);

// Formats a sample value as client_golang does (Go's shortest %g form: 0.1, 1e+06, +Inf).
std::string FormatMetricValue(double v);

// kube's automatic-reload pair of a configuration file's controller (authentication,
// authorization, encryption): apiserver_<name>_config_controller_automatic_reloads_total and
// ..._automatic_reload_last_timestamp_seconds, both by {status, apiserver_id_hash}. Thread-safe.
class ConfigReloadMetrics {
 public:
  ConfigReloadMetrics(MetricsRegistry& m, const std::string& name, std::string reloads_help, std::string timestamp_help,
                      std::string apiserver_id_hash);
  // Counts a reload ("success" or "failure") and stamps it with the current time.
  void Record(const char* status);
  double Count(const std::string& status) const;

 private:
  CounterVec& reloads_;
  GaugeVec& timestamp_;
  std::string id_hash_;
};

}  // namespace capstan
