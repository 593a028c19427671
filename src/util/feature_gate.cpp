#include "util/feature_gate.h"

#include <algorithm>

#include "util/check.h"
#include "util/metrics.h"
#include "util/strings.h"

namespace capstan::features {

namespace {

constexpr FeatureSpec kKubeApiserverFeatures[] = {
#include "util/kube_features.inc"
};

std::string BoolText(bool b) { return b ? "true" : "false"; }

}  // namespace

std::string_view StageName(Stage s) {
  switch (s) {
    case Stage::kAlpha: return "ALPHA";
    case Stage::kBeta: return "BETA";
    case Stage::kGA: return "";
    case Stage::kDeprecated: return "DEPRECATED";
  }
  return "";
}

FeatureGate::FeatureGate(std::span<const FeatureSpec> known) : known_(known) {
  auto by_name = [](const FeatureSpec& a, const FeatureSpec& b) { return a.name < b.name; };
  CAPSTAN_CHECK(std::is_sorted(known_.begin(), known_.end(), by_name));
}

const FeatureSpec* FeatureGate::Find(std::string_view name) const {
  auto it = std::lower_bound(known_.begin(), known_.end(), name,
                             [](const FeatureSpec& f, std::string_view n) { return f.name < n; });
  return it != known_.end() && it->name == name ? &*it : nullptr;
}

std::string FeatureGate::Set(const std::vector<std::string>& values, std::vector<std::string>* warnings) {
  // The flag: comma-separated [component:]Name=bool items; components other than kube are unknown.
  std::vector<std::pair<std::string, bool>> wanted;  // in order; a later value for a name wins
  bool prefixed = false, unprefixed = false;
  for (const std::string& value : values) {
    for (const std::string& raw : Split(value, ',')) {
      std::string_view item = TrimSpace(raw);
      if (item.empty()) continue;
      if (size_t colon = item.find(':'); colon != std::string_view::npos && colon < item.find('=')) {
        std::string_view component = TrimSpace(item.substr(0, colon));
        if (component != "kube") return "component not registered: " + std::string(component);
        prefixed = true;
        item = TrimSpace(item.substr(colon + 1));
      } else {
        unprefixed = true;
      }
      size_t eq = item.find('=');
      std::string key(TrimSpace(item.substr(0, eq)));
      if (eq == std::string_view::npos) return "missing bool value for " + key;
      std::string_view v = TrimSpace(item.substr(eq + 1));
      std::optional<bool> b = GoParseBool(v);
      if (!b) {
        return "invalid value of " + key + "=" + std::string(v) + ", err: strconv.ParseBool: parsing " +
               GoQuote(std::string(v)) + ": invalid syntax";
      }
      wanted.emplace_back(std::move(key), *b);
    }
  }
  if (prefixed && unprefixed) return "set kube feature gates with default empty prefix or kube: prefix consistently, do not mix use";
  std::map<std::string, bool, std::less<>> explicit_values;
  for (auto& [k, v] : wanted) explicit_values[k] = v;

  // kube stops at the first unknown name; locked gates are all reported.
  std::vector<std::string> errs;
  for (const auto& [k, v] : explicit_values) {
    if (!Find(k)) return "unrecognized feature gate: " + k;
  }
  std::vector<std::string> warns;
  for (const auto& [k, v] : explicit_values) {
    const FeatureSpec& spec = *Find(k);
    if (spec.locked && spec.default_value != v) {
      errs.push_back("cannot set feature gate " + k + " to " + BoolText(v) + ", feature is locked to " +
                     BoolText(spec.default_value));
      continue;
    }
    if (spec.stage == Stage::kDeprecated) {
      warns.push_back("Setting deprecated feature gate " + k + "=" + BoolText(v) + ". It will be removed in a future release.");
    } else if (spec.stage == Stage::kGA) {
      warns.push_back("Setting GA feature gate " + k + "=" + BoolText(v) + ". It will be removed in a future release.");
    }
  }
  if (errs.size() == 1) return errs.front();
  if (!errs.empty()) return "[" + Join(errs, ", ") + "]";

  std::map<std::string, bool, std::less<>> next = enabled_;
  for (const auto& [k, v] : explicit_values) next[k] = v;
  // AllAlpha / AllBeta switch the gates of their stage that are not named explicitly.
  for (auto [special, stage] : {std::pair{"AllAlpha", Stage::kAlpha}, std::pair{"AllBeta", Stage::kBeta}}) {
    auto it = explicit_values.find(special);
    if (it == explicit_values.end()) continue;
    for (const auto& f : known_) {
      if (f.stage != stage || f.name == "AllAlpha" || f.name == "AllBeta") continue;
      if (!explicit_values.count(f.name)) next[std::string(f.name)] = it->second;
    }
  }
  enabled_ = std::move(next);
  if (warnings) warnings->insert(warnings->end(), warns.begin(), warns.end());
  return "";
}

bool FeatureGate::Enabled(std::string_view name) const {
  const FeatureSpec* spec = Find(name);
  CAPSTAN_CHECK(spec != nullptr);
  auto it = enabled_.find(name);
  return it == enabled_.end() ? spec->default_value : it->second;
}

std::string FeatureGate::String() const {
  std::vector<std::string> pairs;
  for (const auto& [k, v] : enabled_) pairs.push_back(k + "=" + BoolText(v));
  return Join(pairs, ",");
}

void AddFeatureMetrics(const FeatureGate& gates, MetricsRegistry& registry) {
  GaugeVec& enabled = registry.NewGaugeVec(
      "kubernetes_feature_enabled", "This metric records the data about the stage and enablement of a k8s feature.",
      {"name", "stage"});
  for (const auto& f : gates.Known()) {
    enabled.With({std::string(f.name), std::string(StageName(f.stage))})->Set(gates.Enabled(f.name) ? 1 : 0);
  }
}

std::span<const FeatureSpec> KubeApiserverFeatures() { return kKubeApiserverFeatures; }

FeatureGate& MutableGates() {
  static FeatureGate gates(kKubeApiserverFeatures);
  return gates;
}

}  // namespace capstan::features
