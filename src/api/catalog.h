// api/catalog.h: the built-in groups beyond the workload ones (core, apps, batch, autoscaling,
// policy, coordination are installed by their own lists), as one list for cmd/, and the objects kube
// creates for them at start:
//  - scheduling.k8s.io: the system priority classes (kube's scheduling/bootstrap-system-priority-classes
//    post-start hook);
//  - flowcontrol.apiserver.k8s.io: the mandatory and suggested FlowSchemas and
//    PriorityLevelConfigurations (kube's priority-and-fairness-config-producer);
//  - apiregistration.k8s.io: one local APIService per served built-in group/version (kube-aggregator's
//    autoregistration, "onstart").
// The api layer does not see the endpoints registry: cmd/ passes a lookup of the installed storages.
// Nothing here keeps state; BootstrapCatalog may be called again on every start (it only creates what
// is missing and reconciles what kube reconciles).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "api/apiregistration/apiregistration.h"
#include "registry/rest.h"
#include "registry/rest_resource.h"
#include "util/task.h"

namespace capstan::api {

// One entry per group, in kube-apiserver's order: networking.k8s.io, discovery.k8s.io,
// events.k8s.io, storage.k8s.io, scheduling.k8s.io, node.k8s.io, certificates.k8s.io,
// admissionregistration.k8s.io, apiregistration.k8s.io, flowcontrol.apiserver.k8s.io.
std::vector<std::vector<registry::RestResource>> CatalogGroups(const registry::GroupDeps& deps);

// The installed storage of group/version/resource (subresource "" for the main one), or nullptr.
using StorageLookup = std::function<registry::Storage*(const std::string& group, const std::string& version,
                                                       const std::string& resource, const std::string& subresource)>;

// Writes the start-up objects listed above through the installed storages; `served` is every
// group/version the server serves (for the local APIServices). A group that is not installed is skipped.
Task<Status> BootstrapCatalog(StorageLookup find, std::vector<apiregistration::GroupVersion> served);

}  // namespace capstan::api
