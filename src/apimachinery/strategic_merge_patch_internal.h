// apimachinery/strategic_merge_patch_internal.h: the pieces of strategic_merge_patch.cpp (maps and
// directives) and strategic_merge_patch_lists.cpp (lists and element order) that call each other.
// Not for use outside those two files.
#pragma once

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/schema.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery::smp {

namespace json = boost::json;

inline constexpr std::string_view kDirectiveMarker = "$patch";
inline constexpr std::string_view kDeleteDirective = "delete";
inline constexpr std::string_view kReplaceDirective = "replace";
inline constexpr std::string_view kMergeDirective = "merge";
inline constexpr std::string_view kRetainKeysStrategy = "retainKeys";
inline constexpr std::string_view kDeleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList";
inline constexpr std::string_view kRetainKeysDirective = "$retainKeys";
inline constexpr std::string_view kSetElementOrderPrefix = "$setElementOrder";

inline constexpr std::string_view kMapType = "map[string]interface {}";
inline constexpr std::string_view kSliceType = "[]interface {}";

// The field facts the merge needs: x-kubernetes-patch-strategy and x-kubernetes-patch-merge-key.
struct PatchMeta {
  std::vector<std::string> strategies;
  std::string merge_key;
};
struct Lookup {
  const Schema* schema = nullptr;  // the field's schema (structs) or its element schema (slices)
  PatchMeta meta;
};
Lookup LookupForStruct(const Schema* s, std::string_view key);
Lookup LookupForSlice(const Schema* s, std::string_view key);
// The Go kind name kube prints for a list's element type ("struct", "map", "interface").
std::string SchemaName(const Schema* elem);
// The strategy other than retainKeys ("" when none), or kube's error for a bad combination.
StatusOr<std::string> ExtractStrategy(const std::vector<std::string>& strategies);

// Go's dynamic types of decoded values, and its == on interface values (maps and slices never
// compare equal here; Go would panic).
enum class GoType { kNil, kBool, kInt64, kFloat64, kString, kSlice, kMap };
GoType TypeOf(const json::value& v);
bool GoEqual(const json::value& a, const json::value& b);
// A hash key consistent with GoEqual for scalars; "" for maps and slices.
std::string ScalarKey(const json::value& v);
// The directive value equals the string `s` (Go: interface == string).
bool IsString(const json::value* v, std::string_view s);

// kube's errors: BadRequest for the directive-format errors, 422 for lists of lists, a plain 500
// for the rest.
Status BadRequest(std::string_view msg);
Status ErrNoListOfLists();
Status ErrBadArgType(std::string_view expected, const json::value& actual);
Status ErrNoMergeKey(const json::object& m, std::string_view key);
Status ErrBadPatchType(const json::value& t, const json::object& m);
inline constexpr std::string_view kErrBadPatchFormatForPrimitiveList = "invalid patch format of primitive list";
inline constexpr std::string_view kErrBadPatchFormatForRetainKeys = "invalid patch format of retainKeys";
inline constexpr std::string_view kErrBadPatchFormatForSetElementOrderList = "invalid patch format of setElementOrder list";

// Maps (strategic_merge_patch.cpp).
StatusOr<json::object> MergeMap(json::object original, json::object patch, const Schema* schema);
json::value RemoveDirectives(json::value v, bool* keep);

// Lists (strategic_merge_patch_lists.cpp). When `original_view` is given it receives the original
// list as kube reads it again after the merge: Go's slices share their array, so the merge's
// deletions shift it and its appends may land in it (this decides kube's $setElementOrder results).
StatusOr<json::array> MergeSliceHandler(json::value original, json::value patch, const Schema* elem,
                                        const std::string& strategy, const std::string& merge_key, bool is_delete_list,
                                        json::array* original_view = nullptr);
StatusOr<GoType> SliceElementType(const json::array& a, const json::array& b);
Status ValidatePatchWithSetOrderList(const json::array& patch_list, const json::array& set_order,
                                     const std::string& merge_key);
// kube's partitionPrimitivesByPresentInList / partitionMapsByPresentInList (merge_key ""
// selects the first): the items of `merged` present in `by`, and the others.
struct Partitioned {
  json::array patch_items;
  json::array server_only;
};
StatusOr<Partitioned> Partition(json::array merged, const json::array& by, const std::string& merge_key);
// kube's normalizeElementOrder: each part ordered by its order list, then interleaved by server order.
StatusOr<json::array> NormalizeElementOrder(json::array patch, json::array server_only, const json::array& patch_order,
                                            const json::array& server_order, const std::string& merge_key, GoType kind);

}  // namespace capstan::apimachinery::smp
