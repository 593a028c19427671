// storage/cacher/cacher_reflector.cpp: how a Cacher follows its storage: the list and watch loop
// (resume after a failed watch, re-list after compaction), turning storage events into cached events,
// dispatching them to watchers, and the periodic tick (bookmarks, watcher deadlines).
#include <algorithm>
#include <thread>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "storage/cacher/cacher_core.h"
#include "util/log.h"

namespace capstan::storage {

namespace {

constexpr size_t kTrimAfterListBytes = 4 << 20;

std::string ResourceName(const CacherConfig& c) { return c.group.empty() ? c.resource : c.resource + "." + c.group; }

}  // namespace

StatusOr<CachedObjectPtr> CacherCore::MakeObject(const std::string& key, std::string_view value, int64_t revision) const {
  auto obj = config.decode(value, key, revision);
  if (!obj.ok()) return obj.TakeStatus();
  return CachedObject::Make(key, prefix.size(), std::move(*obj), revision, config.fields, config.json);
}

namespace {

// The one thread every watch cache's reflector runs on (lists, resumes, re-lists): a loop whose
// executor is current on it, so each await continues there.
std::shared_ptr<LocalLoop> ReflectorLoop() {
  static const std::shared_ptr<LocalLoop> kLoop = [] {
    auto loop = std::make_shared<LocalLoop>();
    std::thread([loop] {
      ExecutorScope scope(loop);
      loop->Run();
    }).detach();
    return loop;
  }();
  return kLoop;
}

}  // namespace

void CacherCore::StartReflector(const std::shared_ptr<CacherCore>& core) {
  ReflectorLoop()->Post([core] {
    Spawn([](std::shared_ptr<CacherCore> self) -> Task<void> {
      co_await Reflect(self);
      std::lock_guard lock(self->mu);
      self->reflector_done = true;
      self->cv.notify_all();
    }(core));
  });
}

void CacherCore::WaitReflectorDone() {
  std::unique_lock lock(mu);
  cv.wait(lock, [&] { return reflector_done; });
}

Task<bool> CacherCore::Pause(std::chrono::milliseconds d) {
  auto ev = std::make_shared<AsyncEvent>();
  {
    std::lock_guard lock(mu);
    if (stopping) co_return false;
    reflector_wake = ev;
  }
  auto timer = RunAfter(d, [ev] { ev->Set(); });
  co_await ev->Wait();
  timer->Cancel();
  std::lock_guard lock(mu);
  reflector_wake.reset();
  co_return !stopping;
}

Task<void> CacherCore::Reflect(std::shared_ptr<CacherCore> self) {
  CacherCore& c = *self;
  const CacherConfig& config = c.config;
  int64_t resume_from = 0;  // 0: list first
  auto delay = std::chrono::milliseconds(100);
  while (true) {
    {
      std::lock_guard lock(c.mu);
      if (c.stopping) co_return;
    }
    if (resume_from == 0) {
      // List every object at one revision, page by page.
      std::vector<CachedObjectPtr> objects;
      int64_t rev = 0;
      std::string from = c.prefix;
      size_t listed_bytes = 0;
      Status failed;
      while (true) {
        RangeRequest req;
        req.key = from;
        req.range_end = c.prefix_end;
        req.revision = rev;
        req.limit = config.list_page_size;
        auto resp = co_await config.backend->Range(std::move(req));
        if (!resp.ok()) {
          failed = resp.TakeStatus();
          break;
        }
        if (rev == 0) rev = resp->revision;
        for (auto& kv : resp->kvs) {
          listed_bytes += kv.value.size();
          auto obj = c.MakeObject(kv.key, kv.value, kv.mod_revision);
          if (!obj.ok()) {
            LogWarn("watch cache: undecodable object skipped", {{"key", kv.key}, {"error", obj.status().message()}});
            continue;
          }
          objects.push_back(std::move(*obj));
        }
        if (!resp->more || resp->kvs.empty()) break;
        from = resp->kvs.back().key + std::string(1, '\0');
      }
      if (!failed.ok()) {
        LogWarn("watch cache: list failed", {{"resource", ResourceName(config)}, {"error", failed.message()}});
        if (!co_await c.Pause(delay)) co_return;
        delay = std::min(delay * 2, config.max_retry_delay);
        continue;
      }
      std::vector<detail::Waiter> wake;
      std::vector<std::shared_ptr<FreshWaiter>> fresh;
      {
        std::lock_guard lock(c.mu);
        auto changes = c.cache.Replace(std::move(objects), rev);
        for (const auto& e : changes) c.DispatchLocked(e, wake);
        ++c.lists;
        c.CompleteFreshLocked(fresh);
        c.ready.store(true);
        Set(c.metrics.resource_version, static_cast<double>(c.cache.revision()));
        Set(c.metrics.capacity, static_cast<double>(c.cache.capacity()));
        Set(c.metrics.objects, static_cast<double>(c.cache.size()));
        c.cv.notify_all();
      }
      Inc(c.metrics.initializations);
      for (auto& w : wake) w.Resume();
      for (auto& f : fresh) f->Fire(true);
      LogInfo("watch cache initialized", {{"resource", ResourceName(config)}, {"revision", std::to_string(rev)}});
#ifdef __GLIBC__
      // A large list leaves its pages and parse buffers free in the malloc arenas; give them back
      // (about 10 MiB of RSS after listing 10k 1-KiB objects).
      if (listed_bytes >= kTrimAfterListBytes) malloc_trim(0);
#endif
      resume_from = rev + 1;
    }

    // Watch from where the cache is; a failure ends it and the loop decides how to go on.
    auto ended = std::make_shared<AsyncEvent>();
    {
      std::lock_guard lock(c.mu);
      if (c.stopping) co_return;
      c.watch_error.reset();
      c.reflector_wake = ended;
    }
    WatchRequest req;
    req.key = c.prefix;
    req.range_end = c.prefix_end;
    req.start_revision = resume_from;
    req.progress_notify = true;
    std::weak_ptr<CacherCore> weak = self;
    auto h = config.backend->Watch(std::move(req), [weak](WatchResponse r) {
      if (auto core = weak.lock()) core->OnWatchResponse(std::move(r));
    });
    {
      std::lock_guard lock(c.handle_mu);
      c.handle = std::move(h);
    }
    co_await ended->Wait();
    Status error;
    {
      std::lock_guard lock(c.mu);
      c.reflector_wake.reset();
      if (c.watch_error) error = *c.watch_error;
    }
    {
      std::unique_ptr<WatchHandle> old;
      {
        std::lock_guard lock(c.handle_mu);
        old = std::move(c.handle);
      }
      old.reset();  // no callback runs after this
    }
    {
      std::lock_guard lock(c.mu);
      if (c.stopping) co_return;
      resume_from = c.cache.revision() + 1;
    }
    if (error.IsStorage(StorageCode::kCompacted)) {
      LogInfo("watch cache: storage watch compacted, re-listing", {{"resource", ResourceName(config)}});
      resume_from = 0;
      delay = std::chrono::milliseconds(100);
      continue;
    }
    LogWarn("watch cache: storage watch ended, resuming",
            {{"resource", ResourceName(config)}, {"error", error.message()}, {"from", std::to_string(resume_from)}});
    if (!co_await c.Pause(delay)) co_return;
    delay = std::min(delay * 2, config.max_retry_delay);
  }
}

void CacherCore::OnWatchResponse(WatchResponse resp) {
  if (!resp.error.ok()) {
    std::shared_ptr<AsyncEvent> wake;
    {
      std::lock_guard lock(mu);
      if (!watch_error) watch_error = std::move(resp.error);
      wake = reflector_wake;
    }
    if (wake) wake->Set();
    return;
  }
  // Build the cached objects before taking the lock. Only this callback changes the cache while the
  // watch runs, so reading it here without the lock is safe.
  std::vector<CachedEventPtr> events;
  events.reserve(resp.events.size());
  for (auto& ev : resp.events) {
    const std::string& key = ev.kv.key;
    const CachedObjectPtr* prev = cache.Find(key);
    CachedObjectPtr before = prev ? *prev : nullptr;
    // Earlier events of this batch change the key too.
    for (auto it = events.rbegin(); it != events.rend(); ++it) {
      if ((*it)->object->key() == key) {
        before = (*it)->type == CachedEvent::Type::kDeleted ? nullptr : (*it)->object;
        break;
      }
    }
    if (ev.type == WatchEvent::Type::kDelete) {
      if (!before) continue;  // never seen: nothing to tell anyone
      events.push_back(MakeCachedEvent(std::move(before), nullptr, ev.kv.mod_revision));
      continue;
    }
    auto obj = MakeObject(key, ev.kv.value, ev.kv.mod_revision);
    if (!obj.ok()) {
      LogWarn("watch cache: undecodable object skipped", {{"key", key}, {"error", obj.status().message()}});
      continue;
    }
    events.push_back(MakeCachedEvent(std::move(before), std::move(*obj), ev.kv.mod_revision));
  }
  std::vector<detail::Waiter> wake;
  std::vector<std::shared_ptr<FreshWaiter>> fresh;
  {
    std::lock_guard lock(mu);
    for (const auto& e : events) {
      cache.Apply(e);
      DispatchLocked(e, wake);
    }
    if (resp.progress_notify && resp.events.empty()) cache.AdvanceTo(resp.header_revision);
    CompleteFreshLocked(fresh);
    Set(metrics.resource_version, static_cast<double>(cache.revision()));
    Set(metrics.capacity, static_cast<double>(cache.capacity()));
    Set(metrics.objects, static_cast<double>(cache.size()));
  }
  Inc(metrics.events_received, static_cast<double>(events.size()));
  for (auto& w : wake) w.Resume();
  for (auto& f : fresh) f->Fire(true);
}

void CacherCore::DispatchLocked(const CachedEventPtr& e, std::vector<detail::Waiter>& wake) {
  const CachedObject& o = *e->object;
  std::string_view ns = o.namespace_();
  std::string_view name = o.name();
  std::pair<std::string_view, std::string_view> scopes[4] = {{ns, name}, {ns, {}}, {{}, name}, {{}, {}}};
  size_t n = ns.empty() ? 2 : 4;
  if (ns.empty()) scopes[1] = {{}, {}};
  std::vector<std::shared_ptr<WatcherSlot>> ended;
  size_t dispatched = 0;
  for (size_t i = 0; i < n; ++i) {
    auto it = by_scope.find(scopes[i]);
    if (it == by_scope.end()) continue;
    for (auto& [id, slot] : it->second) {
      if (e->revision <= slot->start_revision) continue;
      auto p = slot->filter.Convert(*e);
      if (!p) continue;
      std::optional<detail::Waiter> w;
      if (slot->Push(std::move(*p), w)) {
        slot->last_revision = e->revision;
        ++dispatched;
      } else {
        // Too far behind: it ends after what it holds, and its client re-watches.
        slot->End(w);
        ended.push_back(slot);
      }
      if (w) wake.push_back(*w);
    }
  }
  for (const auto& slot : ended) {
    auto it = by_scope.find(std::make_pair(slot->scope_namespace, slot->scope_name));
    if (it != by_scope.end()) {
      it->second.erase(slot->id);
      if (it->second.empty()) by_scope.erase(it);
    }
    bookmark_slots.erase(slot->id);
    slot->registered = false;
    --watcher_count;
    ++watchers_terminated;
    Inc(metrics.terminated_watchers);
    LogInfo("watch cache: ending a watcher that fell behind", {{"resource", ResourceName(config)}});
  }
  if (!ended.empty()) Set(metrics.watchers, static_cast<double>(watcher_count));
  Inc(metrics.events_dispatched, static_cast<double>(dispatched));
}

void CacherCore::CompleteFreshLocked(std::vector<std::shared_ptr<FreshWaiter>>& done) {
  auto end = fresh_waiters.upper_bound(cache.revision());
  for (auto it = fresh_waiters.begin(); it != end; ++it) done.push_back(it->second);
  fresh_waiters.erase(fresh_waiters.begin(), end);
}

void CacherCore::Tick() {
  std::vector<detail::Waiter> wake;
  bool want_progress = false;
  {
    std::lock_guard lock(mu);
    if (stopping || !ready.load()) return;
    auto now = config.clock->Monotonic();
    const int64_t rev = cache.revision();
    std::vector<std::shared_ptr<WatcherSlot>> expired;
    for (auto& [scope, slots] : by_scope) {
      for (auto& [id, slot] : slots) {
        if (slot->deadline && now >= *slot->deadline) expired.push_back(slot);
      }
    }
    for (auto& [id, slot] : bookmark_slots) {
      want_progress = true;
      auto due = slot->next_bookmark;
      // One bookmark shortly before the watch times out, so the client resumes from close to now.
      if (slot->deadline && *slot->deadline - std::chrono::seconds(2) < due) due = *slot->deadline - std::chrono::seconds(2);
      if (now < due) continue;
      slot->next_bookmark = now + config.bookmark_frequency;
      if (slot->deadline && slot->next_bookmark > *slot->deadline) slot->next_bookmark = *slot->deadline + std::chrono::hours(1);
      if (rev <= slot->last_revision) continue;
      PendingEvent b;
      b.type = ObjectEvent::Type::kBookmark;
      b.revision = rev;
      std::optional<detail::Waiter> w;
      if (slot->Push(std::move(b), w)) slot->last_revision = rev;  // a full queue just skips it
      if (w) wake.push_back(*w);
    }
    for (auto& slot : expired) {
      std::optional<detail::Waiter> w;
      slot->End(w);
      if (w) wake.push_back(*w);
      auto it = by_scope.find(std::make_pair(slot->scope_namespace, slot->scope_name));
      if (it != by_scope.end()) {
        it->second.erase(slot->id);
        if (it->second.empty()) by_scope.erase(it);
      }
      bookmark_slots.erase(slot->id);
      slot->registered = false;
      --watcher_count;
    }
    if (!expired.empty()) Set(metrics.watchers, static_cast<double>(watcher_count));
    // Bookmarks carry the newest revision the cache knows; ask the storage for progress now and then
    // so that it moves on while this resource is idle.
    if (want_progress && now - last_progress_request >= std::chrono::seconds(5)) {
      last_progress_request = now;
    } else {
      want_progress = false;
    }
  }
  for (auto& w : wake) w.Resume();
  if (want_progress) RequestProgress();
}

void CacherCore::ScheduleTick() {
  if (config.tick.count() <= 0) return;
  std::weak_ptr<CacherCore> weak = shared_from_this();
  auto t = RunAfter(config.tick, [weak] {
    auto self = weak.lock();
    if (!self) return;
    self->Tick();
    self->ScheduleTick();
  });
  std::lock_guard lock(handle_mu);
  if (ticks_stopped) {
    t->Cancel();
    return;
  }
  ticker = std::move(t);
}

void CacherCore::Shutdown() {
  std::shared_ptr<AsyncEvent> reflector_wake_on_stop;
  std::vector<detail::Waiter> wake;
  std::vector<std::shared_ptr<FreshWaiter>> fresh;
  {
    std::lock_guard lock(mu);
    stopping = true;
    for (auto& [scope, slots] : by_scope) {
      for (auto& [id, slot] : slots) {
        std::optional<detail::Waiter> w;
        slot->End(w);
        slot->registered = false;
        if (w) wake.push_back(*w);
      }
    }
    by_scope.clear();
    bookmark_slots.clear();
    watcher_count = 0;
    for (auto& [rev, f] : fresh_waiters) fresh.push_back(f);
    fresh_waiters.clear();
    reflector_wake_on_stop = reflector_wake;
    cv.notify_all();
  }
  if (reflector_wake_on_stop) reflector_wake_on_stop->Set();
  std::shared_ptr<TimerHandle> t;
  {
    std::lock_guard lock(handle_mu);
    ticks_stopped = true;
    t = std::move(ticker);
  }
  if (t) t->Cancel();
  for (auto& w : wake) w.Resume();
  for (auto& f : fresh) f->Fire(false);
}

}  // namespace capstan::storage
