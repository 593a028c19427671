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
// Thread-safety: all members are thread-safe. Defer() may be called with a slot's mutex held (lock
// order: Cacher, slot, batcher); Flush() takes the batcher's mutex, releases it, then each slot's.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <vector>

#include "util/timer.h"

namespace capstan::storage {

struct WatcherSlot;

class WatchBatcher : public std::enable_shared_from_this<WatchBatcher> {
 public:
  explicit WatchBatcher(std::chrono::milliseconds window) : window_(window) {}

  std::chrono::milliseconds window() const { return window_; }
  // Wakes `slot`'s consumer at the next flush (at most one window from now).
  void Defer(std::shared_ptr<WatcherSlot> slot);
  // Wakes every deferred consumer now (the timer calls it; so may tests).
  void Flush();
  // Flushes so far (for tests and metrics).
  size_t flushes() const;

 private:
  const std::chrono::milliseconds window_;
  mutable std::mutex mu_;
  std::vector<std::shared_ptr<WatcherSlot>> deferred_;  // GUARDED_BY(mu_)
  bool armed_ = false;                                  // GUARDED_BY(mu_)
  std::shared_ptr<TimerHandle> timer_;                  // GUARDED_BY(mu_)
  size_t flushes_ = 0;                                  // GUARDED_BY(mu_)
};

}  // namespace capstan::storage
