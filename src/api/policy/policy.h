// api/policy/policy.h: policy/v1 (poddisruptionbudgets) and the group's install list. The Eviction
// kind of this group is served as pods/eviction by the core group.
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::policy {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);

std::vector<registry::RestResource> PodDisruptionBudgets(const registry::GroupDeps& deps);

}  // namespace capstan::api::policy
