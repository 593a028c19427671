// api/core/install.cpp: the core group's install list.
#include "api/core/core.h"

namespace capstan::api::core {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) {
  std::vector<registry::RestResource> all;
  for (auto* fn : {&Namespaces, &ConfigMaps, &Secrets, &ServiceAccounts, &Events}) {
    auto r = fn(deps);
    all.insert(all.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  return all;
}

}  // namespace capstan::api::core
