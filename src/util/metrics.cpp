#include "util/metrics.h"

#include "util/go_float.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <regex>

namespace capstan {

namespace {
struct KubeMetricStability {
  std::string_view name;
  MetricStability stability;
  std::string_view deprecated_version;
};
constexpr KubeMetricStability kKubeMetricStability[] = {
#include "util/kube_metric_stability.inc"
};

const KubeMetricStability* FindStability(std::string_view name) {
  auto it = std::lower_bound(std::begin(kKubeMetricStability), std::end(kKubeMetricStability), name,
                             [](const KubeMetricStability& e, std::string_view n) { return e.name < n; });
  return it != std::end(kKubeMetricStability) && it->name == name ? it : nullptr;
}

std::string_view StabilityName(MetricStability s) {
  switch (s) {
    case MetricStability::kAlpha: return "ALPHA";
    case MetricStability::kBeta: return "BETA";
    case MetricStability::kStable: return "STABLE";
  }
  return "ALPHA";
}

// The minor version of "1.27.0"; -1 when it is not one.
int MinorOf(std::string_view version) {
  auto dot = version.find('.');
  if (dot == std::string_view::npos) return -1;
  int minor = 0;
  for (size_t i = dot + 1; i < version.size() && version[i] != '.'; ++i) {
    if (version[i] < '0' || version[i] > '9') return -1;
    minor = minor * 10 + (version[i] - '0');
  }
  return minor;
}
}  // namespace

MetricStability StabilityOf(std::string_view name) {
  const auto* e = FindStability(name);
  return e ? e->stability : MetricStability::kAlpha;
}

std::string_view DeprecatedVersionOf(std::string_view name) {
  const auto* e = FindStability(name);
  return e ? e->deprecated_version : std::string_view();
}

std::string MetricsRegistry::AnnotatedHelp(std::string_view name, std::string_view help) {
  std::string out = "[" + std::string(StabilityName(StabilityOf(name))) + "] ";
  if (auto dv = DeprecatedVersionOf(name); !dv.empty()) out += "(Deprecated since " + std::string(dv) + ") ";
  out += help;
  return out;
}

std::string ParseShowHiddenMetricsVersion(std::string_view value, MetricsExposure& out) {
  if (value.empty()) return {};
  std::string valid = "1." + std::to_string(out.current_minor - 1);
  if (value != valid) {
    return "--show-hidden-metrics-for-version must be omitted or have the value '" + valid +
           "'. Only the previous minor version is allowed";
  }
  out.show_hidden = true;
  return {};
}

std::string AddAllowedMetricLabels(std::string_view key, std::string_view values, MetricsExposure& out) {
  static const std::regex kKey("[a-zA-Z_:][a-zA-Z0-9_:]*,[a-zA-Z_][a-zA-Z0-9_]*");
  std::string k(key);
  if (!std::regex_match(k, kKey)) {
    return "--allow-metric-labels must have a list of kv pair with format `metricName,labelName=labelValue, "
           "labelValue,...`";
  }
  auto comma = k.find(',');
  auto& allowed = out.allowed_labels[k.substr(0, comma)][k.substr(comma + 1)];
  allowed.clear();
  std::string_view rest = values;
  while (true) {
    auto c = rest.find(',');
    allowed.emplace(rest.substr(0, c));
    if (c == std::string_view::npos) break;
    rest.remove_prefix(c + 1);
  }
  return {};
}

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

void Histogram::Reset() {
  for (size_t i = 0; i < bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
  count_.store(0, std::memory_order_relaxed);
  sum_.store(0, std::memory_order_relaxed);
}

void MetricsRegistry::Reset() {
  std::lock_guard lock(mu_);
  for (auto& c : counters_) c->Reset();
  for (auto& g : gauges_) g->Reset();
  for (auto& h : histograms_) h->Reset();
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
  ApplyAllowList(*counters_.back());
  return *counters_.back();
}

GaugeVec& MetricsRegistry::NewGaugeVec(std::string name, std::string help, std::vector<std::string> labels) {
  std::lock_guard lock(mu_);
  gauges_.push_back(std::make_unique<GaugeVec>(std::move(name), std::move(help), std::move(labels),
                                               [] { return std::make_unique<Gauge>(); }));
  ApplyAllowList(*gauges_.back());
  return *gauges_.back();
}

HistogramVec& MetricsRegistry::NewHistogramVec(std::string name, std::string help, std::vector<std::string> labels,
                                               std::vector<double> bounds) {
  std::lock_guard lock(mu_);
  histograms_.push_back(std::make_unique<HistogramVec>(
      std::move(name), std::move(help), std::move(labels),
      [bounds = std::move(bounds)] { return std::make_unique<Histogram>(bounds); }));
  ApplyAllowList(*histograms_.back());
  return *histograms_.back();
}

void MetricsRegistry::AddCollector(std::function<void(std::string&)> collect, std::string name) {
  std::lock_guard lock(mu_);
  collectors_.push_back({std::move(collect), std::move(name)});
}

template <class V>
void MetricsRegistry::ApplyAllowList(V& vec) const {
  auto it = exposure_.allowed_labels.find(vec.name());
  if (it == exposure_.allowed_labels.end()) return;
  LabelAllowList allow(vec.label_names().size());
  for (size_t i = 0; i < vec.label_names().size(); ++i) {
    if (auto l = it->second.find(vec.label_names()[i]); l != it->second.end()) allow[i] = l->second;
  }
  vec.SetAllowList(std::move(allow));
}

void MetricsRegistry::Configure(MetricsExposure exposure) {
  std::lock_guard lock(mu_);
  exposure_ = std::move(exposure);
  for (auto& c : counters_) ApplyAllowList(*c);
  for (auto& g : gauges_) ApplyAllowList(*g);
  for (auto& h : histograms_) ApplyAllowList(*h);
}

// component-base's rule: disabled families are never shown; a family deprecated before the previous
// minor release is hidden unless hidden metrics are shown.
bool MetricsRegistry::Exposed(const std::string& name) const {
  if (exposure_.disabled.count(name)) return false;
  auto dv = DeprecatedVersionOf(name);
  if (dv.empty() || exposure_.show_hidden) return true;
  int minor = MinorOf(dv);
  return minor < 0 || minor >= exposure_.current_minor;
}

// client_golang's writeFloat: strconv.FormatFloat(v, 'g', -1, 64), so 0.1 and 1e+06 as kube prints them.
std::string FormatMetricValue(double v) { return FormatFloatG(v); }

namespace {
void AppendEscapedLabel(std::string& out, const std::string& v) {
  for (char c : v) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out.push_back(c);
  }
}

// The label positions of a family in client_golang's order: sorted by label name.
std::vector<size_t> SortedLabelOrder(const std::vector<std::string>& names) {
  std::vector<size_t> order(names.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return names[a] < names[b]; });
  return order;
}

// `{name="value",...}` with the pairs in `order`, then the bucket's or quantile's own label last,
// as client_golang's text writer puts it.
void AppendLabels(std::string& out, const std::vector<std::string>& names, const std::vector<size_t>& order,
                  const LabelValues& values, const char* extra_name = nullptr, const std::string& extra_value = {}) {
  if (names.empty() && !extra_name) return;
  out.push_back('{');
  bool first = true;
  for (size_t i : order) {
    if (i >= values.size()) continue;
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

// A family's children in client_golang's order (its metricSorter): by the label values taken in
// label-name order.
template <class M>
std::vector<std::pair<const LabelValues*, const M*>> SortedChildren(const MetricVec<M>& vec,
                                                                   const std::vector<size_t>& order) {
  std::vector<std::pair<const LabelValues*, const M*>> children;
  vec.ForEach([&](const LabelValues& lv, const M& m) { children.emplace_back(&lv, &m); });
  std::sort(children.begin(), children.end(), [&](const auto& a, const auto& b) {
    for (size_t i : order) {
      if (i >= a.first->size() || i >= b.first->size()) break;
      if ((*a.first)[i] != (*b.first)[i]) return (*a.first)[i] < (*b.first)[i];
    }
    return false;
  });
  return children;
}

// Splits exposition text into its families (each from its "# HELP" line), keyed by name, so that
// collectors' text sorts among the registry's families. Samples before any HELP line belong to the
// family their name starts.
void AddFamilies(std::map<std::string, std::string>& families, std::string_view text) {
  std::string* current = nullptr;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl == std::string_view::npos ? text.size() : nl + 1);
    text.remove_prefix(line.size());
    std::string_view name;
    if (line.starts_with("# HELP ")) {
      name = line.substr(7);
      name = name.substr(0, name.find_first_of(" \n"));
      current = &families[std::string(name)];
    } else if (current == nullptr) {
      name = line.substr(0, line.find_first_of("{ \n"));
      current = &families[std::string(name)];
    }
    current->append(line);
    if (!line.ends_with('\n')) current->push_back('\n');
  }
}

template <class V>
void AppendHeader(std::string& out, const V& vec, const char* type) {
  out += "# HELP " + vec.name() + " " + MetricsRegistry::AnnotatedHelp(vec.name(), vec.help()) + "\n";
  out += "# TYPE " + vec.name() + " " + type + "\n";
}
}  // namespace

// registered_metrics_total, disabled_metrics_total and hidden_metrics_total as component-base counts
// them: each family once, by stability level and deprecation version.
void MetricsRegistry::AppendRegistrationCounts(std::string& out) const {
  std::map<std::pair<std::string, std::string>, int> registered;
  int disabled = 0, hidden = 0;
  auto count = [&](const std::string& name) {
    if (exposure_.disabled.count(name)) {
      ++disabled;
      return;
    }
    if (!Exposed(name)) {
      ++hidden;
      return;
    }
    registered[{std::string(StabilityName(StabilityOf(name))), std::string(DeprecatedVersionOf(name))}]++;
  };
  for (const auto& c : counters_) count(c->name());
  for (const auto& g : gauges_) count(g->name());
  for (const auto& h : histograms_) count(h->name());
  for (const auto& c : collectors_) {
    if (!c.name.empty()) count(c.name);
  }
  out += "# HELP registered_metrics_total " +
         AnnotatedHelp("registered_metrics_total", "The count of registered metrics broken by stability level and deprecation version.") +
         "\n# TYPE registered_metrics_total counter\n";
  for (const auto& [k, n] : registered) {
    out += "registered_metrics_total{deprecated_version=\"" + k.second + "\",stability_level=\"" + k.first + "\"} " +
           std::to_string(n) + "\n";
  }
  if (disabled > 0) {
    out += "# HELP disabled_metrics_total " + AnnotatedHelp("disabled_metrics_total", "The count of disabled metrics.") +
           "\n# TYPE disabled_metrics_total counter\ndisabled_metrics_total " + std::to_string(disabled) + "\n";
  }
  if (hidden > 0) {
    out += "# HELP hidden_metrics_total " + AnnotatedHelp("hidden_metrics_total", "The count of hidden metrics.") +
           "\n# TYPE hidden_metrics_total counter\nhidden_metrics_total " + std::to_string(hidden) + "\n";
  }
}

// client_golang's order: families sorted by name, each family's samples by their label values,
// each sample's labels by name.
std::string MetricsRegistry::Expose() const {
  std::map<std::string, std::string> families;
  std::lock_guard lock(mu_);
  auto scalar = [&](const auto& vec, const char* type) {
    if (vec.empty() || !Exposed(vec.name())) return;
    std::string& out = families[vec.name()];
    AppendHeader(out, vec, type);
    std::vector<size_t> order = SortedLabelOrder(vec.label_names());
    for (const auto& [lv, m] : SortedChildren(vec, order)) {
      out += vec.name();
      AppendLabels(out, vec.label_names(), order, *lv);
      out += " " + FormatMetricValue(m->Value()) + "\n";
    }
  };
  for (const auto& c : counters_) scalar(*c, "counter");
  for (const auto& g : gauges_) scalar(*g, "gauge");
  for (const auto& h : histograms_) {
    if (h->empty() || !Exposed(h->name())) continue;
    std::string& out = families[h->name()];
    AppendHeader(out, *h, "histogram");
    std::vector<size_t> order = SortedLabelOrder(h->label_names());
    for (const auto& [lv, m] : SortedChildren(*h, order)) {
      for (size_t i = 0; i < m->bounds().size(); ++i) {
        out += h->name() + "_bucket";
        AppendLabels(out, h->label_names(), order, *lv, "le", FormatMetricValue(m->bounds()[i]));
        out += " " + FormatMetricValue(static_cast<double>(m->CumulativeCount(i))) + "\n";
      }
      out += h->name() + "_bucket";
      AppendLabels(out, h->label_names(), order, *lv, "le", "+Inf");
      out += " " + FormatMetricValue(static_cast<double>(m->Count())) + "\n";
      out += h->name() + "_sum";
      AppendLabels(out, h->label_names(), order, *lv);
      out += " " + FormatMetricValue(m->Sum()) + "\n";
      out += h->name() + "_count";
      AppendLabels(out, h->label_names(), order, *lv);
      out += " " + FormatMetricValue(static_cast<double>(m->Count())) + "\n";
    }
  }
  for (const auto& c : collectors_) {
    if (!c.name.empty() && !Exposed(c.name)) continue;
    std::string text;
    c.collect(text);
    AddFamilies(families, text);
  }
  std::string counts;
  AppendRegistrationCounts(counts);
  AddFamilies(families, counts);
  std::string out;
  for (const auto& [name, text] : families) out += text;
  return out;
}

std::vector<double> ExponentialBuckets(double start, double factor, int count) {
  std::vector<double> b;
  double v = start;
  for (int i = 0; i < count; ++i, v *= factor) b.push_back(v);
  return b;
}

ConfigReloadMetrics::ConfigReloadMetrics(MetricsRegistry& m, const std::string& name, std::string reloads_help,
                                         std::string timestamp_help, std::string apiserver_id_hash)
    : reloads_(m.NewCounterVec("apiserver_" + name + "_config_controller_automatic_reloads_total", std::move(reloads_help),
                               {"status", "apiserver_id_hash"})),
      timestamp_(m.NewGaugeVec("apiserver_" + name + "_config_controller_automatic_reload_last_timestamp_seconds",
                               std::move(timestamp_help), {"status", "apiserver_id_hash"})),
      id_hash_(std::move(apiserver_id_hash)) {}

void ConfigReloadMetrics::Record(const char* status) {
  reloads_.With({status, id_hash_})->Inc();
  auto now = std::chrono::system_clock::now().time_since_epoch();
  timestamp_.With({status, id_hash_})->Set(std::chrono::duration<double>(now).count());
}

double ConfigReloadMetrics::Count(const std::string& status) const {
  const Counter* c = reloads_.Find({status, id_hash_});
  return c ? c->Value() : 0;
}

}  // namespace capstan
