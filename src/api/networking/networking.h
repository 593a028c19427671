// api/networking/networking.h: networking.k8s.io/v1 (ingresses with status, ingressclasses,
// networkpolicies) and the group's install list. ServiceCIDRs and IPAddresses are beta in 1.32 and
// not served by default, so they are not served here.
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::networking {

// Every networking.k8s.io/v1 resource, ready for the endpoints installer.
std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);

// One function per resource (ingress.cpp, ingress_class.cpp, network_policy.cpp).
std::vector<registry::RestResource> Ingresses(const registry::GroupDeps& deps);
std::vector<registry::RestResource> IngressClasses(const registry::GroupDeps& deps);
std::vector<registry::RestResource> NetworkPolicies(const registry::GroupDeps& deps);

}  // namespace capstan::api::networking
