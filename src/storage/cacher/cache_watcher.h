// storage/cacher/cache_watcher.h: one watch served by the watch cache.
//
// A CacheWatcher is the ObjectWatch a client's watch request holds. On its first Next() it registers
// with the Cacher, which hands it, atomically with respect to new changes, what it must send first
// (the current state as ADDED events, or the held changes after its start revision) and from then on
// pushes each matching change into its WatcherSlot. Changes are matched and converted once, when they
// are dispatched: an object that enters the watcher's selection is ADDED, one that leaves it DELETED
// (its previous state at the change's revision), as kube's cacheWatcher does. Next() hands out
// everything pending at once (bounded per batch), so a busy watcher writes many events per write; a
// watcher that keeps receiving events gets at most one batch per batch window (CacherConfig), so its
// events collect into one write instead of one write each.
//
// The slot's queue is bounded: a watcher that falls max_pending events behind is ended (after what it
// already holds) instead of buffering without bound; its client re-watches from its last
// resourceVersion. Events carry the shared serialized objects: nothing is copied per watcher.
//
// Thread-safety: the Cacher touches a slot's dispatch fields under its own mutex and the queue under
// the slot's mutex (lock order: Cacher, then slot). Next() is called by one consumer at a time; Stop()
// may be called from any thread.
#pragma once

#include <chrono>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "storage/cacher/cached_object.h"
#include "storage/cacher/watch_batcher.h"
#include "storage/object_store.h"
#include "util/async.h"

namespace capstan::storage {

struct CacherCore;

// One event waiting in a watcher's queue (already converted for that watcher).
struct PendingEvent {
  ObjectEvent::Type type = ObjectEvent::Type::kAdded;
  int64_t revision = 0;
  CachedObjectPtr object;           // null for bookmarks
  bool initial_events_end = false;  // a bookmark closing the initial events
};

// What a watcher selects.
struct WatchFilter {
  std::string key;  // a prefix ending in '/' when recursive, else one key
  bool recursive = true;
  std::shared_ptr<const Selection> selection;
  Predicate predicate;

  bool InScope(const CachedObject& o) const;
  bool Matches(const CachedObject& o) const;
  // The event this watcher receives for a change, if any.
  std::optional<PendingEvent> Convert(const CachedEvent& e) const;
};

class WatchBatcher;

// The dispatcher's record of one registered watcher.
struct WatcherSlot : std::enable_shared_from_this<WatcherSlot> {
  explicit WatcherSlot(size_t max_pending) : max_pending(max_pending) {}

  // Immutable once registered.
  uint64_t id = 0;
  WatchFilter filter;
  std::string scope_namespace;  // "" any
  std::string scope_name;       // "" any
  bool bookmarks = false;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  WatchBatcher* batcher = nullptr;  // the cache's batch window (null: none); outlives the slot's use

  // Under the Cacher's mutex.
  int64_t start_revision = 0;   // changes at or below it are not for this watcher
  int64_t last_revision = 0;    // the newest revision queued (event or bookmark)
  std::chrono::steady_clock::time_point next_bookmark;
  bool registered = false;

  // Under mu.
  std::mutex mu;
  std::deque<PendingEvent> pending;
  size_t max_pending;
  bool ended = false;    // no more events come: drain, then end
  bool stopped = false;  // the consumer stopped: end now
  std::optional<detail::Waiter> waiter;
  // The batch window: events pushed before this wait for the batcher's next flush (unset: none).
  std::chrono::steady_clock::time_point not_before;
  bool deferred = false;  // handed to the batcher, which wakes the waiter at its next flush

  // Queues an event; false (and nothing queued) when the queue is full. `wake` receives the consumer
  // to resume once the caller has released its locks; within the batch window the slot is handed to
  // the batcher instead.
  bool Push(PendingEvent e, std::optional<detail::Waiter>& wake);
  // No more events: the consumer drains what is queued and ends.
  void End(std::optional<detail::Waiter>& wake);
};

class CacheWatcher : public ObjectWatch {
 public:
  CacheWatcher(std::shared_ptr<CacherCore> core, WatchFilter filter, WatchOptions opts, int64_t start_revision);
  ~CacheWatcher() override;

  Task<std::vector<ObjectEvent>> Next() override;
  void Stop() override;

  // Set by the Cacher when it registers this watcher (before the first Next() returns).
  struct Start {
    std::vector<CachedObjectPtr> initial;     // the state to send as ADDED (unfiltered, in key order)
    std::vector<CachedEventPtr> replay;       // held changes after the start (unfiltered)
    std::optional<int64_t> end_bookmark;      // an initial-events-end BOOKMARK at this revision
    int64_t snapshot_revision = 0;
  };

  const WatchOptions& options() const { return opts_; }
  int64_t requested_revision() const { return start_revision_; }
  const std::shared_ptr<WatcherSlot>& slot() const { return slot_; }

 private:
  void AppendObjectEvent(const PendingEvent& p, std::vector<ObjectEvent>& out) const;
  // Appends up to a batch of the start events; false when they are exhausted.
  bool TakeStartEvents(std::vector<ObjectEvent>& out);
  auto WaitForEvents();

  std::shared_ptr<CacherCore> core_;
  WatchOptions opts_;
  int64_t start_revision_;
  std::shared_ptr<WatcherSlot> slot_;
  Start start_;
  size_t initial_pos_ = 0;
  size_t replay_pos_ = 0;
  bool started_ = false;
  bool finished_ = false;
  friend struct CacherCore;
};

}  // namespace capstan::storage
