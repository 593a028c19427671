// auth/authz/node_authorizer.h: the Node authorizer (kube's node.NodeAuthorizer) for kubelets, users
// named system:node:<name> in the group system:nodes.
//
// A node may read the secrets, configmaps, persistentvolumeclaims and persistentvolumes that pods
// bound to it reference (the graph: pod → secret/configmap/pvc, pvc → pv), its own Node object, and
// request service-account tokens for its pods' service accounts; everything else it may do is
// exactly kube's NodeRules (the system:node cluster role), which no RBAC binding has to grant.
// The graph is fed from informers (setup/policy_informers.h) with SetPod/DeletePod and
// SetPvc/DeletePvc.
//
// Thread-safety: decisions take a shared lock on the graph; updates an exclusive one.
#pragma once

#include <boost/json/object.hpp>
#include <map>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "auth/authz/authorizer.h"
#include "auth/authz/policy_rule.h"

namespace capstan::authz {

inline constexpr const char* kNodesGroup = "system:nodes";
inline constexpr const char* kNodeUserPrefix = "system:node:";

// kube's NodeIdentifier: the node name of a node user ("" when in system:nodes without the prefix),
// or nullopt when the user is not a node.
std::optional<std::string> NodeIdentity(const http::UserInfo& user);

class NodeAuthorizer : public Authorizer {
 public:
  NodeAuthorizer();

  Task<Result> Authorize(const Attributes& a) override { co_return Decide(a); }
  Result Decide(const Attributes& a) const;
  // Nodes' rules cannot be listed (kube answers incomplete with an error).
  RulesResult RulesFor(const http::UserInfo& user, const std::string& namespace_) const override;

  // Graph updates from a Pod or PersistentVolumeClaim object (JSON as stored).
  void SetPod(const boost::json::object& pod);
  void DeletePod(const std::string& ns, const std::string& name);
  void SetPvc(const boost::json::object& pvc);
  void DeletePvc(const std::string& ns, const std::string& name);

  // Whether `node` reaches the object ("secret", "configmap", "pvc", "pv", "serviceaccount", "pod").
  bool HasPath(const std::string& node, const std::string& type, const std::string& ns, const std::string& name) const;

 private:
  struct PodEntry {
    std::string node;
    std::vector<std::string> refs;  // "<type>/<ns>/<name>"
  };
  void AddRefsLocked(const std::string& node, const std::vector<std::string>& refs, int delta);
  Result ReadNamespaced(const std::string& node, const char* type, const Attributes& a) const;
  Result GetOnly(const std::string& node, const char* type, const Attributes& a) const;
  Result Check(const std::string& node, const char* type, const Attributes& a) const;

  std::vector<PolicyRule> node_rules_;
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, PodEntry> pods_;                           // "<ns>/<name>"
  std::unordered_map<std::string, std::string> pvc_volume_;                  // "<ns>/<name>" → pv name
  std::unordered_map<std::string, std::map<std::string, int>> node_refs_;    // node → ref → count
};

}  // namespace capstan::authz
