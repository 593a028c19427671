// admission/pod_node_selector.h: PodNodeSelector (off by default): a pod created in a namespace is
// given that namespace's node selector, the namespace annotation
// scheduler.alpha.kubernetes.io/node-selector ("env=prod,tier=web"), or the configuration's
// clusterDefaultNodeSelector when the namespace has no such annotation; a pod whose own nodeSelector
// gives one of those labels another value is refused (403 "pod node label selector conflicts with its
// namespace node label selector"). The configuration may also give, per namespace name, the labels
// pods there may select at all (a whitelist): a pod selecting any other label or value is refused (403
// "pod node label selector labels conflict with its namespace whitelist"). Only creates, as kube's:
// an update keeps whatever selector the pod has. The configuration is kube's unversioned one
// (a file of `podNodeSelectorPluginConfig: {clusterDefaultNodeSelector: ..., <namespace>: ...}`,
// read leniently: what does not decode is ignored). Namespaces are read through `lookup`. Thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "admission/namespace_lifecycle.h"
#include "admission/plugin.h"

namespace capstan::admission {

struct PluginDeps;

// Label key → value, sorted (kube's labels.Set).
using LabelSet = std::map<std::string, std::string>;

// kube's labels.ConvertSelectorToLabelsMap: "a=b, c=d" (only =, no spaces inside keys); an empty
// string is the empty set. Errors are kube's plain texts ("invalid selector: [a]", or a field error
// for a bad key or value), which kube-apiserver answers as 500s.
StatusOr<LabelSet> ConvertSelectorToLabelsMap(std::string_view selector);

// The podNodeSelectorPluginConfig map (key matched case-insensitively, as Go's encoding/json does);
// nullopt, null or anything else: empty.
std::map<std::string, std::string> ParsePodNodeSelectorConfig(const std::optional<boost::json::value>& config);

class PodNodeSelector : public Plugin {
 public:
  PodNodeSelector(std::map<std::string, std::string> cluster_node_selectors, NamespaceLookup lookup)
      : cluster_(std::move(cluster_node_selectors)), lookup_(std::move(lookup)) {}
  std::string Name() const override { return "PodNodeSelector"; }
  bool Handles(const std::string& op) const override { return op == "CREATE"; }
  bool Mutating() const override { return true; }
  bool Validating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;
  Task<Status> Validate(const Attributes& a) override;

 private:
  // The namespace's node selector: its annotation, else the cluster default.
  Task<StatusOr<LabelSet>> NamespaceSelector(const std::string& ns) const;
  // That selector, or 403 when the pod's nodeSelector gives one of its labels another value.
  Task<StatusOr<LabelSet>> CheckedNamespaceSelector(const Attributes& a) const;

  const std::map<std::string, std::string> cluster_;
  NamespaceLookup lookup_;
};

// The plugin with --admission-control-config-file's PodNodeSelector entry; null when there is no
// namespace lookup (the plugin is then reported as not implemented).
StatusOr<std::unique_ptr<Plugin>> NewPodNodeSelectorPlugin(const PluginDeps& deps);

}  // namespace capstan::admission
