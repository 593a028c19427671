// apimachinery/patch_common.h: what the three patch types share: reading the patch body as kube's
// patch handler does, and the Status values kube answers patch failures with.
//
//   invalid JSON body (any patch type)      400 BadRequest "invalid JSON patch"
//   a patch that cannot be applied          422 Invalid "the server rejected our request due to an
//                                           error in our request" (kube's NewGenericServerResponse;
//                                           the library's error text is not sent)
//   a plain library error kube passes on    500 with an empty reason and the error text
//
// Pure functions; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

// Merge and strategic merge patches may nest at most this deep (the body parser already stops at
// Go's 10000); a deeper patch gets 422 instead of deep recursion.
inline constexpr int kMaxPatchNesting = 2000;

// Nesting depth of a value (a scalar is 0), computed without recursion.
int JsonDepth(const boost::json::value& v);

// Parses a patch body; 400 "invalid JSON patch" unless it is exactly one valid JSON value.
StatusOr<boost::json::value> ParsePatchBody(std::string_view body);

// 422 Invalid with kube's generic message and an empty details object.
Status PatchUnprocessable();
// 500 with an empty reason: a Go error that reached kube's ErrorToAPIStatus unconverted.
Status PatchPlainError(std::string message);

}  // namespace capstan::apimachinery
