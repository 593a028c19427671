// admission/pod_toleration_restriction.h: PodTolerationRestriction (off by default), as kube's:
// - a pod created in a namespace gets the namespace's default tolerations (the JSON list in its
//   annotation scheduler.alpha.kubernetes.io/defaultTolerations), or the configuration's `default`
//   when the namespace has no such annotation, merged into its own (a toleration another one covers
//   is dropped); a pod that is not BestEffort also gets node.kubernetes.io/memory-pressure:NoSchedule
//   (Exists), on creates and updates;
// - a pod with tolerations must then have each covered by the namespace's whitelist (annotation
//   scheduler.alpha.kubernetes.io/tolerationsWhitelist), or by the configuration's `whitelist` when
//   the namespace has none; an empty whitelist allows everything. A pod outside it is refused with
//   kube's plain error (a 500 with no reason): "pod tolerations (possibly merged with namespace
//   default tolerations) conflict with its namespace whitelist" ("cluster whitelist" for the
//   configuration's). The check runs again in the validating phase, after the other plugins' changes.
// The configuration is kind Configuration of podtolerationrestriction.admission.k8s.io/v1alpha1
// (none: no defaults, no whitelist). Namespaces are read through `lookup`. Thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "admission/namespace_lifecycle.h"
#include "admission/plugin.h"
#include "admission/tolerations.h"

namespace capstan::admission {

struct PluginDeps;

struct PodTolerationRestrictionConfig {
  std::vector<Toleration> default_tolerations;
  std::vector<Toleration> whitelist;
};

// Decodes and validates the configuration (nullopt: the empty one). Errors are kube's, e.g.
// "invalid config: [podtolerationrestriction.default[0].operator: Unsupported value: ...]".
StatusOr<PodTolerationRestrictionConfig> ParsePodTolerationRestrictionConfig(const std::optional<boost::json::value>& config);

// A namespace annotation's []v1.Toleration, decoded as encoding/json does (keys case-insensitive,
// unknown ones ignored; "null" is the empty list). Errors carry Go's texts.
StatusOr<std::vector<Toleration>> ParseTolerationsAnnotation(std::string_view text);

class PodTolerationRestriction : public Plugin {
 public:
  PodTolerationRestriction(PodTolerationRestrictionConfig config, NamespaceLookup lookup)
      : config_(std::move(config)), lookup_(std::move(lookup)) {}
  std::string Name() const override { return "PodTolerationRestriction"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE"; }
  bool Mutating() const override { return true; }
  bool Validating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;
  Task<Status> Validate(const Attributes& a) override;

 private:
  // The tolerations in the namespace's annotation `key`; nullopt when it has no such annotation.
  Task<StatusOr<std::optional<std::vector<Toleration>>>> NamespaceTolerations(const std::string& ns,
                                                                             const char* key) const;

  const PodTolerationRestrictionConfig config_;
  NamespaceLookup lookup_;
};

// The plugin with --admission-control-config-file's PodTolerationRestriction entry; null when there
// is no namespace lookup (reported as not implemented); kube's start-up error for a bad configuration.
StatusOr<std::unique_ptr<Plugin>> NewPodTolerationRestrictionPlugin(const PluginDeps& deps);

}  // namespace capstan::admission
