// api/core/service_alloc.h: ClusterIP and NodePort allocation for Services (kube's service
// Allocators): IP family fields (ipFamilyPolicy, ipFamilies) filled as kube does, ClusterIPs from
// --service-cluster-ip-range and NodePorts (and health-check node ports) from
// --service-node-port-range, each kept in a storage-backed bitmap (registry::RangeAllocator at
// <prefix>/ranges/serviceips and <prefix>/ranges/servicenodeports, kube's keys) so replicas and
// restarts never hand out one value twice. An operation's allocations form a Txn: Revert releases
// what it took (the write failed), Commit releases what it gave up (an update dropped a port or
// changed type). Errors are kube's 422s (spec.clusterIPs / spec.ports[i].nodePort) and 500s.
// Single stack: the first CIDR of the flag. Thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "registry/ip_range.h"
#include "registry/port_range.h"
#include "registry/range_allocator.h"
#include "registry/rest.h"
#include "storage/object_store.h"

namespace capstan::api::core {

class ServiceAllocator {
 public:
  // `cidr` and `ports` as the flags give them; a bad value is a start-up error.
  static StatusOr<std::unique_ptr<ServiceAllocator>> Create(storage::ObjectStore& store, const std::string& prefix,
                                                            const std::string& cidr, const std::string& ports);

  struct Txn {
    bool dry_run = false;
    std::vector<int64_t> taken_ips, taken_ports;      // released by Revert
    std::vector<int64_t> dropped_ips, dropped_ports;  // released by Commit
  };

  // BeginCreate: IP family fields, ClusterIPs, NodePorts (svc is changed in place).
  Task<StatusOr<Txn>> AllocateCreate(registry::Object& svc, bool dry_run);
  // BeginUpdate: allocated values the client left out are kept, new ones allocated, dropped ones
  // released on Commit.
  Task<StatusOr<Txn>> AllocateUpdate(registry::Object& svc, const registry::Object& old, bool dry_run);
  Task<void> Commit(const Txn& txn);
  Task<void> Revert(const Txn& txn);
  // AfterDelete: everything a deleted service held.
  Task<void> ReleaseAll(const registry::Object& svc);

  const registry::IpRange& ip_range() const { return ips_; }
  const registry::PortRange& port_range() const { return ports_; }
  registry::RangeAllocator& ip_allocator() { return *ip_alloc_; }
  registry::RangeAllocator& port_allocator() { return *port_alloc_; }
  std::string family() const { return ips_.v6() ? "IPv6" : "IPv4"; }

 private:
  ServiceAllocator(storage::ObjectStore& store, std::string prefix, registry::IpRange ips, registry::PortRange ports);
  Task<StatusOr<registry::RangeAllocator::InUse>> InUse(bool ips) const;
  Status InitIpFamilyFields(registry::Object& svc, const registry::Object* old) const;
  Task<Status> AllocClusterIps(registry::Object& svc, Txn& txn);
  Task<Status> AllocNodePorts(registry::Object& svc, const registry::Object* old, Txn& txn);

  storage::ObjectStore& store_;
  std::string prefix_;
  registry::IpRange ips_;
  registry::PortRange ports_;
  std::unique_ptr<registry::RangeAllocator> ip_alloc_;
  std::unique_ptr<registry::RangeAllocator> port_alloc_;
};

// kube's service predicates on JSON.
bool ServiceNeedsClusterIp(const registry::Object& svc);   // every type but ExternalName
bool ServiceNeedsNodePorts(const registry::Object& svc);   // NodePort, LoadBalancer
bool ServiceNeedsHealthCheck(const registry::Object& svc); // LoadBalancer with externalTrafficPolicy Local
// kube's patchAllocatedValues and normalizeClusterIPs (old null: a create).
void PatchAllocatedValues(registry::Object& svc, const registry::Object& old);
void NormalizeClusterIps(registry::Object& svc, const registry::Object* old);

}  // namespace capstan::api::core
