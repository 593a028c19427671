// api/autoscaling/autoscaling.h: autoscaling/v2 and autoscaling/v1 (horizontalpodautoscalers, one
// storage served in both versions) and the group's install list.
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::autoscaling {

// Both versions: v2 (preferred, the storage version) and v1 (converted).
std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);

std::vector<registry::RestResource> HorizontalPodAutoscalers(const registry::GroupDeps& deps);

}  // namespace capstan::api::autoscaling
