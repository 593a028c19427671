// controllers/discovery.h: what the loops see of the served API, from the endpoints ApiRegistry
// snapshot (kube's discovery client, in process): the preferred version of each resource, its verbs,
// and kind → resource mappings for owner references (a REST mapper). Custom resources appear as
// soon as they are installed in the registry. Pure functions over an immutable snapshot.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "controllers/api_client.h"
#include "endpoints/api_registry.h"

namespace capstan::controllers {

struct ServedResource {
  Gvr gvr;
  const endpoints::ResourceEntry* entry = nullptr;  // valid while the snapshot is held
};

// kube's ServerPreferredResources: per group, every resource of its preferred version, plus the
// resources that only other versions of the group serve. Subresources are not listed.
std::vector<ServedResource> PreferredResources(const endpoints::ApiSnapshot& snap);

// Whether the resource's storage supports every one of `verbs`.
bool SupportsVerbs(const endpoints::ResourceEntry& e, std::initializer_list<std::string_view> verbs);

// The served resource of an apiVersion and kind (kube's RESTMapper.RESTMapping): exactly that
// group and version. nullopt when nothing serves it.
struct Mapping {
  Gvr gvr;
  bool namespaced = false;
};
std::optional<Mapping> MapKind(const endpoints::ApiSnapshot& snap, std::string_view api_version, std::string_view kind);

}  // namespace capstan::controllers
