// api/core/core_resources.h: the core/v1 workload, service and storage resources (pods, services,
// endpoints, nodes, persistent volumes and claims, replication controllers, pod templates, limit
// ranges, resource quotas), the options they need from the command line, and the pieces other
// groups reuse (the pod strategy's rules through pod_defaults.h and pod_validation.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::core {

struct CoreOptions {
  std::string service_cluster_ip_range = "10.0.0.0/24";  // --service-cluster-ip-range (first CIDR)
  std::string service_node_port_range = "30000-32767";   // --service-node-port-range
};

// Every core/v1 resource with these options (core.h's Install uses the defaults).
std::vector<registry::RestResource> Install(const registry::GroupDeps& deps, const CoreOptions& opts);

std::vector<registry::RestResource> Pods(const registry::GroupDeps& deps);
std::vector<registry::RestResource> Services(const registry::GroupDeps& deps, const CoreOptions& opts);
std::vector<registry::RestResource> EndpointsResource(const registry::GroupDeps& deps);
std::vector<registry::RestResource> Nodes(const registry::GroupDeps& deps);
std::vector<registry::RestResource> PersistentVolumes(const registry::GroupDeps& deps);
std::vector<registry::RestResource> PersistentVolumeClaims(const registry::GroupDeps& deps);
std::vector<registry::RestResource> ReplicationControllers(const registry::GroupDeps& deps);
std::vector<registry::RestResource> PodTemplates(const registry::GroupDeps& deps);
std::vector<registry::RestResource> LimitRanges(const registry::GroupDeps& deps);
std::vector<registry::RestResource> ResourceQuotas(const registry::GroupDeps& deps);

// kube's pod QoS class (Guaranteed, Burstable, BestEffort) of a defaulted pod spec.
std::string PodQosClass(const boost::json::object& spec);

}  // namespace capstan::api::core
