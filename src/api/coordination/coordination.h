// api/coordination/coordination.h: coordination.k8s.io/v1 (leases).
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::coordination {
std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);
}  // namespace capstan::api::coordination
