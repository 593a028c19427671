// api/storage/storage.h: storage.k8s.io/v1 (storageclasses, volumeattachments with status, csidrivers,
// csinodes, csistoragecapacities) and the group's install list. The namespace is storage_api so that it
// does not hide capstan::storage (the storage layer) inside capstan::api.
#pragma once

#include <string_view>
#include <vector>

#include "apimachinery/field_errors.h"
#include "registry/rest_resource.h"

namespace capstan::api::storage_api {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);

// One function per resource (storage_class.cpp, volume_attachment.cpp, csi_driver.cpp, csi_node.cpp,
// csi_storage_capacity.cpp).
std::vector<registry::RestResource> StorageClasses(const registry::GroupDeps& deps);
std::vector<registry::RestResource> VolumeAttachments(const registry::GroupDeps& deps);
std::vector<registry::RestResource> CSIDrivers(const registry::GroupDeps& deps);
std::vector<registry::RestResource> CSINodes(const registry::GroupDeps& deps);
std::vector<registry::RestResource> CSIStorageCapacities(const registry::GroupDeps& deps);

// kube's ValidateCSIDriverName (CSI driver names in CSIDrivers, CSINodes and VolumeAttachments).
ErrorList ValidateCSIDriverName(std::string_view name, const FieldPath& p);

}  // namespace capstan::api::storage_api
