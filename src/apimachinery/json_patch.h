// apimachinery/json_patch.h: RFC 6902 JSON patch (application/json-patch+json) as kube-apiserver
// applies it, with the semantics of the library it uses (evanphx/json-patch v4):
//   - "add" to an array index equal to its length, or "-", appends; negative indexes count from the
//     end; "add" with path "" fails (the document root is not replaced);
//   - "replace" of a missing object key adds it (an array index must exist); "replace" with path ""
//     replaces the whole document with an object or array value;
//   - "copy" of a missing object key writes null; copies may add at most max_copy_bytes in total;
//   - a path through a missing, null or scalar value fails; ~1 and ~0 are unescaped;
//   - "test" compares by value (null matches a missing key);
//   - operations apply in order and the first failure fails the whole patch.
// kube's answers: a body that is not a JSON array of objects is a 400 with Go's decoding text; more
// than max_operations operations a 413; any failed operation a 422 with kube's generic message (the
// library's text, e.g. `add operation does not apply: doc is missing path: "/a/b": missing value`, is
// what JsonPatchOperations returns). Pure functions; thread-safe.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

struct JsonPatchOptions {
  size_t max_operations = 10000;            // kube's maxJSONPatchOperations
  int64_t max_copy_bytes = 3 * 1024 * 1024;  // kube's --json-patch-max-copy-bytes default
};

// Applies a patch body to a copy of `doc`, answering with kube's Status on failure.
StatusOr<boost::json::value> ApplyJsonPatch(const boost::json::value& doc, std::string_view patch_body,
                                            const JsonPatchOptions& opts = {});

// The library level: applies already-decoded operations to `doc` in place. Returns "" on success,
// else the library's error text (doc is then partly patched).
std::string JsonPatchOperations(boost::json::value& doc, const boost::json::array& ops, int64_t max_copy_bytes);

}  // namespace capstan::apimachinery
