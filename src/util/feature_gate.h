// util/feature_gate.h: feature gates as kube's component-base featuregate has them: a fixed set of
// named features, each with a default, a stage and possibly locked to its default, switched by
// --feature-gates ("Name=true,Other=false", optionally "kube:"-prefixed, repeatable). Set() applies
// kube's rules and texts: an unknown name is "unrecognized feature gate: X" (and nothing else is
// checked), a locked gate set away from its default is "cannot set feature gate X to false, feature
// is locked to true", several errors read "[e1, e2]"; GA and deprecated gates that are set produce
// kube's warning; AllAlpha/AllBeta switch every alpha/beta gate not named explicitly.
//
// Gates() is the process's gate set, kube-apiserver 1.32's gates (util/kube_features.inc); it is
// configured once at start from the command line, before serving, and read everywhere after that.
// Thread-safety: Set() before any reader starts; Enabled() and the accessors are const and safe.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace capstan {
class MetricsRegistry;
}

namespace capstan::features {

enum class Stage { kAlpha, kBeta, kGA, kDeprecated };

struct FeatureSpec {
  std::string_view name;
  bool default_value;
  Stage stage;
  bool locked;  // LockToDefault: may only be set to its default
};

// kube's stage label: "ALPHA", "BETA", "" (GA), "DEPRECATED".
std::string_view StageName(Stage s);

class FeatureGate {
 public:
  explicit FeatureGate(std::span<const FeatureSpec> known);

  // `values`: each --feature-gates occurrence. Returns kube's error text, "" when every value was
  // applied; on error nothing changes. Warnings (GA or deprecated gates being set) go to *warnings.
  std::string Set(const std::vector<std::string>& values, std::vector<std::string>* warnings = nullptr);

  // Whether the feature is on. A name the gate does not know is a programming error (CHECK).
  bool Enabled(std::string_view name) const;
  const FeatureSpec* Find(std::string_view name) const;
  std::span<const FeatureSpec> Known() const { return known_; }
  // "A=true,B=false" of the gates set explicitly, sorted, as kube logs them.
  std::string String() const;

 private:
  std::span<const FeatureSpec> known_;
  std::map<std::string, bool, std::less<>> enabled_;  // explicitly set, and those AllAlpha/AllBeta switched
};

std::span<const FeatureSpec> KubeApiserverFeatures();

// The process's gates (kube-apiserver 1.32's set).
FeatureGate& MutableGates();
inline const FeatureGate& Gates() { return MutableGates(); }
inline bool Enabled(std::string_view name) { return Gates().Enabled(name); }

// kube's kubernetes_feature_enabled{name,stage} gauge: 1 or 0 for every gate.
void AddFeatureMetrics(const FeatureGate& gates, MetricsRegistry& registry);

}  // namespace capstan::features
