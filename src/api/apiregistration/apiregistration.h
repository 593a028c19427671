// api/apiregistration/apiregistration.h: apiregistration.k8s.io/v1 (apiservices with status; stored
// here, proxying to aggregated servers is later work), the group's install list, and the local
// APIServices kube-apiserver registers for every group/version it serves itself.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::apiregistration {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);
std::vector<registry::RestResource> ApiServices(const registry::GroupDeps& deps);

struct GroupVersion {
  std::string group;  // "" for the core group
  std::string version;
};

// kube's priorities of the built-in group/versions (group priority minimum, version priority); false
// when kube registers no APIService for it.
bool BuiltinPriority(const GroupVersion& gv, int64_t* group_priority, int64_t* version_priority);

// kube's auto-registration at start ("onstart"): an APIService "<version>.<group>" with no service for
// each served group/version that has a built-in priority, labeled
// kube-aggregator.kubernetes.io/automanaged=onstart; a stored automanaged one whose spec differs is
// updated, and one for a group/version no longer served is deleted. `apiservices` is the storage.
Task<Status> EnsureLocalApiServices(registry::Storage& apiservices, std::vector<GroupVersion> served);

}  // namespace capstan::api::apiregistration
