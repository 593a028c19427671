// storage/embedded/watch_hub.h: watch fan-out for the embedded store.
//
// The writer thread Publishes each committed batch's events. The hub appends them to a ring of recent
// events and queues them on every in-sync watcher whose range matches; it never waits on a watcher.
// Each watcher has a bounded queue: one that falls more than max_pending_events behind is ended with a
// kUnavailable error (its client re-lists) instead of buffering without bound.
//
// A watch that starts at a past revision still in the ring is served from the ring; an older start is
// caught up from history (HistorySource) in chunks by a dispatch thread, then joins the live stream
// under the hub lock, so no event is lost or repeated across the switch. A start below the compact
// revision ends at once with kCompacted carrying the compact revision.
//
// Callbacks run on the hub's dispatch threads, one at a time per watcher, in revision order. A
// WatchHandle's destructor waits for a running callback of its watcher and guarantees none runs
// afterwards. Lock order: hub mu_, then a watcher's mu, then the run queue's mutex.
//
// Thread-safety: every public method is safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <vector>

#include "storage/backend.h"
#include "storage/embedded/key_index.h"
#include "util/clock.h"

namespace capstan::storage::embedded {

class HistorySource {
 public:
  virtual ~HistorySource() = default;
  // See MvccStore::ReadEvents.
  virtual Status ReadEvents(const KeyRange& range, int64_t from, int64_t to, size_t max_events,
                            std::vector<WatchEvent>* out, int64_t* next) const = 0;
  virtual int64_t compact_revision() const = 0;
  // The committed revision (may be ahead of what was published to the hub so far).
  virtual int64_t current_revision() const = 0;
};

struct WatchHubOptions {
  size_t ring_events = 10000;          // recent events kept for watchers that start close to the head
  size_t max_pending_events = 10000;   // a watcher further behind than this is ended
  size_t catch_up_chunk = 1000;        // events read from history per step
  int dispatch_threads = 2;
  std::chrono::seconds progress_interval{600};  // idle time before a progress notification
  const Clock* clock = &RealClock::Get();
};

class WatchHub {
 public:
  WatchHub(const HistorySource& history, int64_t current_revision, WatchHubOptions options);
  ~WatchHub();
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  std::unique_ptr<WatchHandle> Watch(WatchRequest req, WatchCallback cb);
  // Called by the writer thread after a batch committed: its events (revision order) and the store
  // revision after it.
  void Publish(const std::vector<std::shared_ptr<const WatchEvent>>& events, int64_t revision);
  // Sends due periodic progress notifications (called by the backend's ticker).
  void Tick();
  // Ends every watcher with kUnavailable, delivers those last responses and joins the threads.
  void Shutdown();

  size_t watcher_count() const;
  // Watchers ended for falling behind, since start.
  int64_t slow_watchers_ended() const;

  struct Core;

 private:
  std::shared_ptr<Core> core_;
};

}  // namespace capstan::storage::embedded
