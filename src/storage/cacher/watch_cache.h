// storage/cacher/watch_cache.h: the data behind one resource's watch cache: the latest version of
// every object by key, a ring of the most recent changes, and the revision the cache has reached.
//
// From these it answers "the objects under a prefix at revision R" for any R it still holds (the
// latest state with the newer changes undone, so exact and paged lists need no stored snapshots) and
// "the changes after R" for watches. The ring's capacity adapts as kube's does: it doubles (up to a
// bound) when it is full of changes younger than the freshness window, and halves when the newest
// quarter is older than it.
//
// Not thread-safe: the Cacher calls it under its mutex. Mutations come from one thread at a time (the
// storage watch callback, or the reflector while no storage watch runs), so that thread may read
// without the lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "storage/cacher/cached_object.h"
#include "util/clock.h"

namespace capstan::storage {

struct WatchCacheOptions {
  size_t min_capacity = 100;         // --default-watch-cache-size / --watch-cache-sizes
  size_t max_capacity = 100 * 1024;  // kube's upper bound
  std::chrono::seconds event_fresh{75};
  const Clock* clock = &RealClock::Get();
};

class WatchCache {
 public:
  explicit WatchCache(WatchCacheOptions options);

  // Replaces the whole state by a list read at `revision` (objects sorted by key) and returns the
  // changes from the previous state to it, in revision order (a deletion is dated `revision`). The
  // history is cleared: the cache serves from `revision` on.
  std::vector<CachedEventPtr> Replace(std::vector<CachedObjectPtr> objects, int64_t revision);
  // Records one change observed by the storage watch (built with MakeCachedEvent against Find()).
  void Apply(const CachedEventPtr& event);
  // All changes up to `revision` are known (a storage progress notification).
  void AdvanceTo(int64_t revision);

  // The latest version of a key, or null.
  const CachedObjectPtr* Find(std::string_view key) const;
  int64_t revision() const { return revision_; }
  // The oldest revision R the cache can serve "at R" and "after R" requests for.
  int64_t oldest_servable() const { return removed_since_list_ ? last_removed_revision_ : list_revision_; }
  bool initialized() const { return initialized_; }
  size_t size() const { return objects_.size(); }
  size_t capacity() const { return ring_.size(); }
  size_t events_held() const { return end_ - start_; }

  // Calls fn for every object with from <= key < end as it was at revision `at` (oldest_servable() <=
  // at <= revision()), in key order, until fn returns false. `end` empty: no upper bound.
  void ForEachAt(int64_t at, std::string_view from, std::string_view end,
                 const std::function<bool(const CachedObjectPtr&)>& fn) const;
  // Appends the changes with revision > after (after >= oldest_servable()), oldest first.
  void EventsAfter(int64_t after, std::vector<CachedEventPtr>& out) const;

  // Heap bytes held by the latest versions and the index (not counting the ring's older versions).
  size_t ObjectMemoryBytes() const;

 private:
  using Map = std::map<std::string_view, CachedObjectPtr, std::less<>>;
  struct Slot {
    CachedEventPtr event;
    std::chrono::steady_clock::time_point at;
  };
  void Put(const CachedObjectPtr& obj);
  void Erase(std::string_view key);
  void Record(const CachedEventPtr& event);
  void Resize(size_t capacity);
  const Slot& At(size_t i) const { return ring_[i % ring_.size()]; }

  WatchCacheOptions opts_;
  Map objects_;  // keys view into the objects' own key strings
  std::vector<Slot> ring_;
  size_t start_ = 0;  // ring holds indexes [start_, end_)
  size_t end_ = 0;
  int64_t revision_ = 0;
  int64_t list_revision_ = 0;
  int64_t last_removed_revision_ = 0;
  bool removed_since_list_ = false;
  bool initialized_ = false;
};

}  // namespace capstan::storage
