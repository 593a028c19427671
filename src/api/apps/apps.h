// api/apps/apps.h: apps/v1 (deployments, replicasets, statefulsets, daemonsets, controllerrevisions)
// and the group's install list.
#pragma once

#include <vector>

#include "registry/rest_resource.h"
#include "registry/scale_store.h"

namespace capstan::api::apps {

// Every apps/v1 resource (with its status and scale subresources), ready for the endpoints installer.
std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);

// One function per resource (deployment.cpp, replicaset.cpp, ...).
std::vector<registry::RestResource> Deployments(const registry::GroupDeps& deps);
std::vector<registry::RestResource> ReplicaSets(const registry::GroupDeps& deps);
std::vector<registry::RestResource> StatefulSets(const registry::GroupDeps& deps);
std::vector<registry::RestResource> DaemonSets(const registry::GroupDeps& deps);
std::vector<registry::RestResource> ControllerRevisions(const registry::GroupDeps& deps);

// Appends <resource>/status over the resource's main Store (the first of `resources`) with the kind's
// status strategy.
void AddStatus(std::vector<registry::RestResource>& resources, std::shared_ptr<const registry::Strategy> status_strategy);

// Appends <resource>/scale (autoscaling/v1 Scale) over the resource's main Store, the first of
// `resources` (as MakeResource returns them); status.selector is the parent's spec.selector.
void AddScale(const registry::GroupDeps& deps, std::vector<registry::RestResource>& resources);

}  // namespace capstan::api::apps
