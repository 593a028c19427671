#include "storage/cacher/watch_batcher.h"

#include <optional>

#include "storage/cacher/cache_watcher.h"

namespace capstan::storage {

void WatchBatcher::Defer(std::shared_ptr<WatcherSlot> slot) {
  std::lock_guard lock(mu_);
  deferred_.push_back(std::move(slot));
  if (armed_) return;
  armed_ = true;
  std::weak_ptr<WatchBatcher> weak = weak_from_this();
  timer_ = RunAfter(window(), [weak] {
    if (auto self = weak.lock()) self->Flush();
  });
}

void WatchBatcher::Flush() {
  std::vector<std::shared_ptr<WatcherSlot>> slots;
  {
    std::lock_guard lock(mu_);
    slots.swap(deferred_);
    armed_ = false;
    timer_.reset();
    ++flushes_;
  }
  std::vector<detail::Waiter> wake;
  wake.reserve(slots.size());
  for (const auto& slot : slots) {
    std::lock_guard lock(slot->mu);
    slot->deferred = false;
    if (slot->waiter) wake.push_back(*std::exchange(slot->waiter, std::nullopt));
  }
  for (auto& w : wake) w.Resume();
}

size_t WatchBatcher::flushes() const {
  std::lock_guard lock(mu_);
  return flushes_;
}

}  // namespace capstan::storage
