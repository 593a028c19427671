// Strategic merge patch: entry points, maps and directives (kube's mergeMap, applyRetainKeysDirective,
// mergePatchIntoOriginal, removeDirectives). Lists are in strategic_merge_patch_lists.cpp.
#include "apimachinery/strategic_merge_patch.h"

#include <algorithm>
#include <charconv>
#include <unordered_set>

#include "apimachinery/errors.h"
#include "apimachinery/patch_common.h"
#include "apimachinery/schema_go_format.h"
#include "apimachinery/strategic_merge_patch_internal.h"
#include "util/strings.h"

namespace capstan::apimachinery {

namespace smp {

// --- schema lookups

Lookup LookupForStruct(const Schema* s, std::string_view key) {
  if (s == nullptr) return {};
  const Schema& d = s->Deref();
  if (const Schema* p = d.Property(key)) return {p, {p->PatchStrategies(), p->PatchMergeKey()}};
  if (d.additional_properties_kind == AdditionalPropertiesKind::kSchema) return {d.additional_properties, {}};
  return {};
}

Lookup LookupForSlice(const Schema* s, std::string_view key) {
  Lookup field = LookupForStruct(s, key);
  // A field whose schema is not an array describes the element itself (kube treats a pointer to a
  // struct used as a list that way).
  if (field.schema != nullptr && field.schema->Deref().items != nullptr) field.schema = field.schema->Deref().items;
  return field;
}

std::string SchemaName(const Schema* elem) {
  if (elem == nullptr) return "interface";
  const Schema& d = elem->Deref();
  if (!d.properties.empty()) return "struct";
  if (d.additional_properties_kind == AdditionalPropertiesKind::kSchema) return "map";
  return d.HasType("object") ? "struct" : "interface";
}

StatusOr<std::string> ExtractStrategy(const std::vector<std::string>& strategies) {
  if (strategies.empty()) return std::string();
  if (strategies.size() == 1) return strategies[0] == kRetainKeysStrategy ? std::string() : strategies[0];
  if (strategies.size() == 2) {
    if (strategies[0] == kRetainKeysStrategy) return strategies[1];
    if (strategies[1] == kRetainKeysStrategy) return strategies[0];
  }
  return PatchPlainError("unexpected patch strategy: [" + Join(strategies, " ") + "]");
}

// --- Go values

GoType TypeOf(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null: return GoType::kNil;
    case json::kind::bool_: return GoType::kBool;
    case json::kind::int64: return GoType::kInt64;
    case json::kind::uint64:
    case json::kind::double_: return GoType::kFloat64;
    case json::kind::string: return GoType::kString;
    case json::kind::array: return GoType::kSlice;
    case json::kind::object: return GoType::kMap;
  }
  return GoType::kNil;
}

std::string ScalarKey(const json::value& v) {
  switch (TypeOf(v)) {
    case GoType::kNil: return "n";
    case GoType::kBool: return v.get_bool() ? "t" : "f";
    case GoType::kInt64: return "i" + std::to_string(v.get_int64());
    case GoType::kFloat64: {
      double d = v.is_double() ? v.get_double() : static_cast<double>(v.get_uint64());
      if (d == 0) return "d0";
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, d);
      return "d" + std::string(buf, r.ptr);
    }
    case GoType::kString: return "s" + std::string(v.get_string());
    default: return "";
  }
}

bool GoEqual(const json::value& a, const json::value& b) {
  GoType t = TypeOf(a);
  if (t != TypeOf(b)) return false;
  switch (t) {
    case GoType::kNil: return true;
    case GoType::kBool: return a.get_bool() == b.get_bool();
    case GoType::kInt64: return a.get_int64() == b.get_int64();
    case GoType::kFloat64: {
      double x = a.is_double() ? a.get_double() : static_cast<double>(a.get_uint64());
      double y = b.is_double() ? b.get_double() : static_cast<double>(b.get_uint64());
      return x == y;
    }
    case GoType::kString: return a.get_string() == b.get_string();
    default: return false;  // Go panics comparing maps or slices
  }
}

bool IsString(const json::value* v, std::string_view s) { return v != nullptr && v->is_string() && v->get_string() == s; }

// --- errors

Status BadRequest(std::string_view msg) { return NewBadRequest(std::string(msg)); }
Status ErrNoListOfLists() { return PatchUnprocessable(); }
Status ErrBadArgType(std::string_view expected, const json::value& actual) {
  return PatchPlainError("expected a " + std::string(expected) + ", but received a " + GoTypeName(actual));
}
Status ErrNoMergeKey(const json::object& m, std::string_view key) {
  return PatchPlainError("map: " + GoSprint(json::value(m)) + " does not contain declared merge key: " + std::string(key));
}
Status ErrBadPatchType(const json::value& t, const json::object& m) {
  std::string ts = t.is_string() ? std::string(t.get_string()) : "%!s(" + GoTypeName(t) + "=" + GoSprint(t) + ")";
  if (t.is_null()) ts = "%!s(<nil>)";
  return PatchPlainError("unknown patch type: " + ts + " in map: " + GoSprint(json::value(m)));
}

// --- maps

namespace {

void DiscardNullValues(json::value& v) {
  if (v.is_object()) {
    json::object& o = v.get_object();
    std::vector<std::string> remove;
    for (auto& kv : o) {
      if (kv.value().is_null()) {
        remove.emplace_back(kv.key());
      } else {
        DiscardNullValues(kv.value());
      }
    }
    for (const auto& k : remove) o.erase(k);
  } else if (v.is_array()) {
    for (auto& e : v.get_array()) DiscardNullValues(e);
  }
}

// kube's extractKey: "<prefix>/<key>" -> <key>.
StatusOr<std::string> ExtractKey(std::string_view s, std::string_view prefix, std::string_view error) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos || s.substr(0, slash) != prefix) return BadRequest(error);
  return std::string(s.substr(slash + 1));
}

Status ApplyRetainKeys(json::object& original, json::object& patch) {
  json::value* retain = patch.if_contains(kRetainKeysDirective);
  if (retain == nullptr) return Status::Ok();
  json::value list = std::move(*retain);
  patch.erase(kRetainKeysDirective);
  if (!list.is_array()) return BadRequest(kErrBadPatchFormatForRetainKeys);
  std::unordered_set<std::string> keep;
  for (const auto& v : list.get_array()) {
    if (v.is_string()) keep.emplace(v.get_string());
  }
  for (const auto& kv : patch) {
    std::string_view k = kv.key();
    if (kv.value().is_null() || StartsWith(k, kDeleteFromPrimitiveListPrefix) || StartsWith(k, kSetElementOrderPrefix)) continue;
    if (!keep.count(std::string(k))) return BadRequest(kErrBadPatchFormatForRetainKeys);
  }
  std::vector<std::string> remove;
  for (const auto& kv : original) {
    if (!keep.count(std::string(kv.key()))) remove.emplace_back(kv.key());
  }
  for (const auto& k : remove) original.erase(k);
  return Status::Ok();
}

// kube's mergePatchIntoOriginal: each "$setElementOrder/<field>" with its list.
Status MergeElementOrders(json::object& original, json::object& patch, const Schema* schema) {
  std::vector<std::string> keys;
  for (const auto& kv : patch) {
    if (StartsWith(kv.key(), kSetElementOrderPrefix)) keys.emplace_back(kv.key());
  }
  for (const auto& key : keys) {
    json::value order = std::move(patch.at(key));
    patch.erase(key);
    if (!order.is_array()) return ErrBadArgType(kSliceType, order);
    const json::array& set_order = order.get_array();
    ASSIGN_OR_RETURN(std::string field, ExtractKey(key, kSetElementOrderPrefix, kErrBadPatchFormatForSetElementOrderList));
    json::value* original_list = original.if_contains(field);
    json::value* patch_list = patch.if_contains(field);
    if (original_list != nullptr && !original_list->is_array()) return ErrBadArgType(kSliceType, *original_list);
    if (patch_list != nullptr && !patch_list->is_array()) return ErrBadArgType(kSliceType, *patch_list);
    Lookup lookup = LookupForSlice(schema, field);
    ASSIGN_OR_RETURN(std::string strategy, ExtractStrategy(lookup.meta.strategies));
    const std::string& merge_key = lookup.meta.merge_key;
    static const json::array kEmpty;
    const json::array& patch_items = patch_list ? patch_list->get_array() : kEmpty;
    RETURN_IF_ERROR(ValidatePatchWithSetOrderList(patch_items, set_order, merge_key));

    json::array original_items;
    json::array merged;
    if (original_list != nullptr && patch_list == nullptr) {
      original_items = original_list->get_array();
      merged = original_items;
    } else if (original_list == nullptr && patch_list != nullptr) {
      bool keep = true;
      merged = RemoveDirectives(*patch_list, &keep).get_array();
    } else if (original_list != nullptr && patch_list != nullptr) {
      ASSIGN_OR_RETURN(merged, MergeSliceHandler(std::move(*original_list), *patch_list, lookup.schema, strategy,
                                                 merge_key, false, &original_items));
    } else {
      continue;
    }
    ASSIGN_OR_RETURN(Partitioned parts, Partition(std::move(merged), set_order, merge_key));
    ASSIGN_OR_RETURN(GoType kind, SliceElementType(original_items, patch_items));
    ASSIGN_OR_RETURN(json::array both, NormalizeElementOrder(std::move(parts.patch_items), std::move(parts.server_only),
                                                             set_order, original_items, merge_key, kind));
    original[field] = std::move(both);
    patch.erase(field);
  }
  return Status::Ok();
}

// The patch value taken as is where the original has nothing to merge with.
void TakePatchValue(json::object& original, const std::string& k, json::value patch_value) {
  DiscardNullValues(patch_value);
  bool keep = true;
  json::value v = RemoveDirectives(std::move(patch_value), &keep);
  if (keep) {
    original[k] = std::move(v);
  } else {
    original.erase(k);
  }
}

}  // namespace

json::value RemoveDirectives(json::value v, bool* keep) {
  *keep = true;
  if (v.is_object()) {
    json::object& o = v.get_object();
    if (o.contains(kDirectiveMarker)) {
      *keep = false;
      return nullptr;
    }
    std::vector<std::string> remove;
    for (auto& kv : o) {
      bool k = true;
      kv.value() = RemoveDirectives(std::move(kv.value()), &k);
      if (!k) remove.emplace_back(kv.key());
    }
    for (const auto& k : remove) o.erase(k);
  } else if (v.is_array()) {
    json::array out;
    for (auto& e : v.get_array()) {
      bool k = true;
      json::value x = RemoveDirectives(std::move(e), &k);
      if (k) out.push_back(std::move(x));
    }
    return out;
  }
  return v;
}

StatusOr<json::object> MergeMap(json::object original, json::object patch, const Schema* schema) {
  if (const json::value* directive = patch.if_contains(kDirectiveMarker)) {
    if (IsString(directive, kReplaceDirective)) {
      patch.erase(kDirectiveMarker);
      return patch;
    }
    if (IsString(directive, kDeleteDirective)) return json::object();
    return ErrBadPatchType(*directive, patch);
  }
  RETURN_IF_ERROR(ApplyRetainKeys(original, patch));
  RETURN_IF_ERROR(MergeElementOrders(original, patch, schema));

  for (auto& kv : patch) {
    std::string k(kv.key());
    json::value& patch_value = kv.value();
    bool is_delete_list = false;
    if (StartsWith(k, kDeleteFromPrimitiveListPrefix)) {
      ASSIGN_OR_RETURN(k, ExtractKey(k, kDeleteFromPrimitiveListPrefix, kErrBadPatchFormatForPrimitiveList));
      is_delete_list = true;
    }
    if (patch_value.is_null()) {
      original.erase(k);
      continue;
    }
    json::value* cur = original.if_contains(k);
    if (cur == nullptr || TypeOf(*cur) != TypeOf(patch_value)) {
      if (!is_delete_list) TakePatchValue(original, k, std::move(patch_value));
      continue;
    }
    if (cur->is_object()) {
      Lookup lookup = LookupForStruct(schema, k);
      ASSIGN_OR_RETURN(std::string strategy, ExtractStrategy(lookup.meta.strategies));
      if (strategy == kReplaceDirective) {
        *cur = std::move(patch_value);
      } else {
        ASSIGN_OR_RETURN(json::object merged, MergeMap(std::move(cur->get_object()), std::move(patch_value.get_object()),
                                                       lookup.schema));
        *original.if_contains(k) = std::move(merged);
      }
    } else if (cur->is_array()) {
      Lookup lookup = LookupForSlice(schema, k);
      ASSIGN_OR_RETURN(std::string strategy, ExtractStrategy(lookup.meta.strategies));
      ASSIGN_OR_RETURN(json::array merged, MergeSliceHandler(std::move(*cur), std::move(patch_value), lookup.schema,
                                                             strategy, lookup.meta.merge_key, is_delete_list));
      *original.if_contains(k) = std::move(merged);
    } else {
      bool keep = true;
      *cur = RemoveDirectives(std::move(patch_value), &keep);
    }
  }
  return original;
}

}  // namespace smp

StatusOr<boost::json::object> StrategicMergeObjects(boost::json::object original, boost::json::object patch,
                                                    const Schema* schema) {
  int depth = 0;
  for (const auto& kv : patch) depth = std::max(depth, JsonDepth(kv.value()) + 1);
  if (depth > kMaxPatchNesting) return PatchUnprocessable();
  return smp::MergeMap(std::move(original), std::move(patch), schema);
}

StatusOr<boost::json::value> ApplyStrategicMergePatch(const boost::json::value& original, std::string_view patch_body,
                                                      const Schema* schema) {
  ASSIGN_OR_RETURN(boost::json::value patch, ParsePatchBody(patch_body));
  if (patch.is_null()) return original;
  if (!patch.is_object()) {
    std::string kind = patch.is_array() ? "array" : patch.is_string() ? "string" : patch.is_bool() ? "bool" : "number";
    return NewBadRequest("json: cannot unmarshal " + kind + " into Go value of type map[string]interface {}");
  }
  boost::json::object base = original.is_object() ? original.get_object() : boost::json::object();
  ASSIGN_OR_RETURN(boost::json::object merged, StrategicMergeObjects(std::move(base), std::move(patch.get_object()), schema));
  return boost::json::value(std::move(merged));
}

}  // namespace capstan::apimachinery
