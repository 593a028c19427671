// api/core/pod_internal.h: what pod.cpp (the pod resource) hands to pod_subresources.cpp (binding,
// eviction, ephemeralcontainers, log, exec, attach, portforward, proxy).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/core/core_helpers.h"
#include "registry/rest_resource.h"

namespace capstan::api::core {

// The subresources of pods, over the pods' Store.
std::vector<registry::RestResource> PodSubresources(const registry::GroupDeps& deps, std::shared_ptr<CoreStore> pods,
                                                    std::shared_ptr<const registry::Strategy> strategy);

// A node's kubelet as kube's NodeConnectionInfoGetter finds it: 404 when the node is missing, kube's
// error when the node has no address of the preferred types.
struct KubeletEndpoint {
  std::string host;  // an address of the node, as reported
  int64_t port = 0;
  // "https://host:port" ([host] for IPv6).
  std::string Base() const;
};
Task<StatusOr<KubeletEndpoint>> FindKubelet(storage::ObjectStore& store, const std::string& prefix,
                                            const registry::KubeletConnection& conn, const std::string& node_name);

// "host:port", with brackets for an IPv6 host (Go's net.JoinHostPort).
std::string JoinHostPort(const std::string& host, const std::string& port);

// "name", "name:port" or "scheme:name:port" (scheme http, https or empty; name not empty), as Go's
// SplitSchemeNamePort; nullopt when invalid.
struct SchemeNamePort {
  std::string scheme;
  std::string name;
  std::string port;
};
std::optional<SchemeNamePort> SplitSchemeNamePort(const std::string& id);

// Whether an address is one kube lets a proxy reach (Go's IP.IsGlobalUnicast).
bool IsGlobalUnicast(const std::string& ip);

}  // namespace capstan::api::core
