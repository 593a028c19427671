// storage/cacher/watch_batcher.h: the batch window of a Cacher's watchers.
//
// A watcher whose consumer took a batch that emptied its queue less than one window ago is not woken
// by each new event: the WatcherSlot hands itself to the WatchBatcher once, and the batcher wakes every
// slot it holds at its next flush, one timer per window for the whole cache (not one per watcher).
// So under a stream of changes each watcher takes one batch per window and writes it with one write
// call (several events per TLS record and per send), instead of one write, record, send and client
// wake-up per event. An event after a quiet spell, the end of a watch and a backlog (a batch cut by its
// size cap) are not delayed.
//
// The window grows with the number of watchers (per_watcher each, up to max_window): a write costs
// tens of microseconds of CPU (TLS record, loopback or network send, the client's wake-up), so the
// cache then wakes at most about 1/per_watcher watchers per second however many there are, while a
// cache with few watchers adds next to no latency.
//
// Thread-safety: all members are thread-safe. Defer() may be called with a slot's mutex held (lock
// order: Cacher, slot, batcher); Flush() takes the batcher's mutex, releases it, then each slot's.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "util/timer.h"

namespace capstan::storage {

struct WatcherSlot;

class WatchBatcher : public std::enable_shared_from_this<WatchBatcher> {
 public:
  WatchBatcher(std::chrono::steady_clock::duration max_window, std::chrono::steady_clock::duration per_watcher)
      : max_window_(max_window), per_watcher_(per_watcher) {}

  // The current window: per_watcher times the open watches, at most max_window.
  std::chrono::steady_clock::duration window() const {
    auto w = per_watcher_ * static_cast<int64_t>(watchers_.load(std::memory_order_relaxed));
    return w < max_window_ ? w : max_window_;
  }
  // Open watches of this cache (a CacheWatcher counts from construction to destruction).
  void AddWatcher() { watchers_.fetch_add(1, std::memory_order_relaxed); }
  void RemoveWatcher() { watchers_.fetch_sub(1, std::memory_order_relaxed); }
  // Wakes `slot`'s consumer at the next flush (at most one window from now).
  void Defer(std::shared_ptr<WatcherSlot> slot);
  // Wakes every deferred consumer now (the timer calls it; so may tests).
  void Flush();
  // Flushes so far (for tests and metrics).
  size_t flushes() const;

 private:
  const std::chrono::steady_clock::duration max_window_;
  const std::chrono::steady_clock::duration per_watcher_;
  std::atomic<size_t> watchers_{0};
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<WatcherSlot>> deferred_;  // GUARDED_BY(mu_)
  bool armed_ = false;                                  // GUARDED_BY(mu_)
  std::shared_ptr<TimerHandle> timer_;                  // GUARDED_BY(mu_)
  size_t flushes_ = 0;                                  // GUARDED_BY(mu_)
};

}  // namespace capstan::storage
