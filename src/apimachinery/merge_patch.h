// apimachinery/merge_patch.h: RFC 7386 JSON merge patch (application/merge-patch+json) as kube-apiserver
// applies it, with the semantics of evanphx/json-patch v4's MergePatch:
//   - a member whose patch value is null is removed; an object value merges recursively; any other
//     value replaces;
//   - a value added where the document has no member (or a null one), or that replaces a non-object,
//     has its null members removed recursively (also inside objects within arrays);
//   - a patch that is an array replaces the document (nulls pruned the same way).
// kube's answers: invalid JSON 400 "invalid JSON patch"; a patch of null, a string, a number or a
// boolean 400 "Invalid JSON Patch". Pure functions; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

// Applies a patch body to a copy of `doc` (an object), answering with kube's Status on failure.
StatusOr<boost::json::value> ApplyMergePatch(const boost::json::value& doc, std::string_view patch_body);

// The library level on decoded values: `patch` must be an object or an array.
StatusOr<boost::json::value> MergePatchValues(boost::json::value doc, boost::json::value patch);

}  // namespace capstan::apimachinery
