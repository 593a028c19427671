// api/core/event_fields.h: the field selectors of stored core/v1 Events (kube's event strategy's
// selectable fields). events.k8s.io/v1 shares their watch cache and converts its field names to these,
// so both strategies must answer from this one list. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "apimachinery/fields.h"
#include "registry/rest.h"

namespace capstan::api::core {

std::vector<std::string> EventSelectableFieldNames();
// Adds the event's own fields to `base` (the metadata.name/namespace set every strategy has).
apimachinery::FieldSet EventSelectableFields(const registry::Object& event, apimachinery::FieldSet base);

}  // namespace capstan::api::core
