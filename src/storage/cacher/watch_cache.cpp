#include "storage/cacher/watch_cache.h"

#include <algorithm>

namespace capstan::storage {

WatchCache::WatchCache(WatchCacheOptions options) : opts_(options) {
  opts_.min_capacity = std::max<size_t>(opts_.min_capacity, 1);
  opts_.max_capacity = std::max(opts_.max_capacity, opts_.min_capacity);
  ring_.resize(opts_.min_capacity);
}

std::vector<CachedEventPtr> WatchCache::Replace(std::vector<CachedObjectPtr> objects, int64_t revision) {
  std::vector<CachedEventPtr> changes;
  if (initialized_) {
    // Merge the old and new states (both sorted by key) into the changes between them.
    auto old_it = objects_.begin();
    size_t i = 0;
    while (old_it != objects_.end() || i < objects.size()) {
      int cmp = old_it == objects_.end() ? 1 : i == objects.size() ? -1 : old_it->first.compare(objects[i]->key());
      if (cmp < 0) {
        changes.push_back(MakeCachedEvent(old_it->second, nullptr, revision));
        ++old_it;
      } else if (cmp > 0) {
        changes.push_back(MakeCachedEvent(nullptr, objects[i], objects[i]->revision()));
        ++i;
      } else {
        if (old_it->second->revision() != objects[i]->revision()) {
          changes.push_back(MakeCachedEvent(old_it->second, objects[i], objects[i]->revision()));
        }
        ++old_it;
        ++i;
      }
    }
    std::stable_sort(changes.begin(), changes.end(),
                     [](const CachedEventPtr& a, const CachedEventPtr& b) { return a->revision < b->revision; });
  }
  objects_.clear();
  for (auto& o : objects) objects_.emplace_hint(objects_.end(), std::string_view(o->key()), std::move(o));
  for (size_t j = start_; j < end_; ++j) ring_[j % ring_.size()] = Slot();
  start_ = end_;
  list_revision_ = revision;
  removed_since_list_ = false;
  last_removed_revision_ = 0;
  revision_ = std::max(revision_, revision);
  initialized_ = true;
  return changes;
}

void WatchCache::Put(const CachedObjectPtr& obj) {
  auto it = objects_.find(std::string_view(obj->key()));
  if (it == objects_.end()) {
    objects_.emplace(std::string_view(obj->key()), obj);
    return;
  }
  // The key view must point into the new version's key: the old version may go away first.
  auto hint = std::next(it);
  auto node = objects_.extract(it);
  node.key() = std::string_view(obj->key());
  node.mapped() = obj;
  objects_.insert(hint, std::move(node));
}

void WatchCache::Erase(std::string_view key) {
  auto it = objects_.find(key);
  if (it != objects_.end()) objects_.erase(it);
}

void WatchCache::Apply(const CachedEventPtr& event) {
  if (event->type == CachedEvent::Type::kDeleted) {
    Erase(event->object->key());
  } else {
    Put(event->object);
  }
  Record(event);
  revision_ = std::max(revision_, event->revision);
}

void WatchCache::AdvanceTo(int64_t revision) { revision_ = std::max(revision_, revision); }

void WatchCache::Record(const CachedEventPtr& event) {
  auto now = opts_.clock->Monotonic();
  size_t cap = ring_.size();
  if (end_ - start_ == cap) {
    if (now - At(start_).at < opts_.event_fresh && cap < opts_.max_capacity) {
      Resize(std::min(cap * 2, opts_.max_capacity));
    } else if (cap > opts_.min_capacity && now - At(end_ - std::max<size_t>(cap / 4, 1)).at > opts_.event_fresh) {
      Resize(std::max(cap / 2, opts_.min_capacity));
    }
  }
  if (end_ - start_ == ring_.size()) {
    Slot& oldest = ring_[start_ % ring_.size()];
    last_removed_revision_ = oldest.event->revision;
    removed_since_list_ = true;
    oldest = Slot();
    ++start_;
  }
  ring_[end_ % ring_.size()] = Slot{event, now};
  ++end_;
}

void WatchCache::Resize(size_t capacity) {
  if (end_ - start_ > capacity) {
    for (size_t j = start_; j < end_ - capacity; ++j) last_removed_revision_ = At(j).event->revision;
    removed_since_list_ = true;
    start_ = end_ - capacity;
  }
  std::vector<Slot> next(capacity);
  for (size_t j = start_; j < end_; ++j) next[j % capacity] = std::move(ring_[j % ring_.size()]);
  ring_ = std::move(next);
}

const CachedObjectPtr* WatchCache::Find(std::string_view key) const {
  auto it = objects_.find(key);
  return it == objects_.end() ? nullptr : &it->second;
}

void WatchCache::EventsAfter(int64_t after, std::vector<CachedEventPtr>& out) const {
  size_t lo = start_, hi = end_;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (At(mid).event->revision > after) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  for (size_t j = lo; j < end_; ++j) out.push_back(At(j).event);
}

void WatchCache::ForEachAt(int64_t at, std::string_view from, std::string_view end,
                           const std::function<bool(const CachedObjectPtr&)>& fn) const {
  auto in_range = [&](std::string_view k) { return end.empty() || k < end; };
  auto it = objects_.lower_bound(from);
  if (at >= revision_) {
    for (; it != objects_.end() && in_range(it->first); ++it) {
      if (!fn(it->second)) return;
    }
    return;
  }
  // The state at `at`: every key changed after it reads as it was before its first later change.
  std::vector<CachedEventPtr> later;
  EventsAfter(at, later);
  std::map<std::string_view, const CachedObjectPtr*, std::less<>> undo;  // null: absent at `at`
  for (const auto& e : later) {
    std::string_view k = e->object->key();
    if (k < from || !in_range(k)) continue;
    undo.emplace(k, e->type == CachedEvent::Type::kAdded ? nullptr : &e->prev);
  }
  auto u = undo.begin();
  while (true) {
    bool have_obj = it != objects_.end() && in_range(it->first);
    bool have_undo = u != undo.end();
    if (!have_obj && !have_undo) return;
    const CachedObjectPtr* pick = nullptr;
    if (have_undo && (!have_obj || u->first <= it->first)) {
      if (have_obj && u->first == it->first) ++it;
      pick = u->second;
      ++u;
    } else {
      pick = &it->second;
      ++it;
    }
    if (pick && !fn(*pick)) return;
  }
}

size_t WatchCache::ObjectMemoryBytes() const {
  // A map node: three pointers and a color, the key view and the shared pointer, malloc-rounded.
  constexpr size_t kNodeBytes = 80;
  size_t total = 0;
  for (const auto& [k, o] : objects_) total += kNodeBytes + o->MemoryBytes() + 16;  // + make_shared block
  return total;
}

}  // namespace capstan::storage
