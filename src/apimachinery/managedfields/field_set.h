// apimachinery/managedfields/field_set.h: a set of field paths as server-side apply keeps it per
// manager: a tree whose nodes are path elements, each node either a member of the set itself or only
// the parent of members. Set algebra (union, difference, intersection), iteration in kube's order, and
// the fieldsV1 encoding of managedFields ({"f:spec": {"f:replicas": {}}, ".": {}} for a node that is a
// member and has members below it). Values; thread-compatible.
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <functional>
#include <map>

#include "apimachinery/managedfields/path_element.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery::managedfields {

class FieldSet {
 public:
  bool member = false;  // the path leading to this node is in the set
  std::map<PathElement, FieldSet> children;

  bool Empty() const { return !member && children.empty(); }
  void Insert(const Path& p);
  bool Has(const Path& p) const;  // p is a member
  const FieldSet* Child(const PathElement& e) const;
  FieldSet& MakeChild(const PathElement& e) { return children[e]; }
  // Drops nodes that hold no member (after in-place edits).
  void Compact();

  FieldSet Union(const FieldSet& o) const;
  FieldSet Difference(const FieldSet& o) const;    // members of this that are not members of o
  FieldSet Intersection(const FieldSet& o) const;  // members of both
  // Every member path in order (parents before their children).
  void Iterate(const std::function<void(const Path&)>& fn) const;
  size_t Size() const;

  bool operator==(const FieldSet& o) const;

  boost::json::object ToFieldsV1() const;
  static StatusOr<FieldSet> FromFieldsV1(const boost::json::value& v);

 private:
  void IterateFrom(Path& prefix, const std::function<void(const Path&)>& fn) const;
};

}  // namespace capstan::apimachinery::managedfields
