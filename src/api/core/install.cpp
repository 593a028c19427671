// api/core/install.cpp: the core group's install list.
#include "api/core/core.h"
#include "api/core/core_resources.h"

namespace capstan::api::core {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) { return Install(deps, CoreOptions{}); }

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps, const CoreOptions& opts) {
  std::vector<registry::RestResource> all;
  auto add = [&](std::vector<registry::RestResource> r) {
    all.insert(all.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  };
  for (auto* fn : {&Namespaces, &ConfigMaps, &Secrets, &ServiceAccounts, &Events}) add(fn(deps));
  add(Pods(deps));
  add(Services(deps, opts));
  add(EndpointsResource(deps));
  add(Nodes(deps));
  add(PersistentVolumes(deps));
  add(PersistentVolumeClaims(deps));
  add(ReplicationControllers(deps));
  add(PodTemplates(deps));
  add(LimitRanges(deps));
  add(ResourceQuotas(deps));
  return all;
}

}  // namespace capstan::api::core
