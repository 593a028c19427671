// api/discovery/discovery.h: discovery.k8s.io/v1 (endpointslices), the group's install list, and the
// EndpointSlice that mirrors the default/kubernetes Endpoints (kube's lease endpoint reconciler writes
// both; api/core/kubernetes_service.h calls the mirror after each Endpoints write).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::discovery {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);
std::vector<registry::RestResource> EndpointSlices(const registry::GroupDeps& deps);

// kube's endpointSliceFromEndpoints: the EndpointSlice of the same name and namespace as an Endpoints
// object (label kubernetes.io/service-name, address type IPv4 unless every address of the first subset
// is IPv6, the first subset's ports and ready/not-ready addresses).
registry::Object EndpointSliceFromEndpoints(const registry::Object& endpoints);

// The mirror KubernetesServiceController::Config::endpoint_slices expects: makes the EndpointSlice of
// `endpoints` exist and match (create; update when ports, endpoints or labels differ; delete and
// recreate when the address type changes), writing through `slices` (the endpointslices storage).
// Thread-safe; `slices` must outlive the function.
std::function<Task<Status>(const registry::Object& endpoints)> EndpointSliceMirror(std::shared_ptr<registry::Storage> slices);

}  // namespace capstan::api::discovery
