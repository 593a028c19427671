// apimachinery/managedfields/typed.cpp: field sets, comparison, merge and pruning over schemas.
#include "apimachinery/managedfields/typed.h"

#include <boost/json.hpp>
#include <deque>
#include <optional>
#include <set>

namespace capstan::apimachinery::managedfields {

namespace json = boost::json;
using Kind = TypeInfo::Kind;

namespace {

constexpr int kMaxDepth = 512;

ListType ListTypeOf(const Schema* s, const Schema& d) {
  ListType lt = s->list_type != ListType::kUnset ? s->list_type : d.list_type;
  return lt;
}

const std::vector<std::string>& MapKeysOf(const Schema* s) {
  if (!s->list_map_keys.empty()) return s->list_map_keys;
  return s->Deref().list_map_keys;
}

bool MapAtomic(const Schema* s, const Schema& d) {
  MapType mt = s->map_type != MapType::kUnset ? s->map_type : d.map_type;
  return mt == MapType::kAtomic;
}

// The type for a value: the schema's, or deduced from the value where the schema says nothing.
TypeInfo Effective(const Schema* s, const json::value* a, const json::value* b = nullptr) {
  TypeInfo t = ResolveType(s);
  if (t.kind != Kind::kUntyped) return t;
  const json::value* v = a && !a->is_null() ? a : b;
  if (v && v->is_object()) {
    t.kind = Kind::kMap;
  } else if (v && v->is_array()) {
    t.kind = Kind::kList;
    t.atomic = true;
  } else {
    t.kind = Kind::kScalar;
  }
  return t;
}

bool IsZeroDefault(const json::value& v) {
  if (v.is_null()) return true;
  if (v.is_string()) return v.get_string().empty();
  if (v.is_bool()) return !v.get_bool();
  if (v.is_int64()) return v.get_int64() == 0;
  if (v.is_uint64()) return v.get_uint64() == 0;
  if (v.is_double()) return v.get_double() == 0;
  return false;
}

const Schema* ItemSchema(const TypeInfo& t) {
  if (!t.node) return nullptr;
  return t.node->items ? t.node->items : t.node->Deref().items;
}

// ---- field sets

void WalkSet(const json::value& v, const Schema* s, FieldSet& node, int depth) {
  if (depth > kMaxDepth) {
    node.member = true;
    return;
  }
  TypeInfo t = Effective(s, &v);
  if (v.is_null() || t.kind == Kind::kScalar || t.atomic) {
    node.member = true;
    return;
  }
  if (t.kind == Kind::kList) {
    if (!v.is_array()) {
      node.member = true;
      return;
    }
    const auto& arr = v.get_array();
    for (size_t i = 0; i < arr.size(); ++i) {
      FieldSet& c = node.MakeChild(ListItemElement(t, arr[i], i));
      WalkSet(arr[i], ItemSchema(t), c, depth + 1);
      c.member = true;
    }
    return;
  }
  if (!v.is_object()) {
    node.member = true;
    return;
  }
  for (const auto& kv : v.get_object()) {
    FieldSet& c = node.MakeChild(PathElement::Field(std::string(kv.key())));
    WalkSet(kv.value(), FieldSchema(t, kv.key()), c, depth + 1);
    if (kv.value().is_null() || (kv.value().is_object() && kv.value().get_object().empty()) ||
        !IsDeclaredField(t, kv.key())) {
      c.member = true;
    }
  }
}

// ---- comparison

using Items = std::vector<std::pair<PathElement, const json::value*>>;

Items IndexItems(const TypeInfo& t, const json::value* v) {
  Items out;
  if (!v || !v->is_array()) return out;
  const auto& arr = v->get_array();
  for (size_t i = 0; i < arr.size(); ++i) out.emplace_back(ListItemElement(t, arr[i], i), &arr[i]);
  return out;
}

const json::value* FindItem(const Items& items, const PathElement& pe) {
  for (const auto& [e, v] : items) {
    if (e == pe) return v;
  }
  return nullptr;
}

bool EmptyOrAbsent(const json::value* v, bool list) {
  if (!v || v->is_null()) return true;
  if (list) return v->is_array() && v->get_array().empty();
  return v->is_object() && v->get_object().empty();
}

bool Mismatch(const json::value* v, bool list) {
  if (!v || v->is_null()) return false;
  return list ? !v->is_array() : !v->is_object();
}

void CompareWalk(const json::value* l, const json::value* r, const Schema* s, Path& path, Comparison& c, int depth);

// metadata.managedFields is never owned: comparing it would only cost time.
bool IsManagedFieldsPath(const Path& path, std::string_view key) {
  return path.size() == 1 && path[0].kind == PathElement::Kind::kField && path[0].name == "metadata" &&
         key == "managedFields";
}

void CompareFields(const json::object* lo, const json::object* ro, const TypeInfo& t, Path& path, Comparison& c,
                   int depth) {
  if (lo) {
    for (const auto& kv : *lo) {
      if (IsManagedFieldsPath(path, kv.key())) continue;
      path.push_back(PathElement::Field(std::string(kv.key())));
      CompareWalk(&kv.value(), ro ? ro->if_contains(kv.key()) : nullptr, FieldSchema(t, kv.key()), path, c, depth + 1);
      path.pop_back();
    }
  }
  if (ro) {
    for (const auto& kv : *ro) {
      if ((lo && lo->contains(kv.key())) || IsManagedFieldsPath(path, kv.key())) continue;
      path.push_back(PathElement::Field(std::string(kv.key())));
      CompareWalk(nullptr, &kv.value(), FieldSchema(t, kv.key()), path, c, depth + 1);
      path.pop_back();
    }
  }
}

void CompareWalk(const json::value* l, const json::value* r, const Schema* s, Path& path, Comparison& c, int depth) {
  TypeInfo t = Effective(s, r, l);
  bool list = t.kind == Kind::kList;
  bool leaf = depth > kMaxDepth || t.kind == Kind::kScalar || t.atomic || Mismatch(l, list) || Mismatch(r, list) ||
              (EmptyOrAbsent(l, list) && EmptyOrAbsent(r, list));
  if (leaf) {
    if (!l) {
      c.added.Insert(path);
    } else if (!r) {
      c.removed.Insert(path);
    } else if (*l != *r) {
      c.modified.Insert(path);
    }
    return;
  }
  if (list) {
    Items li = IndexItems(t, l), ri = IndexItems(t, r);
    const Schema* is = ItemSchema(t);
    std::set<PathElement> seen;
    for (const auto& [pe, lv] : li) {
      if (!seen.insert(pe).second) continue;
      path.push_back(pe);
      CompareWalk(lv, FindItem(ri, pe), is, path, c, depth + 1);
      path.pop_back();
    }
    for (const auto& [pe, rv] : ri) {
      if (!seen.insert(pe).second) continue;
      path.push_back(pe);
      CompareWalk(nullptr, rv, is, path, c, depth + 1);
      path.pop_back();
    }
  } else {
    CompareFields(l && l->is_object() ? &l->get_object() : nullptr, r && r->is_object() ? &r->get_object() : nullptr,
                  t, path, c, depth);
  }
  if (!l) {
    c.added.Insert(path);
  } else if (!r) {
    c.removed.Insert(path);
  }
}

// ---- merge

void MergeInto(json::value& l, const json::value& r, const Schema* s, int depth);

void MergeList(const TypeInfo& t, json::value& l, const json::value& r, int depth) {
  Items ri = IndexItems(t, &r);
  // The live items, moved out and indexed by element.
  json::array live = std::move(l.get_array());
  std::vector<std::pair<PathElement, json::value*>> li;
  for (size_t i = 0; i < live.size(); ++i) li.emplace_back(ListItemElement(t, live[i], i), &live[i]);
  auto find_l = [&](const PathElement& pe) -> json::value* {
    for (auto& [e, v] : li) {
      if (e == pe) return v;
    }
    return nullptr;
  };
  const Schema* is = ItemSchema(t);
  std::deque<PathElement> shared;
  for (const auto& [pe, v] : ri) {
    if (find_l(pe)) shared.push_back(pe);
  }
  std::optional<PathElement> next;
  auto advance = [&] {
    next.reset();
    if (!shared.empty()) {
      next = shared.front();
      shared.pop_front();
    }
  };
  advance();
  std::set<PathElement> merged_r;
  json::array out;
  size_t a = 0, b = 0;
  const size_t na = li.size(), nb = ri.size();
  // Takes a live item (the first one with this element) merged with the configuration's.
  auto take = [&](const PathElement& pe, const json::value& rv) {
    if (json::value* lv = find_l(pe)) {
      json::value item = std::move(*lv);
      MergeInto(item, rv, is, depth + 1);
      out.push_back(std::move(item));
    } else {
      out.push_back(rv);
    }
  };
  while (a < na || b < nb) {
    if (a < na && b < nb) {
      const PathElement& pe = li[a].first;
      if (pe == ri[b].first) {
        merged_r.insert(pe);
        take(pe, *ri[b].second);
        ++a;
        ++b;
        advance();
        continue;
      }
      if (FindItem(ri, pe) && next && !(*next == pe)) {
        ++a;
        continue;
      }
    }
    if (a < na) {
      const PathElement& pe = li[a].first;
      if (!FindItem(ri, pe)) {
        out.push_back(std::move(*li[a].second));
        ++a;
        continue;
      }
      if (merged_r.count(pe)) ++a;
    }
    if (b < nb) {
      const PathElement& pe = ri[b].first;
      merged_r.insert(pe);
      take(pe, *ri[b].second);
      ++b;
      if (next && *next == pe) advance();
    }
  }
  l = std::move(out);
}

void MergeInto(json::value& l, const json::value& r, const Schema* s, int depth) {
  TypeInfo t = Effective(s, &r, &l);
  bool list = t.kind == Kind::kList;
  bool leaf = depth > kMaxDepth || t.kind == Kind::kScalar || t.atomic || Mismatch(&l, list) || Mismatch(&r, list) ||
              (EmptyOrAbsent(&l, list) && EmptyOrAbsent(&r, list)) || l.is_null() || r.is_null();
  if (leaf) {
    l = r;
    return;
  }
  if (list) {
    MergeList(t, l, r, depth);
    return;
  }
  json::object& out = l.get_object();
  for (const auto& kv : r.get_object()) {
    if (auto* cur = out.if_contains(kv.key())) {
      MergeInto(*cur, kv.value(), FieldSchema(t, kv.key()), depth + 1);
    } else {
      out[kv.key()] = kv.value();
    }
  }
}

// ---- pruning

using Owners = std::vector<const FieldSet*>;

// The owners' nodes for one child element (none: nobody owns anything at or below it).
Owners ChildOwners(const Owners& owners, const PathElement& pe) {
  Owners out;
  for (const FieldSet* o : owners) {
    if (const FieldSet* c = o->Child(pe)) out.push_back(c);
  }
  return out;
}

void PruneWalk(json::value& v, const FieldSet& last, const Owners& owners, const Schema* s, int depth) {
  if (depth > kMaxDepth) return;
  TypeInfo t = Effective(s, &v);
  if (t.kind == Kind::kList && v.is_array() && !t.atomic) {
    auto& arr = v.get_array();
    for (size_t i = arr.size(); i-- > 0;) {
      PathElement pe = ListItemElement(t, arr[i], i);
      const FieldSet* lc = last.Child(pe);
      if (!lc) continue;
      Owners oc = ChildOwners(owners, pe);
      if (oc.empty() && (lc->member || lc->children.empty())) {
        arr.erase(arr.begin() + static_cast<std::ptrdiff_t>(i));
      } else if (!lc->children.empty()) {
        PruneWalk(arr[i], *lc, oc, ItemSchema(t), depth + 1);
      }
    }
    return;
  }
  if ((t.kind == Kind::kStruct || t.kind == Kind::kMap) && v.is_object() && !t.atomic) {
    auto& obj = v.get_object();
    for (const auto& [pe, lc] : last.children) {
      if (pe.kind != PathElement::Kind::kField) continue;
      auto* child = obj.if_contains(pe.name);
      if (!child) continue;
      Owners oc = ChildOwners(owners, pe);
      // Only what the last apply set itself goes; a field that was merely the parent of what it set
      // (metadata above metadata.annotations.a) stays, and is pruned inside.
      if (oc.empty() && (lc.member || lc.children.empty())) {
        obj.erase(pe.name);
      } else if (!lc.children.empty()) {
        PruneWalk(*child, lc, oc, FieldSchema(t, pe.name), depth + 1);
      }
    }
  }
}

}  // namespace

TypeInfo ResolveType(const Schema* s) {
  TypeInfo t;
  if (!s) return t;
  const Schema& d = s->Deref();
  t.node = &d;
  if (d.int_or_string || s->int_or_string) {
    t.kind = Kind::kScalar;
    return t;
  }
  if (d.HasType("array") || d.items) {
    t.kind = Kind::kList;
    ListType lt = ListTypeOf(s, d);
    if (lt == ListType::kMap && !MapKeysOf(s).empty()) {
      t.list_type = ListType::kMap;
    } else if (lt == ListType::kSet) {
      t.list_type = ListType::kSet;
    } else {
      t.list_type = ListType::kAtomic;
      t.atomic = true;
    }
    // Remember the node carrying the keys (it may be the referring one).
    t.node = !s->list_map_keys.empty() ? s : &d;
    return t;
  }
  if (!d.properties.empty()) {
    t.kind = Kind::kStruct;
    t.atomic = MapAtomic(s, d);
    return t;
  }
  if (d.additional_properties_kind == AdditionalPropertiesKind::kSchema && d.additional_properties) {
    t.kind = Kind::kMap;
    t.atomic = MapAtomic(s, d);
    return t;
  }
  if (d.HasType("object")) {
    t.kind = MapAtomic(s, d) ? Kind::kMap : Kind::kUntyped;
    t.atomic = MapAtomic(s, d);
    if (!t.atomic) t.node = nullptr;
    return t;
  }
  if (d.HasType("string") || d.HasType("integer") || d.HasType("number") || d.HasType("boolean")) {
    t.kind = Kind::kScalar;
    return t;
  }
  t.node = nullptr;
  return t;
}

const Schema* FieldSchema(const TypeInfo& t, std::string_view name) {
  if (!t.node) return nullptr;
  if (t.kind == Kind::kStruct) {
    if (const Schema* p = t.node->Property(name)) return p;
  }
  if (t.node->additional_properties_kind == AdditionalPropertiesKind::kSchema) return t.node->additional_properties;
  return nullptr;
}

bool IsDeclaredField(const TypeInfo& t, std::string_view name) {
  return t.kind == Kind::kStruct && t.node && t.node->Property(name) != nullptr;
}

PathElement ListItemElement(const TypeInfo& t, const json::value& item, size_t index) {
  if (t.kind == Kind::kList && t.list_type == ListType::kMap && item.is_object() && t.node) {
    const Schema* is = t.node->Deref().items ? t.node->Deref().items : t.node->items;
    TypeInfo it = ResolveType(is);
    std::vector<std::pair<std::string, json::value>> key;
    for (const auto& k : MapKeysOf(t.node)) {
      if (const auto* v = item.get_object().if_contains(k)) {
        key.emplace_back(k, *v);
      } else if (const Schema* fs = FieldSchema(it, k)) {
        if (const json::value* def = fs->Default(); def && !IsZeroDefault(*def)) key.emplace_back(k, *def);
      }
    }
    if (!key.empty()) return PathElement::Key(std::move(key));
  }
  if (t.kind == Kind::kList && t.list_type == ListType::kSet && !item.is_object() && !item.is_array()) {
    return PathElement::Value(item);
  }
  return PathElement::Index(static_cast<int64_t>(index));
}

FieldSet ToFieldSet(const json::value& v, const Schema* schema) {
  FieldSet s;
  WalkSet(v, schema, s, 0);
  s.member = false;
  s.Compact();
  return s;
}

Comparison Compare(const json::value* lhs, const json::value* rhs, const Schema* schema) {
  Comparison c;
  Path p;
  CompareWalk(lhs, rhs, schema, p, c, 0);
  c.added.member = c.modified.member = c.removed.member = false;
  return c;
}

json::value Merge(const json::value& live, const json::value& config, const Schema* schema) {
  json::value out = live;
  MergeInto(out, config, schema, 0);
  return out;
}

void MergeInto(json::value& live, const json::value& config, const Schema* schema) {
  MergeInto(live, config, schema, 0);
}

Comparison CompareObjects(const json::object* lhs, const json::object* rhs, const Schema* schema) {
  Comparison c;
  Path p;
  CompareFields(lhs, rhs, ResolveType(schema).kind == Kind::kUntyped ? TypeInfo{Kind::kMap} : ResolveType(schema), p,
                c, 0);
  return c;
}

void PruneUnowned(json::value& v, const FieldSet& last, const FieldSet& owned, const Schema* schema) {
  PruneWalk(v, last, Owners{&owned}, schema, 0);
}

void PruneUnowned(json::value& v, const FieldSet& last, const std::vector<const FieldSet*>& owners,
                  const Schema* schema) {
  PruneWalk(v, last, owners, schema, 0);
}

}  // namespace capstan::apimachinery::managedfields
