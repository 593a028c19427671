// api/core/pod_internal.h: what pod.cpp (the pod resource) hands to pod_subresources.cpp (binding,
// eviction, ephemeralcontainers, log, exec, attach, portforward, proxy).
#pragma once

#include <memory>
#include <vector>

#include "api/core/core_helpers.h"
#include "registry/rest_resource.h"

namespace capstan::api::core {

// The subresources of pods, over the pods' Store.
std::vector<registry::RestResource> PodSubresources(const registry::GroupDeps& deps, std::shared_ptr<CoreStore> pods,
                                                    std::shared_ptr<const registry::Strategy> strategy);

// The node a pod runs on, as kube's kubelet connection lookup finds it: 404 when the node is missing,
// then the address kube would dial ("host:port"), or kube's error when the node has none.
Task<StatusOr<std::string>> KubeletAddress(storage::ObjectStore& store, const std::string& prefix,
                                           const std::string& node_name);

}  // namespace capstan::api::core
