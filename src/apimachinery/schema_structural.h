// apimachinery/schema_structural.h: kube's structural-schema rules for a CRD's openAPIV3Schema, with
// kube's field paths and messages, e.g.
//   spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for
//   specified object fields
//
// Two steps, as kube's CRD validation runs them:
//   - StructuralConversionError: what kube's NewStructural refuses outright ($ref, id, $schema,
//     patternProperties, dependencies, additionalItems, definitions, items given as an array,
//     x-kubernetes-preserve-unknown-fields: false), as one Invalid error at `path`;
//   - ValidateStructural: the structural invariants (every specified field has a type, nothing but
//     value validations under allOf/anyOf/oneOf/not except the int-or-string patterns, metadata only
//     restricting name and generateName, embedded resources are objects, no additionalProperties at
//     the root) and completeness (fields named under the root's junctors exist structurally). The
//     errors are sorted by their text, as kube sorts them.
// Pure functions; thread-safe.
#pragma once

#include <optional>

#include "apimachinery/field_errors.h"
#include "apimachinery/schema.h"

namespace capstan::apimachinery {

std::optional<FieldError> StructuralConversionError(const Schema& schema, const FieldPath& path);

ErrorList ValidateStructural(const Schema& schema, const FieldPath& path);

}  // namespace capstan::apimachinery
