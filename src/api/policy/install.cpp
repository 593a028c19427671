// api/policy/install.cpp: the policy group's install list.
#include "api/policy/policy.h"

namespace capstan::api::policy {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) { return PodDisruptionBudgets(deps); }

}  // namespace capstan::api::policy
