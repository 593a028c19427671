// api/certificates/certificates.h: certificates.k8s.io/v1 (certificatesigningrequests with their status
// and approval subresources) and the group's install list.
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::certificates {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);
std::vector<registry::RestResource> CertificateSigningRequests(const registry::GroupDeps& deps);

}  // namespace capstan::api::certificates
