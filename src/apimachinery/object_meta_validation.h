// apimachinery/object_meta_validation.h: kube's ObjectMeta validation (api/validation/objectmeta.go).
//
// ValidateObjectMeta checks an object on create: generateName and name through the resource's name
// validator, namespace required (namespaced) or forbidden (cluster-scoped) with "not allowed on this
// type", generation >= 0, labels, annotations (keys and the 256 KiB total), ownerReferences
// (apiVersion/kind/name/uid required, v1 Event banned, at most one controller), finalizers and
// managedFields. ValidateObjectMetaUpdate checks an update against the stored object: immutable name,
// namespace, uid, creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds ("field is
// immutable"), resourceVersion present, generation not decremented, no new finalizers once deleting.
// Messages and field paths are kube's. Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>

#include "apimachinery/field_errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/validation.h"

namespace capstan::apimachinery {

inline constexpr int kTotalAnnotationSizeLimitBytes = 256 * 1024;

// obj is the whole resource; path is where its metadata sits (normally "metadata").
ErrorList ValidateObjectMeta(const boost::json::object& obj, bool namespaced, const NameValidator& name_fn,
                             const FieldPath& path = FieldPath("metadata"));
ErrorList ValidateObjectMetaUpdate(const boost::json::object& new_obj, const boost::json::object& old_obj,
                                   const FieldPath& path = FieldPath("metadata"));

// The pieces, for strategies that validate nested metadata (templates) or single fields.
ErrorList ValidateLabels(const StringPairs& labels, const FieldPath& path);
ErrorList ValidateLabelName(std::string_view name, const FieldPath& path);
ErrorList ValidateAnnotations(const StringPairs& annotations, const FieldPath& path);
ErrorList ValidateOwnerReferences(const std::vector<OwnerReference>& refs, const FieldPath& path);
ErrorList ValidateFinalizers(const std::vector<std::string>& finalizers, const FieldPath& path);
ErrorList ValidateManagedFields(const std::vector<ManagedFieldsEntry>& fields, const FieldPath& path);
ErrorList ValidateFieldManager(std::string_view manager, const FieldPath& path);
ErrorList ValidateNonnegativeField(int64_t value, const FieldPath& path);
// kube's IsDomainPrefixedPath ("acme.io/foo"): required, a DNS-1123 subdomain, then a path.
ErrorList ValidateDomainPrefixedPath(std::string_view v, const FieldPath& path);

}  // namespace capstan::apimachinery
