#include "admission/builtin_plugins.h"

#include <algorithm>
#include <set>

#include "util/strings.h"

namespace capstan::admission {

const std::vector<std::string>& AllPluginsInOrder() {
  static const std::vector<std::string> kOrder = {
      "AlwaysAdmit", "NamespaceAutoProvision", "NamespaceLifecycle", "NamespaceExists", "LimitPodHardAntiAffinityTopology",
      "LimitRanger", "ServiceAccount", "NodeRestriction", "TaintNodesByCondition", "AlwaysPullImages",
      "ImagePolicyWebhook", "PodSecurity", "PodNodeSelector", "Priority", "DefaultTolerationSeconds",
      "PodTolerationRestriction", "EventRateLimit", "ExtendedResourceToleration", "PersistentVolumeLabel",
      "DefaultStorageClass", "StorageObjectInUseProtection", "OwnerReferencesPermissionEnforcement",
      "PersistentVolumeClaimResize", "RuntimeClass", "CertificateApproval", "CertificateSigning",
      "ClusterTrustBundleAttest", "CertificateSubjectRestriction", "DefaultIngressClass", "DenyServiceExternalIPs",
      "PodTopologyLabels", "MutatingAdmissionPolicy", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy",
      "ValidatingAdmissionWebhook", "ResourceQuota", "AlwaysDeny"};
  return kOrder;
}

const std::vector<std::string>& DefaultOnPlugins() {
  static const std::vector<std::string> kOn = {
      "NamespaceLifecycle", "LimitRanger", "ServiceAccount", "TaintNodesByCondition", "PodSecurity", "Priority",
      "DefaultTolerationSeconds", "DefaultStorageClass", "StorageObjectInUseProtection", "PersistentVolumeClaimResize",
      "RuntimeClass", "CertificateApproval", "CertificateSigning", "ClusterTrustBundleAttest",
      "CertificateSubjectRestriction", "DefaultIngressClass", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy",
      "ValidatingAdmissionWebhook", "ResourceQuota"};
  return kOn;
}

StatusOr<ChainBuild> BuildChain(const std::vector<std::string>& enable, const std::vector<std::string>& disable,
                                const PluginDeps& deps) {
  const auto& all = AllPluginsInOrder();
  std::set<std::string> on(DefaultOnPlugins().begin(), DefaultOnPlugins().end());
  for (const auto& n : enable) {
    if (std::find(all.begin(), all.end(), n) == all.end()) {
      return Status(400, "BadRequest", "enable-admission-plugins plugin \"" + n + "\" is unknown");
    }
    on.insert(n);
  }
  for (const auto& n : disable) {
    if (std::find(all.begin(), all.end(), n) == all.end()) {
      return Status(400, "BadRequest", "disable-admission-plugins plugin \"" + n + "\" is unknown");
    }
    on.erase(n);
  }
  ChainBuild out;
  std::vector<std::unique_ptr<Plugin>> plugins;
  for (const auto& name : all) {
    if (!on.count(name)) continue;
    if (name == "NamespaceLifecycle") {
      plugins.push_back(std::make_unique<NamespaceLifecycle>(deps.namespace_lookup));
    } else if (name != "AlwaysAdmit") {
      out.not_implemented.push_back(name);
    }
  }
  out.chain = std::make_unique<Chain>(std::move(plugins));
  return out;
}

}  // namespace capstan::admission
