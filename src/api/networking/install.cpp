// api/networking/install.cpp: the networking.k8s.io group's install list.
#include "api/networking/networking.h"

namespace capstan::api::networking {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) {
  std::vector<registry::RestResource> all;
  for (auto* fn : {&NetworkPolicies, &Ingresses, &IngressClasses}) {
    auto r = fn(deps);
    all.insert(all.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  return all;
}

}  // namespace capstan::api::networking
