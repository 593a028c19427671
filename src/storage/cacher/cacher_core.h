// storage/cacher/cacher_core.h: the shared state behind a Cacher (internal to the cacher folder).
//
// CacherCore is held by the Cacher and by each of its CacheWatchers, so a watcher that outlives its
// Cacher stays safe (it has simply ended). Reads and watch registration are in cacher.cpp; the
// reflector (storage list and watch), dispatch to watchers and the periodic tick in
// cacher_reflector.cpp.
//
// Locking: `mu` guards the WatchCache, the watcher index, the freshness waiters and the reflector's
// flags; a watcher slot's own mutex is taken inside it, never the other way round. `handle_mu` guards
// the storage watch handle and is never held with `mu`. Consumers are resumed after both are released.
#pragma once

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/cacher/cache_watcher.h"
#include "storage/cacher/cacher.h"
#include "storage/cacher/cacher_metrics.h"
#include "storage/cacher/watch_cache.h"
#include "util/async.h"
#include "util/task.h"
#include "util/timer.h"

namespace capstan::storage {

// A reader waiting for the cache to reach a revision.
struct FreshWaiter {
  int64_t revision = 0;
  std::function<void(bool)> done;
  std::atomic<bool> fired{false};
  void Fire(bool ok) {
    if (!fired.exchange(true)) done(ok);
  }
};

struct CacherCore : std::enable_shared_from_this<CacherCore> {
  explicit CacherCore(CacherConfig c);

  CacherConfig config;
  std::string prefix;      // resource_prefix + "/"
  std::string prefix_end;  // PrefixEnd(prefix)
  CacherMetrics::Children metrics;
  std::shared_ptr<WatchBatcher> batcher;  // null when config.watch_batch_window is 0

  mutable std::mutex mu;
  std::condition_variable cv;  // WaitReady and the reflector's end
  WatchCache cache;            // GUARDED_BY(mu)
  using SlotMap = std::map<uint64_t, std::shared_ptr<WatcherSlot>>;
  // (namespace, name) scopes, looked up with string_view pairs.
  struct ScopeLess {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      int c = std::string_view(a.first).compare(std::string_view(b.first));
      return c != 0 ? c < 0 : std::string_view(a.second) < std::string_view(b.second);
    }
  };
  std::map<std::pair<std::string, std::string>, SlotMap, ScopeLess> by_scope;  // GUARDED_BY(mu)
  SlotMap bookmark_slots;  // GUARDED_BY(mu)
  size_t watcher_count = 0;  // GUARDED_BY(mu)
  uint64_t next_watcher_id = 1;  // GUARDED_BY(mu)
  std::multimap<int64_t, std::shared_ptr<FreshWaiter>> fresh_waiters;  // GUARDED_BY(mu)
  bool stopping = false;  // GUARDED_BY(mu)
  std::optional<Status> watch_error;  // GUARDED_BY(mu): the storage watch ended with it
  // What the reflector waits on now (the storage watch's end, a retry delay); set by a watch error,
  // the delay's timer and Shutdown.
  std::shared_ptr<AsyncEvent> reflector_wake;  // GUARDED_BY(mu)
  bool reflector_done = false;                 // GUARDED_BY(mu)
  int64_t lists = 0;  // GUARDED_BY(mu)
  int64_t watchers_terminated = 0;  // GUARDED_BY(mu)
  std::atomic<bool> ready{false};
  std::chrono::steady_clock::time_point last_progress_request;  // GUARDED_BY(mu)

  std::mutex handle_mu;
  std::unique_ptr<WatchHandle> handle;  // GUARDED_BY(handle_mu)
  std::shared_ptr<TimerHandle> ticker;  // GUARDED_BY(handle_mu)
  bool ticks_stopped = false;           // GUARDED_BY(handle_mu)

  // cacher.cpp: reads and watches.
  Task<StatusOr<ListResult>> GetList(const std::string& key, const ListOptions& opts);
  Task<StatusOr<Object>> Get(const std::string& key, const GetOptions& opts);
  StatusOr<std::unique_ptr<ObjectWatch>> Watch(const std::string& key, const WatchOptions& opts);
  // Registers a watcher (its first Next()): fills its start events and adds its slot.
  Task<Status> StartWatch(CacheWatcher& w);
  void RemoveWatcher(const std::shared_ptr<WatcherSlot>& slot);
  // Waits (at most fresh_timeout) until the cache has seen `revision`.
  Task<bool> WaitFresh(int64_t revision);
  // The objects under the watcher's key as the store has them now (consistent), and that revision.
  Task<StatusOr<std::pair<std::vector<CachedObjectPtr>, int64_t>>> StoreState(const WatchFilter& f);
  void RequestProgress();

  // cacher_reflector.cpp: the storage list/watch loop and dispatch. StartReflector runs the loop as a
  // coroutine on the watch caches' shared reflector thread; WaitReflectorDone blocks until it ended
  // (after Shutdown).
  static void StartReflector(const std::shared_ptr<CacherCore>& core);
  void WaitReflectorDone();
  static Task<void> Reflect(std::shared_ptr<CacherCore> self);
  // Waits `d` (false: stopping).
  Task<bool> Pause(std::chrono::milliseconds d);
  void OnWatchResponse(WatchResponse resp);
  void DispatchLocked(const CachedEventPtr& e, std::vector<detail::Waiter>& wake);
  void CompleteFreshLocked(std::vector<std::shared_ptr<FreshWaiter>>& done);
  void Tick();
  void ScheduleTick();
  void Shutdown();
  // The selection, if the cache can match it: without a fields function only metadata.name and
  // metadata.namespace are known, so other field selectors are matched on the parsed object.
  std::shared_ptr<const Selection> Usable(const std::shared_ptr<const Selection>& s) const;
  // The cached form of one stored value (decode, then serialize with its revision).
  StatusOr<CachedObjectPtr> MakeObject(const std::string& key, std::string_view value, int64_t revision) const;
};

// A list or watch key as a directory: "/registry/configmaps/ns" → "/registry/configmaps/ns/".
std::string DirKey(const std::string& key);

}  // namespace capstan::storage
