// api/storage/install.cpp: the storage.k8s.io group's install list, and the CSI driver name rule its
// kinds share.
#include "api/storage/storage.h"

#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::storage_api {

ErrorList ValidateCSIDriverName(std::string_view name, const FieldPath& p) {
  ErrorList errs;
  if (name.empty()) errs.push_back(RequiredError(p, ""));
  if (name.size() > 63) errs.push_back(TooLongError(p, 63));
  for (const auto& m : apimachinery::IsDNS1123Subdomain(ToLower(name))) errs.push_back(InvalidError(p, name, m));
  return errs;
}

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps) {
  std::vector<registry::RestResource> all;
  for (auto* fn : {&StorageClasses, &VolumeAttachments, &CSIDrivers, &CSINodes, &CSIStorageCapacities}) {
    auto r = fn(deps);
    all.insert(all.end(), std::make_move_iterator(r.begin()), std::make_move_iterator(r.end()));
  }
  return all;
}

}  // namespace capstan::api::storage_api
