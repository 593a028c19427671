#include "util/metrics.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace capstan {

Histogram::Histogram(const std::vector<double>& bounds)
    : bounds_(bounds), buckets_(new std::atomic<uint64_t>[bounds.size()]) {
  for (size_t i = 0; i < bounds_.size(); ++i) buckets_[i].store(0);
}

void Histogram::Observe(double v) {
  for (size_t i = 0; i < bounds_.size(); ++i) {
    if (v <= bounds_[i]) {
      buckets_[i].fetch_add(1, std::memory_order_relaxed);
      break;
    }
  }
  count_.fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

uint64_t Histogram::CumulativeCount(size_t i) const {
  uint64_t total = 0;
  for (size_t j = 0; j <= i && j < bounds_.size(); ++j) total += buckets_[j].load(std::memory_order_relaxed);
  return total;
}

CounterVec& MetricsRegistry::NewCounterVec(std::string name, std::string help, std::vector<std::string> labels) {
  std::lock_guard lock(mu_);
  counters_.push_back(std::make_unique<CounterVec>(std::move(name), std::move(help), std::move(labels),
                                                   [] { return std::make_unique<Counter>(); }));
  return *counters_.back();
}

GaugeVec& MetricsRegistry::NewGaugeVec(std::string name, std::string help, std::vector<std::string> labels) {
  std::lock_guard lock(mu_);
  gauges_.push_back(std::make_unique<GaugeVec>(std::move(name), std::move(help), std::move(labels),
                                               [] { return std::make_unique<Gauge>(); }));
  return *gauges_.back();
}

HistogramVec& MetricsRegistry::NewHistogramVec(std::string name, std::string help, std::vector<std::string> labels,
                                               std::vector<double> bounds) {
  std::lock_guard lock(mu_);
  histograms_.push_back(std::make_unique<HistogramVec>(
      std::move(name), std::move(help), std::move(labels),
      [bounds = std::move(bounds)] { return std::make_unique<Histogram>(bounds); }));
  return *histograms_.back();
}

void MetricsRegistry::AddCollector(std::function<void(std::string&)> collect) {
  std::lock_guard lock(mu_);
  collectors_.push_back(std::move(collect));
}

std::string FormatMetricValue(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (std::isnan(v)) return "NaN";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

namespace {
void AppendEscapedLabel(std::string& out, const std::string& v) {
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out.push_back(c);
  }
}

void AppendLabels(std::string& out, const std::vector<std::string>& names, const LabelValues& values,
                  const char* extra_name = nullptr, const std::string& extra_value = {}) {
  if (names.empty() && !extra_name) return;
  out.push_back('{');
  bool first = true;
  for (size_t i = 0; i < names.size() && i < values.size(); ++i) {
    if (!first) out.push_back(',');
    first = false;
    out += names[i];
    out += "=\"";
    AppendEscapedLabel(out, values[i]);
    out.push_back('"');
  }
  if (extra_name) {
    if (!first) out.push_back(',');
    out += extra_name;
    out += "=\"";
    out += extra_value;
    out.push_back('"');
  }
  out.push_back('}');
}

template <class V>
void AppendHeader(std::string& out, const V& vec, const char* type) {
  out += "# HELP " + vec.name() + " " + vec.help() + "\n";
  out += "# TYPE " + vec.name() + " " + type + "\n";
}
}  // namespace

std::string MetricsRegistry::Expose() const {
  std::string out;
  std::lock_guard lock(mu_);
  for (const auto& c : counters_) {
    AppendHeader(out, *c, "counter");
    c->ForEach([&](const LabelValues& lv, const Counter& m) {
      out += c->name();
      AppendLabels(out, c->label_names(), lv);
      out += " " + FormatMetricValue(m.Value()) + "\n";
    });
  }
  for (const auto& g : gauges_) {
    AppendHeader(out, *g, "gauge");
    g->ForEach([&](const LabelValues& lv, const Gauge& m) {
      out += g->name();
      AppendLabels(out, g->label_names(), lv);
      out += " " + FormatMetricValue(m.Value()) + "\n";
    });
  }
  for (const auto& h : histograms_) {
    AppendHeader(out, *h, "histogram");
    h->ForEach([&](const LabelValues& lv, const Histogram& m) {
      for (size_t i = 0; i < m.bounds().size(); ++i) {
        out += h->name() + "_bucket";
        AppendLabels(out, h->label_names(), lv, "le", FormatMetricValue(m.bounds()[i]));
        out += " " + FormatMetricValue(static_cast<double>(m.CumulativeCount(i))) + "\n";
      }
      out += h->name() + "_bucket";
      AppendLabels(out, h->label_names(), lv, "le", "+Inf");
      out += " " + FormatMetricValue(static_cast<double>(m.Count())) + "\n";
      out += h->name() + "_sum";
      AppendLabels(out, h->label_names(), lv);
      out += " " + FormatMetricValue(m.Sum()) + "\n";
      out += h->name() + "_count";
      AppendLabels(out, h->label_names(), lv);
      out += " " + FormatMetricValue(static_cast<double>(m.Count())) + "\n";
    });
  }
  for (const auto& collect : collectors_) collect(out);
  return out;
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> b;
  double v = start;
  for (int i = 0; i < count; ++i, v *= factor) b.push_back(v);
  return b;
}

}  // namespace capstan
