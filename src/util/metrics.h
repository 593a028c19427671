// util/metrics.h: Prometheus metrics (counters, gauges, histograms with labels) and the text format.
//
// Each component owns a struct of the metrics it records, created from the MetricsRegistry passed to
// its constructor; there are no global metrics. Names follow kube-apiserver's where kube has one.
// Thread-safety: everything here is safe to use from any thread. With(...) returns a pointer that stays
// valid for the registry's lifetime, so hot paths can look a label set up once and keep it.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace capstan {

class Counter {
 public:
  void Inc(double v = 1) { value_.fetch_add(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double v) { value_.fetch_add(v, std::memory_order_relaxed); }
  double Value() const { return value_.load(std::memory_order_relaxed); }

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

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;
  std::atomic<uint64_t> count_{0};
  std::atomic<double> sum_{0};
};

using LabelValues = std::vector<std::string>;

template <class M>
class MetricVec {
 public:
  MetricVec(std::string name, std::string help, std::vector<std::string> label_names,
            std::function<std::unique_ptr<M>()> make)
      : name_(std::move(name)), help_(std::move(help)), label_names_(std::move(label_names)), make_(std::move(make)) {}

  M* With(const LabelValues& values) {
    std::lock_guard lock(mu_);
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

 private:
  std::string name_, help_;
  std::vector<std::string> label_names_;
  std::function<std::unique_ptr<M>()> make_;
  mutable std::mutex mu_;
  std::map<LabelValues, std::unique_ptr<M>> children_;
};

using CounterVec = MetricVec<Counter>;
using GaugeVec = MetricVec<Gauge>;
using HistogramVec = MetricVec<Histogram>;

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
  void AddCollector(std::function<void(std::string&)> collect);

  // The Prometheus text exposition format (version 0.0.4).
  std::string Expose() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<CounterVec>> counters_;
  std::vector<std::unique_ptr<GaugeVec>> gauges_;
  std::vector<std::unique_ptr<HistogramVec>> histograms_;
  std::vector<std::function<void(std::string&)>> collectors_;
};

// Exponential bucket bounds: start, start*factor, ... (count of them).
std::vector<double> ExponentialBuckets(double start, double factor, int count);

// Formats a sample value the way Prometheus clients do (integers without a decimal point, +Inf).
std::string FormatMetricValue(double v);

}  // namespace capstan
