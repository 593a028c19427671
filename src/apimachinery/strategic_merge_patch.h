// apimachinery/strategic_merge_patch.h: server-side application of a strategic merge patch
// (application/strategic-merge-patch+json) to an object, as k8s.io/apimachinery's strategicpatch
// package does it for kube-apiserver (StrategicMergeMapPatch: parallel lists merged, unmatched
// nulls ignored).
//
// The schema decides how each field merges: a list whose x-kubernetes-patch-strategy contains
// "merge" is merged (lists of objects by x-kubernetes-patch-merge-key, lists of scalars as a set),
// any other list is replaced; objects merge unless the strategy is "replace". The patch may carry
// kube's directives:
//   {"$patch": "replace"} / {"$patch": "delete"} in an object; {"$patch": "delete", <key>: v} and
//   {"$patch": "replace"} as list items; "$deleteFromPrimitiveList/<field>": [values];
//   "$setElementOrder/<field>": [items or {<key>: v}]; "$retainKeys": [fields].
// With a null schema, or for fields the schema does not know, nothing is merged by key (lists are
// replaced, objects merged), as for an object of unknown type.
//
// Errors are kube's (interpretStrategicMergePatchError): a body that is not a JSON object, or a bad
// directive format, is 400 BadRequest with the library's text ("invalid patch format of primitive
// list", ...); lists of lists 422; other library errors ("map: map[a:b] does not contain declared
// merge key: name", ...) are passed through as a 500 with an empty reason, as kube does.
// Pure functions; the schema is only read. Thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string_view>

#include "apimachinery/schema.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery {

// Applies a patch body to a copy of `original` (an object) using `schema` (the object's schema, or
// null).
StatusOr<boost::json::value> ApplyStrategicMergePatch(const boost::json::value& original, std::string_view patch_body,
                                                       const Schema* schema);

// The library level on decoded objects (both are consumed).
StatusOr<boost::json::object> StrategicMergeObjects(boost::json::object original, boost::json::object patch,
                                                    const Schema* schema);

}  // namespace capstan::apimachinery
