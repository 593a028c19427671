// apimachinery/schema_validate.h: validation of a JSON value against a structural schema, with the
// field paths, types and messages kube-apiserver reports for custom resources, e.g.
//   spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"
//   spec.mode: Unsupported value: "x": supported values: "a", "b"
//   spec.ports[1]: Duplicate value: {"name":"a"}
//
// ValidateBySchema runs kube's two steps in kube's order: the OpenAPI value validation
// (ValidateCustomResource: types, formats, enum, pattern, bounds, lengths, items, properties,
// required, uniqueItems, nullable, allOf/anyOf/oneOf/not) and then the list-type invariants
// (x-kubernetes-list-type set and map). x-kubernetes-validations (CEL) and embedded-resource
// ObjectMeta checks are not run here. Stateless; thread-safe.
//
// `root` is where the value sits: empty for a whole object (kube's nil path, printed "<nil>" for
// errors without a field, such as a failed anyOf), or e.g. FieldPath("status") for a status update.
#pragma once

#include <boost/json/value.hpp>

#include "apimachinery/field_errors.h"
#include "apimachinery/schema.h"

namespace capstan::apimachinery {

// Both steps below, concatenated.
ErrorList ValidateBySchema(const Schema& schema, const boost::json::value& value, const FieldPath& root = FieldPath());

// kube's ValidateCustomResource: the OpenAPI value validation only.
ErrorList ValidateSchemaValues(const Schema& schema, const boost::json::value& value, const FieldPath& root = FieldPath());

// kube's ValidateListSetsAndMaps: duplicates in x-kubernetes-list-type set and map lists.
ErrorList ValidateListSetsAndMaps(const Schema& schema, const boost::json::value& value, const FieldPath& root = FieldPath());

}  // namespace capstan::apimachinery
