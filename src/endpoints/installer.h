// endpoints/installer.h: puts REST resources into the ApiRegistry. Each storage's capabilities are
// probed once, here (dynamic_cast), and become its routes and its discovery verbs.
#pragma once

#include <vector>

#include "endpoints/api_registry.h"
#include "registry/rest_resource.h"

namespace capstan::endpoints {

void InstallResources(ApiRegistry& registry, std::vector<registry::RestResource> resources, bool custom = false);

}  // namespace capstan::endpoints
