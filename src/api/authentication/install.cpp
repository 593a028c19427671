// api/authentication/install.cpp: the authentication.k8s.io group's install list.
#include "api/authentication/authentication.h"

namespace capstan::api::authentication {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps, AuthenticationApiOptions opts) {
  std::vector<registry::RestResource> all = SelfSubjectReviews(deps);
  if (opts.review) {
    for (auto& r : TokenReviews(deps, std::move(opts))) all.push_back(std::move(r));
  }
  return all;
}

}  // namespace capstan::api::authentication
