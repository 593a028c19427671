// api/catalog.cpp: the catalog groups' install list and their start-up objects (catalog.h).
#include "api/catalog.h"

#include <utility>

#include "api/admissionregistration/admissionregistration.h"
#include "api/certificates/certificates.h"
#include "api/discovery/discovery.h"
#include "api/events/events.h"
#include "api/flowcontrol/flowcontrol.h"
#include "api/networking/networking.h"
#include "api/node/node.h"
#include "api/scheduling/scheduling.h"
#include "api/storage/storage.h"

namespace capstan::api {

std::vector<std::vector<registry::RestResource>> CatalogGroups(const registry::GroupDeps& deps) {
  std::vector<std::vector<registry::RestResource>> groups;
  groups.push_back(networking::Install(deps));
  groups.push_back(discovery::Install(deps));
  groups.push_back(events::Install(deps));
  groups.push_back(storage_api::Install(deps));
  groups.push_back(scheduling::Install(deps));
  groups.push_back(node::Install(deps));
  groups.push_back(certificates::Install(deps));
  groups.push_back(admissionregistration::Install(deps));
  groups.push_back(apiregistration::Install(deps));
  groups.push_back(flowcontrol::Install(deps));
  return groups;
}

Task<Status> BootstrapCatalog(StorageLookup find, std::vector<apiregistration::GroupVersion> served) {
  if (auto* pcs = find("scheduling.k8s.io", "v1", "priorityclasses", "")) {
    Status st = co_await scheduling::EnsureSystemPriorityClasses(*pcs);
    if (!st.ok()) co_return Status(st.code(), st.reason(), "system priority classes: " + st.message());
  }
  auto* fs = find("flowcontrol.apiserver.k8s.io", "v1", "flowschemas", "");
  auto* fs_status = find("flowcontrol.apiserver.k8s.io", "v1", "flowschemas", "status");
  auto* pls = find("flowcontrol.apiserver.k8s.io", "v1", "prioritylevelconfigurations", "");
  if (fs && fs_status && pls) {
    Status st = co_await flowcontrol::EnsureApfConfiguration(*fs, *fs_status, *pls);
    if (!st.ok()) co_return Status(st.code(), st.reason(), "priority and fairness configuration: " + st.message());
  }
  if (auto* apiservices = find("apiregistration.k8s.io", "v1", "apiservices", "")) {
    Status st = co_await apiregistration::EnsureLocalApiServices(*apiservices, std::move(served));
    if (!st.ok()) co_return Status(st.code(), st.reason(), "local APIServices: " + st.message());
  }
  co_return Status();
}

}  // namespace capstan::api
