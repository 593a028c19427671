// apimachinery/managedfields/typed.h: the schema-driven walks of server-side apply over JSON objects,
// as structured-merge-diff defines them: the field set of a value, the comparison of two values
// (added / modified / removed paths), the merge of an apply configuration into a live object, and the
// removal of paths. Merge rules come from the schema: x-kubernetes-list-type atomic / set / map with
// x-kubernetes-list-map-keys (missing key fields take the schema's default), x-kubernetes-map-type
// atomic / granular, structs by their properties. Lists without a list type are atomic; objects
// without a schema (or under x-kubernetes-preserve-unknown-fields) are granular maps with atomic
// lists, so a custom resource's schema works the same way as a built-in one. Pure functions over
// immutable schemas; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <vector>

#include "apimachinery/managedfields/field_set.h"
#include "apimachinery/schema.h"

namespace capstan::apimachinery::managedfields {

// What server-side apply sees of a schema node.
struct TypeInfo {
  enum class Kind { kScalar, kStruct, kMap, kList, kUntyped };
  Kind kind = Kind::kUntyped;
  bool atomic = false;
  ListType list_type = ListType::kAtomic;  // for kList: kAtomic, kSet or kMap
  const Schema* node = nullptr;            // the dereferenced node (null for kUntyped)
};
TypeInfo ResolveType(const Schema* s);
// The schema of a struct field or map value (null when unknown).
const Schema* FieldSchema(const TypeInfo& t, std::string_view name);
bool IsDeclaredField(const TypeInfo& t, std::string_view name);

// The path element of a list item (k: for map lists, v: for set lists, i: otherwise).
PathElement ListItemElement(const TypeInfo& list, const boost::json::value& item, size_t index);

// The set of fields a value holds (kube's ToFieldSet): what an applier owns by applying it.
FieldSet ToFieldSet(const boost::json::value& v, const Schema* schema);

struct Comparison {
  FieldSet added, modified, removed;
  bool IsSame() const { return added.Empty() && modified.Empty() && removed.Empty(); }
};
// What changed from `lhs` to `rhs` (either may be null: absent).
Comparison Compare(const boost::json::value* lhs, const boost::json::value* rhs, const Schema* schema);

// Compare for two objects (either may be null: absent), without copying them into values.
Comparison CompareObjects(const boost::json::object* lhs, const boost::json::object* rhs, const Schema* schema);

// `config` merged into `live`: scalars and atomic values replaced, structs and granular maps merged
// by key, set and map lists merged by item.
boost::json::value Merge(const boost::json::value& live, const boost::json::value& config, const Schema* schema);
void MergeInto(boost::json::value& live, const boost::json::value& config, const Schema* schema);

// Removes from `v` the nodes of `last` (a set a manager owned) that nobody in `owned` holds any part
// of (kube's pruning of fields an applier stopped applying).
void PruneUnowned(boost::json::value& v, const FieldSet& last, const FieldSet& owned, const Schema* schema);
// The same with the owned sets given one per manager (nothing is copied).
void PruneUnowned(boost::json::value& v, const FieldSet& last, const std::vector<const FieldSet*>& owners,
                  const Schema* schema);

}  // namespace capstan::apimachinery::managedfields
