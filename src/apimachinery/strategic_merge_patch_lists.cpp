// Strategic merge patch: lists (kube's mergeSlice and its helpers) and element order
// (partition, normalizeElementOrder, mergeSortedSlice, $setElementOrder validation).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "apimachinery/patch_common.h"
#include "apimachinery/schema_go_format.h"
#include "apimachinery/strategic_merge_patch_internal.h"

namespace capstan::apimachinery::smp {

namespace {

// The merge-key value of a list item as kube's index() reads it: the item's value for the key, or
// nil when the item is not a map or has no such key.
const json::value& KeyOf(const json::value& item, const std::string& merge_key, GoType kind) {
  static const json::value kNil;
  if (kind != GoType::kMap) return item;
  if (!item.is_object()) return kNil;
  const json::value* v = item.get_object().if_contains(merge_key);
  return v ? *v : kNil;
}

// First position of each key in an order list (kube's index(), by hash).
class OrderIndex {
 public:
  OrderIndex(const json::array& order, const std::string& merge_key, GoType kind) : merge_key_(merge_key), kind_(kind) {
    for (size_t i = 0; i < order.size(); ++i) {
      std::string k = ScalarKey(KeyOf(order[i], merge_key, kind));
      if (!k.empty()) first_.emplace(std::move(k), static_cast<int>(i));
    }
  }
  int Find(const json::value& item) const {
    std::string k = ScalarKey(KeyOf(item, merge_key_, kind_));
    if (k.empty()) return -1;
    auto it = first_.find(k);
    return it == first_.end() ? -1 : it->second;
  }

 private:
  std::unordered_map<std::string, int> first_;
  const std::string& merge_key_;
  GoType kind_;
};

// kube's findMapInSliceBasedOnKeyValue: the first map whose `key` equals `value`; an error for a
// non-map met before it.
StatusOr<int> FindMapByKey(const json::array& m, const std::string& key, const json::value& value) {
  for (size_t i = 0; i < m.size(); ++i) {
    if (!m[i].is_object()) return PatchPlainError("value for key " + std::to_string(i) + " is not a map");
    const json::value* v = m[i].get_object().if_contains(key);
    if (v != nullptr && GoEqual(*v, value)) return static_cast<int>(i);
    if (v != nullptr && v->is_null() && value.is_null()) return static_cast<int>(i);
  }
  return -1;
}

Status ValidateMergeKeyInList(const std::string& merge_key, const json::array& list) {
  for (const auto& item : list) {
    if (!item.is_object()) return ErrBadArgType(kMapType, item);
    if (!item.get_object().contains(merge_key)) return ErrNoMergeKey(item.get_object(), merge_key);
  }
  return Status::Ok();
}

// kube's normalizeSliceOrder.
StatusOr<json::array> NormalizeSliceOrder(json::array to_sort, const json::array& order, const std::string& merge_key,
                                          GoType kind) {
  json::array to_delete;
  if (kind == GoType::kMap) {
    RETURN_IF_ERROR(ValidateMergeKeyInList(merge_key, to_sort));
    RETURN_IF_ERROR(ValidateMergeKeyInList(merge_key, order));
    json::array keep;
    for (auto& v : to_sort) {
      (IsString(v.get_object().if_contains(kDirectiveMarker), kDeleteDirective) ? to_delete : keep).push_back(std::move(v));
    }
    to_sort = std::move(keep);
  }
  OrderIndex index(order, merge_key, kind);
  std::vector<std::pair<int, json::value*>> items;
  for (auto& v : to_sort) items.emplace_back(index.Find(v), &v);
  std::stable_sort(items.begin(), items.end(),
                   [](const auto& a, const auto& b) { return a.first >= 0 && b.first >= 0 && a.first < b.first; });
  json::array out;
  out.reserve(to_sort.size() + to_delete.size());
  for (auto& [pos, v] : items) out.push_back(std::move(*v));
  for (auto& v : to_delete) out.push_back(std::move(v));
  return out;
}

// kube's mergeSortedSlice: interleaves two ordered lists by their positions in the server order.
json::array MergeSortedSlice(json::array left, json::array right, const OrderIndex& server) {
  json::array s;
  s.reserve(left.size() + right.size());
  size_t i = 0, j = 0;
  while (i < left.size() || j < right.size()) {
    if (i >= left.size()) {
      s.push_back(std::move(right[j++]));
    } else if (j >= right.size()) {
      s.push_back(std::move(left[i++]));
    } else {
      int li = server.Find(left[i]), ri = server.Find(right[j]);
      if (li >= 0 && ri >= 0 && li < ri) {
        s.push_back(std::move(left[i++]));
      } else {
        s.push_back(std::move(right[j++]));
      }
    }
  }
  return s;
}

json::array DeduplicateScalars(json::array s) {
  std::unordered_set<std::string> seen;
  json::array out;
  for (auto& v : s) {
    if (seen.insert(ScalarKey(v)).second) out.push_back(std::move(v));
  }
  return out;
}

json::array DeleteFromSlice(json::array current, const json::array& to_delete) {
  std::unordered_set<std::string> del;
  for (const auto& v : to_delete) del.insert(ScalarKey(v));
  json::array out;
  for (auto& v : current) {
    if (!del.count(ScalarKey(v))) out.push_back(std::move(v));
  }
  return out;
}

// kube's deleteMatchingEntries: removes every map whose merge key equals `value`; any non-map fails.
StatusOr<json::array> DeleteMatchingEntries(json::array original, const std::string& key, const json::value& value) {
  json::array out;
  size_t removed = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    if (!original[i].is_object()) return PatchPlainError("value for key " + std::to_string(i - removed) + " is not a map");
    const json::value* v = original[i].get_object().if_contains(key);
    if (v != nullptr && (GoEqual(*v, value) || (v->is_null() && value.is_null()))) {
      ++removed;
      continue;
    }
    out.push_back(std::move(original[i]));
  }
  return out;
}

// Go's capacity of a slice built by appending its n elements one at a time (kube's lists come from
// decoders that append).
size_t GoAppendCap(size_t n) {
  size_t cap = 0;
  while (cap < n) cap = cap == 0 ? 1 : cap < 256 ? cap * 2 : cap + (cap + 768) / 4;
  return cap;
}

// What kube's later reads of a list of maps see: a model of the Go array behind it, holding each
// item's merge key (or the whole item when it has none, for kube's error text).
class GoBacking {
 public:
  GoBacking(const json::array& original, const std::string& merge_key)
      : key_(merge_key), len_(original.size()), cap_(GoAppendCap(original.size())) {
    for (const auto& item : original) items_.push_back(Surrogate(item));
    items_.resize(cap_);
  }
  // deleteMatchingEntries: each deletion shifts the tail left inside the same array.
  void Delete(const json::value& value) {
    while (true) {
      size_t k = 0;
      for (; k < len_; ++k) {
        const json::value* v = items_[k].is_object() ? items_[k].get_object().if_contains(key_) : nullptr;
        if (v != nullptr && GoEqual(*v, value)) break;
      }
      if (k == len_) return;
      for (size_t i = k; i + 1 < len_; ++i) items_[i] = items_[i + 1];
      --len_;
    }
  }
  // append: writes into the array while it has room; a grown slice no longer shares it.
  void Append(const json::value& item) {
    if (!tracking_) return;
    if (len_ < cap_) {
      items_[len_++] = Surrogate(item);
    } else {
      tracking_ = false;
    }
  }
  void StopTracking() { tracking_ = false; }
  json::array View(size_t n) const { return json::array(items_.begin(), items_.begin() + static_cast<long>(n)); }
  size_t len() const { return len_; }

 private:
  json::value Surrogate(const json::value& item) const {
    if (item.is_object()) {
      if (const json::value* v = item.get_object().if_contains(key_)) {
        json::object o;
        o[key_] = *v;
        return o;
      }
    }
    return item;
  }

  const std::string& key_;
  std::vector<json::value> items_;
  size_t len_;
  size_t cap_;
  bool tracking_ = true;
};

struct SpecialSplit {
  json::array original;
  json::array patch;
};

// kube's mergeSliceWithSpecialElements: applies {"$patch": "delete"} items and {"$patch": "replace"}.
StatusOr<SpecialSplit> MergeSliceWithSpecialElements(json::array original, json::array patch, const std::string& merge_key,
                                                     GoBacking& backing) {
  json::array plain;
  bool replace = false;
  for (auto& v : patch) {
    json::object& m = v.get_object();
    const json::value* type = m.if_contains(kDirectiveMarker);
    if (type == nullptr) {
      plain.push_back(std::move(v));
      continue;
    }
    if (IsString(type, kDeleteDirective)) {
      const json::value* merge_value = m.if_contains(merge_key);
      if (merge_value == nullptr) return ErrNoMergeKey(m, merge_key);
      ASSIGN_OR_RETURN(original, DeleteMatchingEntries(std::move(original), merge_key, *merge_value));
      backing.Delete(*merge_value);
    } else if (IsString(type, kReplaceDirective)) {
      replace = true;
    } else if (IsString(type, kMergeDirective)) {
      return PatchPlainError("merging lists cannot yet be specified in the patch");
    } else {
      return ErrBadPatchType(*type, m);
    }
  }
  if (replace) {
    backing.StopTracking();
    return SpecialSplit{std::move(plain), json::array()};
  }
  return SpecialSplit{std::move(original), std::move(plain)};
}

// kube's mergeSliceWithoutSpecialElements: merges items by key, appends the new ones.
StatusOr<json::array> MergeSliceWithoutSpecialElements(json::array original, const json::array& patch,
                                                       const std::string& merge_key, const Schema* elem,
                                                       GoBacking& backing) {
  // Every item is a map here (SliceElementType), so kube's linear search is a hash lookup of the
  // first item with an equal scalar key (maps and lists never compare equal).
  std::unordered_map<std::string, int> first;
  for (size_t i = 0; i < original.size(); ++i) {
    const json::value* k = original[i].get_object().if_contains(merge_key);
    if (k == nullptr) continue;
    std::string key = ScalarKey(*k);
    if (!key.empty()) first.emplace(std::move(key), static_cast<int>(i));
  }
  for (const auto& v : patch) {
    const json::object& m = v.get_object();
    const json::value* merge_value = m.if_contains(merge_key);
    if (merge_value == nullptr) return ErrNoMergeKey(m, merge_key);
    std::string key = ScalarKey(*merge_value);
    auto it = key.empty() ? first.end() : first.find(key);
    int found = it == first.end() ? -1 : it->second;
    if (found >= 0) {
      ASSIGN_OR_RETURN(json::object merged, MergeMap(std::move(original[found].get_object()), m, elem));
      original[found] = std::move(merged);
    } else {
      if (!key.empty()) first.emplace(key, static_cast<int>(original.size()));
      original.push_back(v);
      backing.Append(v);
    }
  }
  return original;
}

// Go's deduplicateScalars, move for move: the moves decide what kube's later reads of the original
// list see when the combined list shares its array.
json::array GoDeduplicate(json::array& s) {
  if (s.empty()) return {};
  size_t length = s.size() - 1;
  for (size_t i = 0; i < length; ++i) {
    for (size_t j = i + 1; j <= length; ++j) {
      if (GoEqual(s[i], s[j])) {
        s[j] = s[length];
        --length;
        --j;
      }
    }
  }
  return json::array(s.begin(), s.begin() + static_cast<long>(length + 1));
}

StatusOr<json::array> MergeSlice(json::array original, json::array patch, const Schema* elem, const std::string& merge_key,
                                 bool is_delete_list, json::array* view) {
  if (original.empty() && patch.empty()) {
    if (view) *view = original;
    return original;
  }
  ASSIGN_OR_RETURN(GoType kind, SliceElementType(original, patch));
  const size_t n = original.size();
  json::array merged, server_order;
  if (kind != GoType::kMap) {
    if (view) *view = original;
    if (is_delete_list) return DeleteFromSlice(std::move(original), patch);
    if (n + patch.size() <= GoAppendCap(n)) {
      // append(original, patch...) reuses the original's array: the dedup's moves can reach it.
      json::array both = std::move(original);
      for (const auto& v : patch) both.push_back(v);
      merged = GoDeduplicate(both);
      server_order = json::array(both.begin(), both.begin() + static_cast<long>(n));
      if (view) *view = server_order;
    } else {
      json::array both = original;
      for (const auto& v : patch) both.push_back(v);
      merged = DeduplicateScalars(std::move(both));
      server_order = std::move(original);
    }
  } else {
    if (merge_key.empty()) return PatchPlainError("cannot merge lists without merge key for " + SchemaName(elem));
    GoBacking backing(original, merge_key);
    ASSIGN_OR_RETURN(SpecialSplit split,
                     MergeSliceWithSpecialElements(std::move(original), std::move(patch), merge_key, backing));
    patch = std::move(split.patch);
    server_order = split.original;  // kube's `original` after the special elements
    ASSIGN_OR_RETURN(merged, MergeSliceWithoutSpecialElements(std::move(split.original), patch, merge_key, elem, backing));
    if (view) *view = backing.View(n);
  }
  ASSIGN_OR_RETURN(Partitioned parts, Partition(std::move(merged), patch, merge_key));
  return NormalizeElementOrder(std::move(parts.patch_items), std::move(parts.server_only), patch, server_order, merge_key, kind);
}

}  // namespace

StatusOr<GoType> SliceElementType(const json::array& a, const json::array& b) {
  bool first = true;
  GoType prev = GoType::kNil;
  for (const json::array* s : {&a, &b}) {
    for (const auto& v : *s) {
      GoType t = TypeOf(v);
      if (first) {
        first = false;
        prev = t;
        // Go dereferences the nil type of a null first element and panics; answer as it would.
        if (t == GoType::kNil) return PatchPlainError("runtime error: invalid memory address or nil pointer dereference");
        if (t == GoType::kSlice) return ErrNoListOfLists();
      } else if (t != prev) {
        return PatchPlainError("list element types are not identical: [" + GoSprint(json::value(a)) + " " +
                               GoSprint(json::value(b)) + "]");
      }
    }
  }
  if (first) return PatchPlainError("no elements in any of the given slices");
  return prev;
}

StatusOr<Partitioned> Partition(json::array merged, const json::array& by, const std::string& merge_key) {
  Partitioned out;
  if (merge_key.empty()) {
    std::unordered_set<std::string> in;
    for (const auto& v : by) in.insert(ScalarKey(v));
    for (auto& v : merged) {
      std::string k = ScalarKey(v);
      (!k.empty() && in.count(k) ? out.patch_items : out.server_only).push_back(std::move(v));
    }
    return out;
  }
  bool all_maps = std::all_of(by.begin(), by.end(), [](const json::value& x) { return x.is_object(); });
  std::unordered_set<std::string> keys;
  if (all_maps) {
    for (const auto& x : by) {
      if (const json::value* k = x.get_object().if_contains(merge_key)) keys.insert(ScalarKey(*k));
    }
    keys.erase("");
  }
  for (auto& v : merged) {
    if (!v.is_object()) return ErrBadArgType(kMapType, v);
    const json::value* key = v.get_object().if_contains(merge_key);
    if (key == nullptr) return ErrNoMergeKey(v.get_object(), merge_key);
    bool found;
    if (all_maps) {
      std::string k = ScalarKey(*key);
      found = !k.empty() && keys.count(k);
    } else {
      ASSIGN_OR_RETURN(int at, FindMapByKey(by, merge_key, *key));
      found = at >= 0;
    }
    (found ? out.patch_items : out.server_only).push_back(std::move(v));
  }
  return out;
}

StatusOr<json::array> NormalizeElementOrder(json::array patch, json::array server_only, const json::array& patch_order,
                                            const json::array& server_order, const std::string& merge_key, GoType kind) {
  ASSIGN_OR_RETURN(patch, NormalizeSliceOrder(std::move(patch), patch_order, merge_key, kind));
  ASSIGN_OR_RETURN(server_only, NormalizeSliceOrder(std::move(server_only), server_order, merge_key, kind));
  return MergeSortedSlice(std::move(server_only), std::move(patch), OrderIndex(server_order, merge_key, kind));
}

StatusOr<json::array> MergeSliceHandler(json::value original, json::value patch, const Schema* elem,
                                        const std::string& strategy, const std::string& merge_key, bool is_delete_list,
                                        json::array* original_view) {
  if (!original.is_array()) return ErrBadArgType(kSliceType, original);
  if (!patch.is_array()) return ErrBadArgType(kSliceType, patch);
  if (strategy == kMergeDirective || is_delete_list) {
    return MergeSlice(std::move(original.get_array()), std::move(patch.get_array()), elem, merge_key, is_delete_list,
                      original_view);
  }
  if (original_view) *original_view = std::move(original.get_array());
  return std::move(patch.get_array());
}

Status ValidatePatchWithSetOrderList(const json::array& patch_list, const json::array& set_order, const std::string& merge_key) {
  if (set_order.empty() || patch_list.empty()) return Status::Ok();
  std::vector<const json::value*> non_delete;
  for (const auto& v : patch_list) {
    if (!merge_key.empty()) {
      if (!v.is_object()) return ErrBadArgType(kMapType, v);
      if (IsString(v.get_object().if_contains(kDirectiveMarker), kDeleteDirective)) continue;
    }
    non_delete.push_back(&v);
  }
  size_t pi = 0, si = 0;
  while (pi < non_delete.size() && si < set_order.size()) {
    const json::value& p = *non_delete[pi];
    if (p.is_object() && p.get_object().contains(kDirectiveMarker)) {
      ++pi;
      continue;
    }
    bool equal;
    if (merge_key.empty()) {
      equal = GoEqual(p, set_order[si]);
    } else {
      const json::value& s = set_order[si];
      if (!p.is_object()) return ErrBadArgType(kMapType, p);
      if (!s.is_object()) return ErrBadArgType(kMapType, s);
      const json::value* pk = p.get_object().if_contains(merge_key);
      if (pk == nullptr) return ErrNoMergeKey(p.get_object(), merge_key);
      const json::value* sk = s.get_object().if_contains(merge_key);
      if (sk == nullptr) return ErrNoMergeKey(s.get_object(), merge_key);
      equal = GoEqual(*pk, *sk) || (pk->is_null() && sk->is_null());
    }
    if (equal) ++pi;
    ++si;
  }
  if (pi < non_delete.size() && si >= set_order.size()) {
    return PatchPlainError("The order in patch list:\n" + GoSprint(json::value(patch_list)) + "\n doesn't match " +
                           std::string(kSetElementOrderPrefix) + " list:\n" + GoSprint(json::value(set_order)) + "\n");
  }
  return Status::Ok();
}

}  // namespace capstan::apimachinery::smp
