#include "endpoints/installer.h"

#include <map>

namespace capstan::endpoints {

void InstallResources(ApiRegistry& registry, std::vector<registry::RestResource> resources, bool custom) {
  // The main resources of this install, by version and name, for their status subresources' tables.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<registry::Storage>> parents;
  for (const auto& r : resources) {
    if (r.info.subresource.empty()) parents[{r.info.version, r.info.resource}] = r.storage;
  }
  for (auto& r : resources) {
    ResourceEntry e;
    e.info = r.info;
    e.storage = std::move(r.storage);
    e.schema = r.schema;
    e.protobuf = r.protobuf && !custom;
    e.custom = custom;
    ProbeCapabilities(e);
    // kube's status subresources print as their parent does (their ConvertToTable is the parent
    // store's): kubectl get --subresource=status shows the resource's own columns.
    if (!e.table && e.info.subresource == "status") {
      auto parent = parents.find({e.info.version, e.info.resource});
      if (parent != parents.end()) {
        e.table = dynamic_cast<registry::TableConvertor*>(parent->second.get());
        if (e.table) e.table_owner = parent->second;
      }
    }
    registry.Install(std::move(e));
  }
}

}  // namespace capstan::endpoints
