// api/core/capabilities.h: what pods may ask of their nodes cluster-wide, set once at start from the
// command line, as kube-apiserver's pkg/capabilities: --allow-privileged. With it false (kube's
// default) pod validation refuses containers with securityContext.privileged=true, in pods and in
// every pod template, with kube's "disallowed by cluster policy".
// Thread-safety: set before serving; reads are atomic.
#pragma once

#include <boost/json/object.hpp>

#include "apimachinery/field_errors.h"

namespace capstan::api::core {

void SetAllowPrivileged(bool allow);
bool AllowPrivileged();

// kube's check of one container (at `path`) against the capabilities: securityContext.privileged.
void ValidateContainerCapabilities(const boost::json::object& container, const FieldPath& path, ErrorList& errs);

}  // namespace capstan::api::core
