// api/core/core.h: the core (legacy, "") group v1 resources Capstan serves, and its install list.
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::core {

// Every core/v1 resource, ready for the endpoints installer.
std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);

// One function per resource (configmap.cpp, secret.cpp, ...).
std::vector<registry::RestResource> ConfigMaps(const registry::GroupDeps& deps);
std::vector<registry::RestResource> Secrets(const registry::GroupDeps& deps);
std::vector<registry::RestResource> ServiceAccounts(const registry::GroupDeps& deps);
std::vector<registry::RestResource> Namespaces(const registry::GroupDeps& deps);
std::vector<registry::RestResource> Events(const registry::GroupDeps& deps);

// The one-MiB limit kube puts on the data of a ConfigMap or Secret.
inline constexpr int kMaxSecretSize = 1024 * 1024;

}  // namespace capstan::api::core
