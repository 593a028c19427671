// admission/node_restriction.h: NodeRestriction: what a kubelet (user system:node:<name> in the group
// system:nodes) may write, as kube-apiserver 1.32's plugin decides, with its messages (403 Forbidden):
//   - nodes: only its own Node; no spec.configSource; on create no label outside the kubelet's allowed
//     set (node-restriction.kubernetes.io/ and kubernetes.io / k8s.io labels other than kube's kubelet
//     labels and the [*.]kubelet.kubernetes.io / [*.]node.kubernetes.io namespaces); on update no change
//     of those labels and no change of spec.taints.
//   - pods: create only mirror pods (annotation kubernetes.io/config.mirror) bound to itself with one
//     controller ownerReference to its Node (matching UID, no blockOwnerDeletion) and no service
//     account, secret, configmap, cluster trust bundle or PVC reference; delete only pods bound to
//     itself; pods/status only of pods bound to it (labels and resourceClaimStatuses unchanged);
//     pods/eviction only of pods bound to it; no other pod subresource.
//   - persistentvolumeclaims: only status, and there only capacity, conditions and allocated resources.
//   - serviceaccounts/token: only bound to a pod (with its UID) scheduled on itself.
//   - leases: only in kube-node-lease, named after itself; csinodes: only the one named after itself.
// Other users and resources are left alone. Reads of pods and nodes go through the REST storages.
// Mutating phase (as kube's Admit); CREATE, UPDATE, DELETE. Thread-safe.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "admission/builtin_plugins.h"

namespace capstan::admission {

class NodeRestriction : public Plugin {
 public:
  explicit NodeRestriction(ObjectGetter get) : get_(std::move(get)) {}
  std::string Name() const override { return "NodeRestriction"; }
  bool Handles(const std::string& op) const override { return op == "CREATE" || op == "UPDATE" || op == "DELETE"; }
  bool Mutating() const override { return true; }
  Task<Status> Admit(Attributes& a) override;

 private:
  Task<Status> AdmitPod(const std::string& node, const Attributes& a);
  Task<Status> AdmitPodCreate(const std::string& node, const Attributes& a);
  Task<Status> AdmitPodStatus(const std::string& node, const Attributes& a);
  Task<Status> AdmitPodEviction(const std::string& node, const Attributes& a);
  Task<Status> AdmitPvcStatus(const std::string& node, const Attributes& a);
  Task<Status> AdmitNode(const std::string& node, const Attributes& a);
  Task<Status> AdmitServiceAccount(const std::string& node, const Attributes& a);
  Task<Status> AdmitLease(const std::string& node, const Attributes& a);
  Task<Status> AdmitCsiNode(const std::string& node, const Attributes& a);
  // The pod from the store: NotFound is returned as is, other errors as a 403.
  Task<StatusOr<registry::Object>> GetPod(const Attributes& a, const std::string& name);

  ObjectGetter get_;
};

// kube's NodeIdentifier: the node name of a user named system:node:<name> in the group system:nodes
// (possibly ""), nullopt for any other user.
std::optional<std::string> NodeNameOf(const UserInfo* user);

// kube's IsKubeletLabel: the label keys a kubelet may set on its own Node.
bool IsKubeletLabel(const std::string& key);
// The keys among `modified` a node may not add, change or remove, sorted.
std::vector<std::string> ForbiddenNodeLabels(const std::set<std::string>& modified);

}  // namespace capstan::admission
