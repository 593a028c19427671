// api/node/node.h: node.k8s.io/v1 (runtimeclasses) and the group's install list.
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::node {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);
std::vector<registry::RestResource> RuntimeClasses(const registry::GroupDeps& deps);

}  // namespace capstan::api::node
