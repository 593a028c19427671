// cmd/authorization/bootstrap_reconcile.h: kube's rbac/bootstrap-roles post-start hook: makes the
// default policy (auth/authz/bootstrap_policy.h) present, additively. A missing role or binding is
// created; an existing one whose rbac.authorization.kubernetes.io/autoupdate annotation is not
// "false" gains the rules, aggregation selectors, subjects, labels and annotations it lacks (extra
// ones are kept); a binding whose roleRef differs is deleted and re-created. Runs through the API
// registry as system:apiserver (system:masters). Call from a thread that may block (SyncWait).
#pragma once

#include "apimachinery/status.h"
#include "endpoints/api_registry.h"

namespace capstan::authz {

struct ReconcileReport {
  int created = 0;
  int updated = 0;
  int recreated = 0;
};

StatusOr<ReconcileReport> ReconcileBootstrapPolicy(const endpoints::ApiRegistry& registry);

}  // namespace capstan::authz
