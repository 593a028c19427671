#include "controllers/selection.h"

#include <algorithm>
#include <map>
#include <set>

#include "util/strings.h"

namespace capstan::controllers {

namespace {

// kube-controller-manager 1.32's controllers (canonical names), with cloud-provider's three.
const std::set<std::string, std::less<>>& KnownControllers() {
  static const std::set<std::string, std::less<>> kKnown = {
      "serviceaccount-token-controller",
      "endpoints-controller",
      "endpointslice-controller",
      "endpointslice-mirroring-controller",
      "replicationcontroller-controller",
      "pod-garbage-collector-controller",
      "resourcequota-controller",
      "namespace-controller",
      "serviceaccount-controller",
      "garbage-collector-controller",
      "daemonset-controller",
      "job-controller",
      "deployment-controller",
      "replicaset-controller",
      "horizontal-pod-autoscaler-controller",
      "disruption-controller",
      "statefulset-controller",
      "cronjob-controller",
      "certificatesigningrequest-signing-controller",
      "certificatesigningrequest-approving-controller",
      "certificatesigningrequest-cleaner-controller",
      "ttl-controller",
      "bootstrap-signer-controller",
      "token-cleaner-controller",
      "node-ipam-controller",
      "node-lifecycle-controller",
      "taint-eviction-controller",
      "persistentvolume-binder-controller",
      "persistentvolume-attach-detach-controller",
      "persistentvolume-expander-controller",
      "clusterrole-aggregation-controller",
      "persistentvolumeclaim-protection-controller",
      "persistentvolume-protection-controller",
      "ttl-after-finished-controller",
      "root-ca-certificate-publisher-controller",
      "ephemeral-volume-controller",
      "storageversion-garbage-collector-controller",
      "resourceclaim-controller",
      "legacy-serviceaccount-token-cleaner-controller",
      "validatingadmissionpolicy-status-controller",
      "service-cidr-controller",
      "storage-version-migrator-controller",
      "selinux-warning-controller",
      "volumeattributesclass-protection-controller",
      "kube-apiserver-serving-clustertrustbundle-publisher-controller",
      "service-lb-controller",
      "node-route-controller",
      "cloud-node-lifecycle-controller",
  };
  return kKnown;
}

const std::map<std::string, std::string, std::less<>>& Aliases() {
  static const std::map<std::string, std::string, std::less<>> kAliases = {
      {"serviceaccount-token", "serviceaccount-token-controller"},
      {"endpoint", "endpoints-controller"},
      {"endpointslice", "endpointslice-controller"},
      {"endpointslicemirroring", "endpointslice-mirroring-controller"},
      {"replicationcontroller", "replicationcontroller-controller"},
      {"podgc", "pod-garbage-collector-controller"},
      {"resourcequota", "resourcequota-controller"},
      {"namespace", "namespace-controller"},
      {"serviceaccount", "serviceaccount-controller"},
      {"garbagecollector", "garbage-collector-controller"},
      {"daemonset", "daemonset-controller"},
      {"job", "job-controller"},
      {"deployment", "deployment-controller"},
      {"replicaset", "replicaset-controller"},
      {"horizontalpodautoscaling", "horizontal-pod-autoscaler-controller"},
      {"disruption", "disruption-controller"},
      {"statefulset", "statefulset-controller"},
      {"cronjob", "cronjob-controller"},
      {"csrsigning", "certificatesigningrequest-signing-controller"},
      {"csrapproving", "certificatesigningrequest-approving-controller"},
      {"csrcleaner", "certificatesigningrequest-cleaner-controller"},
      {"ttl", "ttl-controller"},
      {"bootstrapsigner", "bootstrap-signer-controller"},
      {"tokencleaner", "token-cleaner-controller"},
      {"nodeipam", "node-ipam-controller"},
      {"nodelifecycle", "node-lifecycle-controller"},
      {"service", "service-lb-controller"},
      {"route", "node-route-controller"},
      {"cloud-node-lifecycle", "cloud-node-lifecycle-controller"},
      {"persistentvolume-binder", "persistentvolume-binder-controller"},
      {"attachdetach", "persistentvolume-attach-detach-controller"},
      {"persistentvolume-expander", "persistentvolume-expander-controller"},
      {"clusterrole-aggregation", "clusterrole-aggregation-controller"},
      {"pvc-protection", "persistentvolumeclaim-protection-controller"},
      {"pv-protection", "persistentvolume-protection-controller"},
      {"ttl-after-finished", "ttl-after-finished-controller"},
      {"root-ca-cert-publisher", "root-ca-certificate-publisher-controller"},
      {"ephemeral-volume", "ephemeral-volume-controller"},
      {"storage-version-gc", "storageversion-garbage-collector-controller"},
      {"resource-claim-controller", "resourceclaim-controller"},
      {"legacy-service-account-token-cleaner", "legacy-serviceaccount-token-cleaner-controller"},
  };
  return kAliases;
}

// kube's ControllersDisabledByDefault.
bool DisabledByDefault(std::string_view canonical) {
  return canonical == "bootstrap-signer-controller" || canonical == "token-cleaner-controller" ||
         canonical == "selinux-warning-controller" ||
         canonical == "kube-apiserver-serving-clustertrustbundle-publisher-controller";
}

}  // namespace

std::vector<std::string> DefaultControllerSelection() { return {"*", std::string(kTokenCleanerController)}; }

const std::vector<std::string_view>& ImplementedControllers() {
  static const std::vector<std::string_view> kImplemented = {
      kNamespaceController, kGarbageCollectorController, kServiceAccountController,
      kRootCACertificatePublisherController, kTokenCleanerController, "clusterrole-aggregation-controller",
      kServiceAccountTokenController,
      "persistentvolumeclaim-protection-controller", "persistentvolume-protection-controller",
      "resourcequota-controller"};
  return kImplemented;
}

std::string CanonicalControllerName(std::string_view name) {
  if (auto it = Aliases().find(name); it != Aliases().end()) return it->second;
  if (KnownControllers().count(name)) return std::string(name);
  return "";
}

Status ValidateControllerSelection(const std::vector<std::string>& selection) {
  for (const auto& entry : selection) {
    if (entry == "*") continue;
    std::string_view name = entry;
    if (StartsWith(name, "-")) name.remove_prefix(1);
    if (CanonicalControllerName(name).empty()) {
      return Status(400, "BadRequest", GoQuote(name) + " is not in the list of known controllers");
    }
  }
  return Status();
}

bool IsControllerEnabled(std::string_view canonical_name, const std::vector<std::string>& selection) {
  bool star = false;
  for (const auto& entry : selection) {
    if (entry == "*") {
      star = true;
      continue;
    }
    bool disable = StartsWith(entry, "-");
    std::string name = CanonicalControllerName(disable ? std::string_view(entry).substr(1) : std::string_view(entry));
    if (name != canonical_name) continue;
    return !disable;
  }
  return star && !DisabledByDefault(canonical_name);
}

}  // namespace capstan::controllers
