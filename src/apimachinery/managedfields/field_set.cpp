// apimachinery/managedfields/field_set.cpp: the field set tree and its fieldsV1 form.
#include "apimachinery/managedfields/field_set.h"

#include <boost/json.hpp>

namespace capstan::apimachinery::managedfields {

namespace json = boost::json;

void FieldSet::Insert(const Path& p) {
  FieldSet* n = this;
  for (const auto& e : p) n = &n->children[e];
  n->member = true;
}

bool FieldSet::Has(const Path& p) const {
  const FieldSet* n = this;
  for (const auto& e : p) {
    n = n->Child(e);
    if (!n) return false;
  }
  return n->member;
}

const FieldSet* FieldSet::Child(const PathElement& e) const {
  auto it = children.find(e);
  return it == children.end() ? nullptr : &it->second;
}

void FieldSet::Compact() {
  for (auto it = children.begin(); it != children.end();) {
    it->second.Compact();
    if (it->second.Empty()) {
      it = children.erase(it);
    } else {
      ++it;
    }
  }
}

FieldSet FieldSet::Union(const FieldSet& o) const {
  FieldSet out = *this;
  out.member = member || o.member;
  for (const auto& [e, c] : o.children) {
    auto it = out.children.find(e);
    if (it == out.children.end()) {
      out.children.emplace(e, c);
    } else {
      it->second = it->second.Union(c);
    }
  }
  return out;
}

FieldSet FieldSet::Difference(const FieldSet& o) const {
  FieldSet out;
  out.member = member && !o.member;
  for (const auto& [e, c] : children) {
    const FieldSet* oc = o.Child(e);
    FieldSet d = oc ? c.Difference(*oc) : c;
    if (!d.Empty()) out.children.emplace(e, std::move(d));
  }
  return out;
}

FieldSet FieldSet::Intersection(const FieldSet& o) const {
  FieldSet out;
  out.member = member && o.member;
  for (const auto& [e, c] : children) {
    const FieldSet* oc = o.Child(e);
    if (!oc) continue;
    FieldSet d = c.Intersection(*oc);
    if (!d.Empty()) out.children.emplace(e, std::move(d));
  }
  return out;
}

void FieldSet::IterateFrom(Path& prefix, const std::function<void(const Path&)>& fn) const {
  if (member) fn(prefix);
  for (const auto& [e, c] : children) {
    prefix.push_back(e);
    c.IterateFrom(prefix, fn);
    prefix.pop_back();
  }
}

void FieldSet::Iterate(const std::function<void(const Path&)>& fn) const {
  Path p;
  IterateFrom(p, fn);
}

size_t FieldSet::Size() const {
  size_t n = member ? 1 : 0;
  for (const auto& [e, c] : children) n += c.Size();
  return n;
}

bool FieldSet::operator==(const FieldSet& o) const {
  if (member != o.member || children.size() != o.children.size()) return false;
  auto a = children.begin();
  auto b = o.children.begin();
  for (; a != children.end(); ++a, ++b) {
    if (!(a->first == b->first) || !(a->second == b->second)) return false;
  }
  return true;
}

json::object FieldSet::ToFieldsV1() const {
  json::object out;
  // A node that is a member and also has members below it says so with ".".
  if (member && !children.empty()) out.emplace(".", json::object());
  for (const auto& [e, c] : children) out.emplace(e.Serialize(), c.ToFieldsV1());
  return out;
}

namespace {

Status ReadNode(const json::value& v, FieldSet& node, int depth) {
  if (depth > 1000) return Status(400, "BadRequest", "fieldsV1 nested too deeply");
  if (!v.is_object()) return Status(400, "BadRequest", "expected an object in fieldsV1");
  const auto& o = v.get_object();
  if (o.empty()) {
    node.member = true;
    return Status();
  }
  for (const auto& kv : o) {
    if (kv.key() == ".") {
      node.member = true;
      continue;
    }
    auto e = ParsePathElement(kv.key());
    if (!e.ok()) return e.TakeStatus();
    FieldSet& c = node.children[*e];
    RETURN_IF_ERROR(ReadNode(kv.value(), c, depth + 1));
  }
  return Status();
}

}  // namespace

StatusOr<FieldSet> FieldSet::FromFieldsV1(const json::value& v) {
  FieldSet s;
  if (v.is_object() && v.get_object().empty()) return s;  // an empty set
  Status st = ReadNode(v, s, 0);
  if (!st.ok()) return st;
  s.member = false;
  return s;
}

}  // namespace capstan::apimachinery::managedfields
