// api/rbac/rbac.h: rbac.authorization.k8s.io/v1: roles, clusterroles, rolebindings and
// clusterrolebindings, with kube's defaults (roleRef and User/Group subjects get the RBAC apiGroup),
// validation (pkg/apis/rbac/validation) and printers (bindings: ROLE, AGE; wide: USERS, GROUPS,
// SERVICEACCOUNTS; roles: the default NAME, CREATED AT).
//
// Escalation prevention (kube's policybased storages) needs the authorizer and the current RBAC
// rules, which live above this layer: cmd/ passes an EscalationGuard that every create and update
// of the four resources goes through before mutating admission. Thread-safe.
#pragma once

#include <functional>
#include <vector>

#include "registry/admission_hook.h"
#include "registry/rest_resource.h"

namespace capstan::api::rbac {

// Checks a create (old_object null) or update of a Role, ClusterRole, RoleBinding or
// ClusterRoleBinding (attrs.resource->resource says which); a 403 Forbidden Status refuses it.
using EscalationGuard = std::function<Task<Status>(const registry::AdmissionAttributes& attrs)>;

struct RbacApiOptions {
  EscalationGuard guard;  // unset: no escalation checks
};

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps, RbacApiOptions opts);

// Validation, exposed for tests (validation.cpp).
ErrorList ValidatePolicyRule(const boost::json::value& rule, bool namespaced, const FieldPath& path);
ErrorList ValidateRoleRules(const registry::Object& role, bool namespaced);
ErrorList ValidateAggregationRule(const registry::Object& cluster_role);
ErrorList ValidateBinding(const registry::Object& binding, bool namespaced);
ErrorList ValidateSubject(const boost::json::value& subject, bool namespaced, const FieldPath& path);
// kube's SetDefaults_RoleBinding/ClusterRoleBinding and SetDefaults_Subject.
void DefaultBinding(registry::Object& binding);

}  // namespace capstan::api::rbac
