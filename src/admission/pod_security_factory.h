// admission/pod_security_factory.h: builds the PodSecurity plugin from the chain's dependencies (its
// entry in the admission configuration, the namespace lookup, the pod lister, the request scopes).
#pragma once

#include <memory>

#include "admission/plugin.h"

namespace capstan::admission {

struct PluginDeps;

// A bad configuration is kube's start-up error text.
StatusOr<std::unique_ptr<Plugin>> NewPodSecurityPlugin(const PluginDeps& deps);

}  // namespace capstan::admission
