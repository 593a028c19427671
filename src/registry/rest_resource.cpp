#include "registry/rest_resource.h"

namespace capstan::registry {

std::vector<RestResource> MakeResource(const GroupDeps& deps, ResourceSpec spec) {
  std::vector<RestResource> out;
  StoreConfig c;
  c.info = spec.info;
  c.storage = deps.store;
  c.key_root = deps.prefix + "/" + (spec.storage_resource.empty() ? spec.info.resource : spec.storage_resource);
  if (deps.store_for) c.storage = deps.store_for(c.key_root, spec.info, spec.strategy);
  c.admission = deps.admission;
  c.return_deleted_object = spec.return_deleted_object;
  c.clock = deps.clock;
  const apimachinery::Schema* schema = deps.schemas ? deps.schemas->Find(spec.info.definition) : nullptr;
  c.schema = schema;
  c.normalize_as_go = schema != nullptr;
  RestResource main;
  main.info = spec.info;
  main.storage = std::make_shared<OwningStore>(c, spec.strategy);
  main.schema = schema;
  out.push_back(std::move(main));
  if (spec.has_status) {
    StoreConfig sc = c;
    sc.info.subresource = "status";
    RestResource status;
    status.info = sc.info;
    status.storage = std::make_shared<SubresourceStore>(sc, std::make_shared<StatusStrategy>(spec.strategy));
    status.schema = schema;
    out.push_back(std::move(status));
  }
  return out;
}

}  // namespace capstan::registry
