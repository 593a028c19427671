#include "endpoints/installer.h"

namespace capstan::endpoints {

void InstallResources(ApiRegistry& registry, std::vector<registry::RestResource> resources, bool custom) {
  for (auto& r : resources) {
    ResourceEntry e;
    e.info = r.info;
    e.storage = std::move(r.storage);
    e.schema = r.schema;
    e.protobuf = r.protobuf && !custom;
    e.custom = custom;
    ProbeCapabilities(e);
    registry.Install(std::move(e), r.preferred);
  }
}

}  // namespace capstan::endpoints
