// api/apiextensions/crd_validation.h: kube's validation of a CustomResourceDefinition
// (apiextensions validation.ValidateCustomResourceDefinition and its Update variant) with kube's field
// paths and messages: metadata.name = plural.group, the group, scope, names (DNS-1035 labels, kind and
// listKind required and distinct), versions (DNS-1035 names, unique, exactly one storage version),
// each version's structural openAPIV3Schema (schema_structural.h), subresources (scale paths),
// additionalPrinterColumns, selectableFields, conversion, status.acceptedNames and storedVersions;
// on update the group and plural are immutable, and scope and kind once the CRD is established.
//
// kube validates the internal form, into which identical per-version schemas, subresources and
// columns are hoisted; errors under them are therefore reported at spec.validation,
// spec.subresources and spec.additionalPrinterColumns[i] when every version carries the same value
// (always, with one version), as kube reports them. Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "api/apiextensions/crd_types.h"
#include "apimachinery/field_errors.h"

namespace capstan::api::apiextensions {

// Spec and status rules of a new CRD (ObjectMeta rules other than the name are the Store's).
ErrorList ValidateCrd(const Object& crd);
ErrorList ValidateCrdUpdate(const Object& crd, const Object& old);
// The status subresource: only status.acceptedNames.
ErrorList ValidateCrdStatus(const Object& crd);

// kube's ValidateCustomResourceDefinitionNames for spec.names or status.acceptedNames.
ErrorList ValidateNames(const CrdNames& names, const FieldPath& path);

}  // namespace capstan::api::apiextensions
