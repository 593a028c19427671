// api/scheduling/scheduling.h: scheduling.k8s.io/v1 (priorityclasses), the group's install list, and
// the system priority classes every cluster has (system-node-critical, system-cluster-critical),
// created at start as kube's scheduling/bootstrap-system-priority-classes hook does and protected
// from deletion.
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::scheduling {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);
std::vector<registry::RestResource> PriorityClasses(const registry::GroupDeps& deps);

inline constexpr int64_t kHighestUserDefinablePriority = 1000000000;
inline constexpr int64_t kSystemCriticalPriority = 2 * kHighestUserDefinablePriority;

// The system priority classes (name, value, description) as kube defines them.
struct SystemPriorityClass {
  const char* name;
  int64_t value;
  const char* description;
};
const std::vector<SystemPriorityClass>& SystemPriorityClasses();

// Creates the system priority classes that are missing through `priorityclasses` (a Getter and
// Creater); an existing one is left as it is.
Task<Status> EnsureSystemPriorityClasses(registry::Storage& priorityclasses);

}  // namespace capstan::api::scheduling
