// api/apps/install.cpp: the apps group's install list, and the scale subresource its replicated kinds
// share.
#include "api/apps/apps.h"
#include "api/apps/workload_util.h"
#include "api/common.h"

namespace capstan::api::apps {

void AddStatus(std::vector<registry::RestResource>& resources, std::shared_ptr<const registry::Strategy> status_strategy) {
  const registry::RestResource& main = resources.front();
  auto* store = dynamic_cast<registry::Store*>(main.storage.get());
  if (!store) return;
  registry::StoreConfig sc = store->config();
  sc.info.subresource = "status";
  registry::RestResource status;
  status.info = sc.info;
  status.storage = std::make_shared<registry::SubresourceStore>(std::move(sc), std::move(status_strategy));
  status.schema = main.schema;
  status.protobuf = main.protobuf;
  resources.push_back(std::move(status));
}

void AddScale(const registry::GroupDeps& deps, std::vector<registry::RestResource>& resources) {
  const registry::RestResource& main = resources.front();
  auto parent = std::dynamic_pointer_cast<registry::Store>(main.storage);
  if (!parent) return;
  registry::ScaleConfig config;
  config.selector = [](const Object& o) {
    const auto* spec = ObjectAt(o, "spec");
    return SelectorString(spec ? spec->if_contains("selector") : nullptr);
  };
  registry::RestResource scale;
  scale.info = registry::ScaleInfo(main.info);
  scale.storage = std::make_shared<registry::ScaleStore>(parent, scale.info, std::move(config));
  scale.schema = deps.schemas ? deps.schemas->Find(scale.info.definition) : nullptr;
  resources.push_back(std::move(scale));
}

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) {
  std::vector<registry::RestResource> all;
  for (auto* fn : {&Deployments, &StatefulSets, &DaemonSets, &ReplicaSets, &ControllerRevisions}) {
    auto r = fn(deps);
    all.insert(all.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  return all;
}

}  // namespace capstan::api::apps
