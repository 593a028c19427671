// api/core/pod_validation_internal.h: the pieces of pod validation shared by its files (not for other
// resources: they call pod_validation.h).
#pragma once

#include <boost/json/object.hpp>
#include <set>
#include <string>

#include "apimachinery/field_errors.h"

namespace capstan::api::core {

enum class ContainerKind { kRegular, kInit, kEphemeral };

// Volumes at path; `names` receives the names of the valid ones (mounts may refer to those).
ErrorList ValidateVolumes(const boost::json::value* volumes, const FieldPath& path, std::set<std::string>& names);
// One list of containers; `names` holds the names seen in earlier lists (kube's uniqueness across
// regular, init and ephemeral containers).
ErrorList ValidateContainerList(const boost::json::value* list, const FieldPath& path, const std::set<std::string>& volumes,
                                std::set<std::string>& names, ContainerKind kind);
// kube's ValidatePortNumOrName for an IntOrString port.
ErrorList ValidatePortNumOrName(const boost::json::value* port, const FieldPath& path);
// kube's ValidateResourceRequirements for a container's resources.
ErrorList ValidateResourceRequirements(const boost::json::value* resources, const FieldPath& path);

}  // namespace capstan::api::core
