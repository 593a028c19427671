// api/events/events.h: events.k8s.io/v1 (events), served over the same storage as core/v1 events
// (<prefix>/events, core/v1's form) through a registry::ConvertingStore with kube's conversion
// (event_conversion.h), events.k8s.io's stricter validation of what it writes, its field selectors
// (regarding.*, reportingController, ...) and core's event printer.
#pragma once

#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::events {

std::vector<registry::RestResource> Install(const registry::GroupDeps& deps);

}  // namespace capstan::api::events
