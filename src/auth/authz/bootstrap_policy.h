// auth/authz/bootstrap_policy.h: the default RBAC policy a cluster starts with, as kube 1.32's
// bootstrappolicy package defines it: the user-facing roles (cluster-admin, and admin, edit and view
// aggregated from system:aggregate-to-*), the system:* cluster roles of the control-plane components
// and discovery (system:discovery, system:basic-user, system:public-info-viewer, system:node, ...),
// their ClusterRoleBindings, and the namespaced roles and bindings in kube-system and kube-public.
//
// Every object carries the label kubernetes.io/bootstrapping=rbac-defaults and the annotation
// rbac.authorization.kubernetes.io/autoupdate=true, so reconciliation (setup/bootstrap_reconcile.h)
// may add what is missing at each start. The objects are built on each call; pure functions,
// thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <vector>

#include "auth/authz/policy_rule.h"

namespace capstan::authz {

inline constexpr const char* kAutoUpdateAnnotation = "rbac.authorization.kubernetes.io/autoupdate";
inline constexpr const char* kBootstrappingLabel = "kubernetes.io/bootstrapping";

struct BootstrapPolicy {
  std::vector<boost::json::object> cluster_roles;
  std::vector<boost::json::object> cluster_role_bindings;
  std::vector<boost::json::object> roles;          // with metadata.namespace
  std::vector<boost::json::object> role_bindings;  // with metadata.namespace
};

const BootstrapPolicy& DefaultBootstrapPolicy();

// The rules of system:node: what the Node authorizer grants nodes beyond its graph (kube's NodeRules).
std::vector<PolicyRule> NodeRules();

}  // namespace capstan::authz
