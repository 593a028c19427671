// apimachinery/schema_default.h: kube's structural defaulting, applied where a custom resource is
// decoded (after pruning), and the removal of nulls that can be neither kept nor defaulted.
//
// ApplyDefaults sets a property's default where the property is absent, or null while the schema
// does not allow null; recursively through properties, additionalProperties and items (a null item or
// map value of a non-nullable schema takes that schema's default). Defaults are copied. Root metadata
// is treated like any other property (kube's CRD validation forbids defaults there). Mutates the value;
// the schema is only read. Thread-compatible.
#pragma once

#include <boost/json/value.hpp>

#include "apimachinery/schema.h"

namespace capstan::apimachinery {

// kube's structuraldefaulting.Default.
void ApplyDefaults(boost::json::value& value, const Schema* schema);

// kube's PruneNonNullableNullsWithoutDefaults: removes object fields that are null while their schema
// is neither nullable nor has a default (those with a default are left for ApplyDefaults).
void PruneNonNullableNullsWithoutDefaults(boost::json::value& value, const Schema* schema);

}  // namespace capstan::apimachinery
