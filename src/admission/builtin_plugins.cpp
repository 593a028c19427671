#include "admission/builtin_plugins.h"

#include <map>

#include <algorithm>
#include <set>

#include "admission/always_plugins.h"
#include "admission/certificate_approval.h"
#include "admission/certificate_signing.h"
#include "admission/cluster_trust_bundle_attest.h"
#include "admission/node_restriction.h"
#include "admission/storage_object_in_use_protection.h"
#include "admission/taint_nodes_by_condition.h"
#include "admission/certificate_subject_restriction.h"
#include "admission/default_ingress_class.h"
#include "admission/default_storage_class.h"
#include "admission/runtime_class.h"
#include "admission/default_toleration_seconds.h"
#include "admission/event_rate_limit.h"
#include "admission/limit_ranger.h"
#include "admission/pod_node_selector.h"
#include "admission/pod_security_factory.h"
#include "admission/pod_toleration_restriction.h"
#include "admission/priority.h"
#include "admission/pvc_resize.h"
#include "admission/resource_quota.h"
#include "admission/service_account.h"
#include "admission/spec_policy_plugins.h"
#include "admission/image_policy_webhook.h"
#include "admission/validating_admission_policy.h"
#include "admission/webhook_plugins.h"
#include "util/feature_gate.h"
#include "util/strings.h"

namespace capstan::admission {

const std::vector<std::string>& AllPluginsInOrder() {
  static const std::vector<std::string> kOrder = {
      "AlwaysAdmit", "NamespaceAutoProvision", "NamespaceLifecycle", "NamespaceExists", "LimitPodHardAntiAffinityTopology",
      "LimitRanger", "ServiceAccount", "NodeRestriction", "TaintNodesByCondition", "AlwaysPullImages",
      "ImagePolicyWebhook", "PodSecurity", "PodNodeSelector", "Priority", "DefaultTolerationSeconds",
      "PodTolerationRestriction", "EventRateLimit", "ExtendedResourceToleration",
      "DefaultStorageClass", "StorageObjectInUseProtection", "OwnerReferencesPermissionEnforcement",
      "PersistentVolumeClaimResize", "RuntimeClass", "CertificateApproval", "CertificateSigning",
      "ClusterTrustBundleAttest", "CertificateSubjectRestriction", "DefaultIngressClass", "DenyServiceExternalIPs",
      "MutatingAdmissionPolicy", "MutatingAdmissionWebhook", "ValidatingAdmissionPolicy",
      "ValidatingAdmissionWebhook", "ResourceQuota", "AlwaysDeny"};
  return kOrder;
}

namespace {

template <class P>
std::unique_ptr<Plugin> Make() {
  return std::make_unique<P>();
}

// The plugins that need nothing but their name; null for every other name.
std::unique_ptr<Plugin> StatelessPlugin(const std::string& name) {
  static const std::map<std::string, std::unique_ptr<Plugin> (*)()> kFactories = {
      {"TaintNodesByCondition", &Make<TaintNodesByCondition>},
      {"StorageObjectInUseProtection", &Make<StorageObjectInUseProtection>},
      {"CertificateSubjectRestriction", &Make<CertificateSubjectRestriction>},
      {"AlwaysPullImages", &Make<AlwaysPullImages>},
      {"AlwaysDeny", &Make<AlwaysDeny>},
      {"DenyServiceExternalIPs", &Make<DenyServiceExternalIPs>},
      {"LimitPodHardAntiAffinityTopology", &Make<LimitPodHardAntiAffinityTopology>},
      {"ExtendedResourceToleration", &Make<ExtendedResourceToleration>},
  };
  auto it = kFactories.find(name);
  return it == kFactories.end() ? nullptr : it->second();
}

}  // namespace

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
  std::shared_ptr<WebhookCaller> caller;
  if (deps.webhook_source && (on.count("MutatingAdmissionWebhook") || on.count("ValidatingAdmissionWebhook"))) {
    WebhookCallerDeps wd = deps.webhook;
    wd.namespace_lookup = deps.namespace_lookup;
    caller = std::make_shared<WebhookCaller>(std::move(wd));
  }
  for (const auto& name : all) {
    if (!on.count(name)) continue;
    if (auto stateless = StatelessPlugin(name)) {
      plugins.push_back(std::move(stateless));
    } else if (name == "NamespaceLifecycle") {
      plugins.push_back(std::make_unique<NamespaceLifecycle>(deps.namespace_lookup));
    } else if (name == "NamespaceAutoProvision" && deps.namespace_lookup && deps.create_namespace) {
      plugins.push_back(std::make_unique<NamespaceAutoProvision>(deps.namespace_lookup, deps.create_namespace));
    } else if (name == "NamespaceExists" && deps.namespace_lookup) {
      plugins.push_back(std::make_unique<NamespaceExists>(deps.namespace_lookup));
    } else if (name == "LimitRanger" && deps.list) {
      plugins.push_back(std::make_unique<LimitRanger>(deps.list));
    } else if (name == "Priority" && deps.get && deps.list) {
      plugins.push_back(std::make_unique<PriorityPlugin>(deps.get, deps.list));
    } else if (name == "PodSecurity") {
      auto ps = NewPodSecurityPlugin(deps);
      if (!ps.ok()) return ps.status();
      plugins.push_back(std::move(*ps));
    } else if (name == "ImagePolicyWebhook") {
      auto ipw = NewImagePolicyWebhookPlugin(deps);
      if (!ipw.ok()) return ipw.status();
      plugins.push_back(std::move(*ipw));
    } else if (name == "EventRateLimit") {
      auto erl = NewEventRateLimitPlugin(deps);
      if (!erl.ok()) return erl.status();
      plugins.push_back(std::move(*erl));
    } else if (name == "PodNodeSelector" && deps.namespace_lookup) {
      auto pns = NewPodNodeSelectorPlugin(deps);
      if (!pns.ok()) return pns.status();
      plugins.push_back(std::move(*pns));
    } else if (name == "PodTolerationRestriction" && deps.namespace_lookup) {
      auto ptr = NewPodTolerationRestrictionPlugin(deps);
      if (!ptr.ok()) return ptr.status();
      plugins.push_back(std::move(*ptr));
    } else if (name == "NodeRestriction" && deps.get) {
      plugins.push_back(std::make_unique<NodeRestriction>(deps.get));
    } else if (name == "CertificateApproval" && deps.authorize) {
      plugins.push_back(std::make_unique<CertificateApproval>(deps.authorize));
    } else if (name == "ClusterTrustBundleAttest" && deps.authorize) {
      plugins.push_back(std::make_unique<ClusterTrustBundleAttest>(deps.authorize, features::Enabled("ClusterTrustBundle")));
    } else if (name == "CertificateSigning" && deps.authorize) {
      plugins.push_back(std::make_unique<CertificateSigning>(deps.authorize));
    } else if (name == "OwnerReferencesPermissionEnforcement" && deps.authorize && deps.map_kind) {
      plugins.push_back(std::make_unique<OwnerReferencesPermissionEnforcement>(deps.authorize, deps.map_kind));
    } else if (name == "PersistentVolumeClaimResize" && deps.get) {
      plugins.push_back(std::make_unique<PersistentVolumeClaimResize>(deps.get));
    } else if (name == "RuntimeClass" && deps.get) {
      plugins.push_back(std::make_unique<RuntimeClassPlugin>(deps.get));
    } else if (name == "DefaultIngressClass" && deps.list) {
      plugins.push_back(std::make_unique<DefaultIngressClass>(deps.list));
    } else if (name == "DefaultTolerationSeconds") {
      plugins.push_back(std::make_unique<DefaultTolerationSeconds>(deps.not_ready_toleration_seconds,
                                                                   deps.unreachable_toleration_seconds));
    } else if (name == "ServiceAccount" && deps.get) {
      plugins.push_back(std::make_unique<ServiceAccountPlugin>(deps.get));
    } else if (name == "DefaultStorageClass" && deps.list) {
      plugins.push_back(std::make_unique<DefaultStorageClass>(deps.list));
    } else if (name == "MutatingAdmissionWebhook" && caller) {
      plugins.push_back(std::make_unique<MutatingWebhookPlugin>(deps.webhook_source, caller));
    } else if (name == "ValidatingAdmissionPolicy" && deps.list) {
      plugins.push_back(std::make_unique<ValidatingAdmissionPolicyPlugin>(deps.list, deps.get, deps.namespace_lookup,
                                                                        deps.webhook.metrics));
    } else if (name == "ValidatingAdmissionWebhook" && caller) {
      plugins.push_back(std::make_unique<ValidatingWebhookPlugin>(deps.webhook_source, caller));
    } else if (name == "ResourceQuota" && deps.get && deps.list && deps.update) {
      auto rq = NewResourceQuotaPlugin(deps);
      if (!rq.ok()) return rq.status();
      plugins.push_back(std::move(*rq));
    } else if (name != "AlwaysAdmit") {
      out.not_implemented.push_back(name);
    }
  }
  out.chain = std::make_unique<Chain>(std::move(plugins));
  return out;
}

}  // namespace capstan::admission
