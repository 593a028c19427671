// api/flowcontrol/flowcontrol.h: flowcontrol.apiserver.k8s.io/v1 (flowschemas and
// prioritylevelconfigurations, both with status), the group's install list, and kube's API Priority
// and Fairness bootstrap configuration: the mandatory objects (exempt and catch-all) and the suggested
// ones (system, node-high, leader-election, workload-high/low, global-default and their flow schemas),
// created and reconciled at start as kube's APF bootstrap ensurer does.
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::flowcontrol {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);
std::vector<registry::RestResource> FlowSchemas(const registry::GroupDeps& deps);
std::vector<registry::RestResource> PriorityLevelConfigurations(const registry::GroupDeps& deps);

// The bootstrap objects (apf_bootstrap.cpp), as kube 1.32 defines them.
std::vector<registry::Object> MandatoryPriorityLevels();
std::vector<registry::Object> SuggestedPriorityLevels();
std::vector<registry::Object> MandatoryFlowSchemas();
std::vector<registry::Object> SuggestedFlowSchemas();

// kube's APF configuration ensurer, run once at start:
//  - a missing mandatory or suggested object is created;
//  - a mandatory object's spec is set back to the bootstrap one (the exempt level keeps its
//    nominalConcurrencyShares and lendablePercent);
//  - a suggested object is updated only when its apf.kubernetes.io/autoupdate-spec annotation is true
//    (or, without a valid annotation, when its generation is 1);
//  - an object this server created earlier (autoupdate-spec true) that is no longer in the bootstrap
//    configuration is deleted;
// then each FlowSchema's Dangling status condition says whether its priority level exists.
// The storages are the main resources (flowschemas/status is written through `flowschema_status`).
Task<Status> EnsureApfConfiguration(registry::Storage& flowschemas, registry::Storage& flowschema_status,
                                    registry::Storage& priority_levels);

}  // namespace capstan::api::flowcontrol
