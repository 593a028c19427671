// storage/cacher/cacher.cpp: the Cacher's reads (LIST, GET), watch registration and freshness waits.
// The storage list/watch loop and dispatch are in cacher_reflector.cpp.
#include "storage/cacher/cacher.h"

#include <boost/json.hpp>

#include "storage/cacher/cacher_core.h"
#include "storage/continue_token.h"
#include "util/log.h"

namespace capstan::storage {

std::string DirKey(const std::string& key) {
  if (!key.empty() && key.back() == '/') return key;
  return key + "/";
}

CacherCore::CacherCore(CacherConfig c)
    : config(std::move(c)),
      prefix(DirKey(config.resource_prefix)),
      prefix_end(PrefixEnd(prefix)),
      cache(WatchCacheOptions{config.capacity, config.max_capacity, config.event_fresh, config.clock}) {
  if (config.metrics) metrics = config.metrics->For(config.group, config.resource, config.resource_prefix);
  if (config.watch_batch_window.count() > 0) {
    batcher = std::make_shared<WatchBatcher>(config.watch_batch_window, config.watch_batch_window_per_watcher);
  }
}

Cacher::Cacher(CacherConfig config) : core_(std::make_shared<CacherCore>(std::move(config))) {
  core_->ScheduleTick();
  CacherCore::StartReflector(core_);
}

Cacher::~Cacher() {
  core_->Shutdown();
  core_->WaitReflectorDone();
}

namespace {
// A store failure, not an answer such as NotFound or Conflict (kube counts etcd client errors).
bool StoreFailed(const StatusOr<Object>& r) { return !r.ok() && r.status().code() >= 500; }
}  // namespace

Task<StatusOr<Object>> Cacher::Create(const std::string& key, Object obj, int64_t ttl_seconds) {
  auto start = std::chrono::steady_clock::now();
  auto r = co_await core_->config.storage->Create(key, std::move(obj), ttl_seconds);
  RecordStorageRequest(core_->metrics.owner, "create", core_->metrics.type, start, StoreFailed(r));
  co_return r;
}
Task<StatusOr<Object>> Cacher::GuaranteedUpdate(const std::string& key, const Preconditions& pre, bool ignore_not_found,
                                                UpdateFunc try_update) {
  auto start = std::chrono::steady_clock::now();
  auto r = co_await core_->config.storage->GuaranteedUpdate(key, pre, ignore_not_found, std::move(try_update));
  RecordStorageRequest(core_->metrics.owner, "update", core_->metrics.type, start, StoreFailed(r));
  co_return r;
}
Task<StatusOr<Object>> Cacher::Delete(const std::string& key, const Preconditions& pre, ValidateDeleteFunc validate) {
  auto start = std::chrono::steady_clock::now();
  auto r = co_await core_->config.storage->Delete(key, pre, std::move(validate));
  RecordStorageRequest(core_->metrics.owner, "delete", core_->metrics.type, start, StoreFailed(r));
  co_return r;
}
Task<StatusOr<int64_t>> Cacher::CurrentRevision() { return core_->config.storage->CurrentRevision(); }
Task<StatusOr<Object>> Cacher::Get(const std::string& key, const GetOptions& opts) { return core_->Get(key, opts); }
Task<StatusOr<ListResult>> Cacher::GetList(const std::string& key, const ListOptions& opts) {
  return core_->GetList(key, opts);
}
StatusOr<std::unique_ptr<ObjectWatch>> Cacher::Watch(const std::string& key, const WatchOptions& opts) {
  return core_->Watch(key, opts);
}

bool Cacher::Ready() const { return core_->ready.load(); }

bool Cacher::WaitReady(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(core_->mu);
  return core_->cv.wait_for(lock, timeout, [&] { return core_->ready.load() || core_->stopping; }) && core_->ready.load();
}

const std::string& Cacher::resource_prefix() const { return core_->config.resource_prefix; }
const std::string& Cacher::group() const { return core_->config.group; }
const std::string& Cacher::resource() const { return core_->config.resource; }

Cacher::Stats Cacher::GetStats() const {
  std::lock_guard lock(core_->mu);
  Stats s;
  s.objects = core_->cache.size();
  s.revision = core_->cache.revision();
  s.oldest_servable = core_->cache.oldest_servable();
  s.capacity = core_->cache.capacity();
  s.events_held = core_->cache.events_held();
  s.watchers = core_->watcher_count;
  s.object_bytes = core_->cache.ObjectMemoryBytes();
  s.lists = core_->lists;
  s.watchers_terminated = core_->watchers_terminated;
  return s;
}

void Cacher::Tick() { core_->Tick(); }

void Cacher::FlushWatchBatches() {
  if (core_->batcher) core_->batcher->Flush();
}

void Cacher::FailStorageWatchForTest(Status error) {
  WatchResponse r;
  r.error = std::move(error);
  core_->OnWatchResponse(std::move(r));
}

namespace {

Status NotFound(const std::string& key) { return Status::Storage(StorageCode::kKeyNotFound, "key not found: " + key); }

bool UnderPrefix(const std::string& key, const std::string& prefix) {
  return key.size() >= prefix.size() && key.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

std::shared_ptr<const Selection> CacherCore::Usable(const std::shared_ptr<const Selection>& s) const {
  if (!s || config.fields) return s;
  for (const auto& r : s->fields.Requirements()) {
    if (r.field != "metadata.name" && r.field != "metadata.namespace") return nullptr;
  }
  return s;
}

void CacherCore::RequestProgress() {
  std::lock_guard lock(handle_mu);
  if (handle) handle->RequestProgress();
}

Task<bool> CacherCore::WaitFresh(int64_t revision) {
  {
    std::lock_guard lock(mu);
    if (cache.revision() >= revision) co_return true;
    if (stopping) co_return false;
  }
  // Without in-order progress answers only an event could prove the revision: do not wait for one.
  if (config.progress_reliable && !config.progress_reliable()) co_return false;
  RequestProgress();
  auto self = shared_from_this();
  bool ok = co_await Await<bool>([self, revision](std::function<void(bool)> cb) {
    auto w = std::make_shared<FreshWaiter>();
    w->revision = revision;
    w->done = std::move(cb);
    {
      std::unique_lock lock(self->mu);
      if (self->cache.revision() >= revision || self->stopping) {
        bool fresh = self->cache.revision() >= revision;
        lock.unlock();
        w->Fire(fresh);
        return;
      }
      self->fresh_waiters.emplace(revision, w);
    }
    RunAfter(self->config.fresh_timeout, [w] { w->Fire(false); });
  });
  co_return ok;
}

Task<StatusOr<Object>> CacherCore::Get(const std::string& key, const GetOptions& opts) {
  ObjectStore& storage = *config.storage;
  if (opts.resource_version.empty() || !ready.load() || !UnderPrefix(key, prefix)) {
    co_return co_await storage.Get(key, opts);
  }
  auto rv = ParseResourceVersion(opts.resource_version);
  if (!rv.ok()) co_return rv.TakeStatus();
  int64_t have;
  {
    std::lock_guard lock(mu);
    have = cache.revision();
  }
  if (*rv > have) {
    auto cur = co_await storage.CurrentRevision();
    if (!cur.ok() || *rv > *cur || !co_await WaitFresh(*rv)) co_return co_await storage.Get(key, opts);
  }
  CachedObjectPtr obj;
  {
    std::lock_guard lock(mu);
    if (const CachedObjectPtr* p = cache.Find(key)) obj = *p;
  }
  if (!obj) {
    if (opts.ignore_not_found) co_return Object();
    co_return NotFound(key);
  }
  co_return obj->Parse();
}

Task<StatusOr<ListResult>> CacherCore::GetList(const std::string& key, const ListOptions& opts) {
  ObjectStore& storage = *config.storage;
  const std::string list_prefix = DirKey(key);
  if (!ready.load() || !opts.recursive || !UnderPrefix(list_prefix, prefix)) co_return co_await storage.GetList(key, opts);

  // As kube 1.32's watch cache, continuations and reads at a given past revision (an Exact match,
  // or a limit with a resourceVersion other than 0) go to the store: it answers 410 Expired once
  // that revision is compacted, as etcd does, though the cache may still hold it.
  if (!opts.continue_token.empty()) co_return co_await storage.GetList(key, opts);
  // The least revision the cache must have seen (0: any), exactly as the store reads it (see
  // BackendObjectStore::GetList).
  int64_t min_rev = 0;
  bool consistent = false;
  if (!opts.resource_version.empty()) {
    auto rv = ParseResourceVersion(opts.resource_version);
    if (!rv.ok()) co_return rv.TakeStatus();
    const bool at_revision =
        opts.match == ResourceVersionMatch::kExact || (opts.match == ResourceVersionMatch::kUnset && opts.limit > 0 && *rv > 0);
    if (at_revision) co_return co_await storage.GetList(key, opts);
    min_rev = *rv;
  } else {
    consistent = true;
  }

  if (consistent) {
    auto cur = co_await storage.CurrentRevision();
    if (!cur.ok()) co_return cur.TakeStatus();
    if (!co_await WaitFresh(*cur)) {
      Inc(metrics.consistent_fallback);
      co_return co_await storage.GetList(key, opts);
    }
    Inc(metrics.consistent_ok);
  } else if (int64_t need = min_rev; need > 0) {
    int64_t have;
    {
      std::lock_guard lock(mu);
      have = cache.revision();
    }
    if (need > have) {
      // Newer than the store has: the store answers (kube's 504 "Too large resource version").
      auto cur = co_await storage.CurrentRevision();
      if (!cur.ok() || need > *cur || !co_await WaitFresh(need)) co_return co_await storage.GetList(key, opts);
    }
  }

  const bool selective = opts.predicate != nullptr;
  const std::shared_ptr<const Selection> selection = Usable(opts.selection);
  const bool fast_filter = !selective || selection != nullptr;
  // kube's computeListLimit: a list at resourceVersion 0 ignores its limit.
  const bool paging = opts.limit > 0 && opts.resource_version != "0";
  const size_t limit = paging ? static_cast<size_t>(opts.limit) : 0;
  const bool count_rest = paging && opts.predicate_empty;
  std::vector<CachedObjectPtr> picked;
  int64_t read_rev = 0;
  int64_t total = 0;  // keys listed, for remainingItemCount
  bool has_more = false;
  {
    std::lock_guard lock(mu);
    read_rev = cache.revision();
    bool full = false;
    cache.ForEachAt(read_rev, list_prefix, PrefixEnd(list_prefix), [&](const CachedObjectPtr& o) {
      ++total;
      if (full) {
        has_more = true;
        return count_rest;
      }
      if (fast_filter && selection && !o->Matches(*selection)) return true;
      picked.push_back(o);
      if (fast_filter && paging && picked.size() >= limit) full = true;
      return true;
    });
  }
  Inc(metrics.list_total);
  ListResult out;
  out.revision = read_rev;
  std::vector<Object> parsed;
  if (!fast_filter) {
    // Only a predicate: parse and filter here, outside the lock.
    std::vector<CachedObjectPtr> kept;
    for (size_t i = 0; i < picked.size(); ++i) {
      Object o = picked[i]->Parse();
      if (!opts.predicate(o)) continue;
      kept.push_back(picked[i]);
      if (!opts.accept_serialized) parsed.push_back(std::move(o));
      if (paging && kept.size() >= limit) {
        has_more = i + 1 < picked.size();
        break;
      }
    }
    picked = std::move(kept);
  }
  if (has_more && !picked.empty()) {
    out.continue_token = EncodeContinue(picked.back()->key() + std::string(1, '\0'), list_prefix, read_rev);
    if (opts.predicate_empty) out.remaining_item_count = std::max<int64_t>(total - opts.limit, 0);
  }
  if (opts.accept_serialized) {
    out.serialized.reserve(picked.size());
    for (const auto& o : picked) out.serialized.push_back(o->Serialized(o));
  } else if (!fast_filter) {
    out.items = std::move(parsed);
  } else {
    out.items.reserve(picked.size());
    for (const auto& o : picked) out.items.push_back(o->Parse());
  }
  co_return out;
}

Task<StatusOr<std::pair<std::vector<CachedObjectPtr>, int64_t>>> CacherCore::StoreState(const WatchFilter& f) {
  std::vector<CachedObjectPtr> objects;
  int64_t rev = 0;
  std::string from = f.key;
  const std::string end = f.recursive ? PrefixEnd(f.key) : "";
  while (true) {
    RangeRequest req;
    req.key = from;
    req.range_end = end;
    req.revision = rev;
    req.limit = f.recursive ? config.list_page_size : 0;
    auto resp = co_await config.backend->Range(std::move(req));
    if (!resp.ok()) co_return resp.TakeStatus();
    if (rev == 0) rev = resp->revision;
    for (auto& kv : resp->kvs) {
      auto obj = MakeObject(kv.key, kv.value, kv.mod_revision);
      if (obj.ok()) objects.push_back(std::move(*obj));
    }
    if (!f.recursive || !resp->more || resp->kvs.empty()) break;
    from = resp->kvs.back().key + std::string(1, '\0');
  }
  co_return std::make_pair(std::move(objects), rev);
}

StatusOr<std::unique_ptr<ObjectWatch>> CacherCore::Watch(const std::string& key, const WatchOptions& opts) {
  auto rv = ParseResourceVersion(opts.resource_version);
  if (!rv.ok()) return rv.TakeStatus();
  WatchFilter f;
  f.recursive = opts.recursive;
  f.key = opts.recursive ? DirKey(key) : key;
  if (!ready.load() || !UnderPrefix(f.key, prefix)) return config.storage->Watch(key, opts);
  f.selection = Usable(opts.selection);
  f.predicate = opts.predicate;
  return std::unique_ptr<ObjectWatch>(std::make_unique<CacheWatcher>(shared_from_this(), std::move(f), opts, *rv));
}

Task<Status> CacherCore::StartWatch(CacheWatcher& w) {
  const WatchOptions& opts = w.options();
  const int64_t requested = w.requested_revision();
  const bool rv_empty = opts.resource_version.empty();
  bool send_state = false;
  std::optional<std::pair<std::vector<CachedObjectPtr>, int64_t>> store_state;  // the store's, at its revision
  int64_t start = -1;  // changes after it; -1: the cache's revision when registered
  if (opts.send_initial_events.value_or(false)) {
    // The streaming list: the state at least as fresh as asked ("": the store's current revision).
    int64_t need = requested;
    if (rv_empty) {
      auto cur = co_await config.storage->CurrentRevision();
      if (!cur.ok()) co_return cur.TakeStatus();
      need = *cur;
    }
    if (need > 0 && !co_await WaitFresh(need)) {
      if (rv_empty && config.progress_reliable && !config.progress_reliable()) {
        // etcd before 3.4.31 (Debian 12's 3.4.23): no progress answer can prove the cache fresh, and
        // the revision moves with every other resource's writes. As kube's etcd3 watcher serves a
        // streaming list without the cache, the state comes from the store at its revision; the
        // cache's changes after that revision follow.
        auto state = co_await StoreState(w.slot()->filter);
        if (!state.ok()) co_return state.TakeStatus();
        store_state = std::move(*state);
      } else {
      int64_t have;
      {
        std::lock_guard lock(mu);
        have = cache.revision();
      }
      co_return TooLargeResourceVersionStatus(need, have);
      }
    }
    send_state = true;
  } else if (opts.send_initial_events.has_value()) {
    if (rv_empty) {
      auto cur = co_await config.storage->CurrentRevision();
      if (!cur.ok()) co_return cur.TakeStatus();
      start = *cur;
    } else if (requested > 0) {
      start = requested;
    }
  } else if (rv_empty || requested == 0) {
    send_state = true;  // kube's legacy watch: the state first
  } else {
    start = requested;
  }

  const std::shared_ptr<WatcherSlot>& slot = w.slot();
  WatchFilter& f = slot->filter;
  // The scope the dispatcher indexes this watcher by: namespace and name from the key, else from
  // exact field selectors.
  std::string rest = f.key.substr(prefix.size());
  if (f.recursive) {
    if (!rest.empty() && rest.back() == '/') rest.pop_back();
    slot->scope_namespace = rest;
  } else if (auto slash = rest.rfind('/'); slash != std::string::npos) {
    slot->scope_namespace = rest.substr(0, slash);
    slot->scope_name = rest.substr(slash + 1);
  } else {
    slot->scope_name = rest;
  }
  if (f.selection) {
    if (slot->scope_namespace.empty()) {
      if (auto ns = f.selection->fields.RequiresExactMatch("metadata.namespace")) slot->scope_namespace = *ns;
    }
    if (slot->scope_name.empty()) {
      if (auto n = f.selection->fields.RequiresExactMatch("metadata.name")) slot->scope_name = *n;
    }
  }
  slot->bookmarks = opts.progress_notify;
  auto now = config.clock->Monotonic();
  if (opts.timeout.count() > 0) slot->deadline = now + opts.timeout;

  CacheWatcher::Start& s = w.start_;
  {
    std::lock_guard lock(mu);
    if (stopping) co_return Status(500, "InternalError", "the watch cache is shutting down");
    const int64_t rev = cache.revision();
    if (send_state && store_state && store_state->second > rev) {
      s.initial = std::move(store_state->first);
      s.snapshot_revision = store_state->second;
      if (opts.progress_notify) s.end_bookmark = store_state->second;
      start = store_state->second;
    } else if (send_state) {
      if (f.recursive) {
        cache.ForEachAt(rev, f.key, PrefixEnd(f.key), [&](const CachedObjectPtr& o) {
          s.initial.push_back(o);
          return true;
        });
      } else if (const CachedObjectPtr* p = cache.Find(f.key)) {
        s.initial.push_back(*p);
      }
      s.snapshot_revision = rev;
      if (opts.send_initial_events.value_or(false) && opts.progress_notify) s.end_bookmark = rev;
      start = rev;
    } else {
      if (start < 0) start = rev;
      if (start < cache.oldest_servable()) {
        co_return Status(410, "Expired", "too old resource version: " + std::to_string(start) + " (" +
                                             std::to_string(cache.oldest_servable()) + ")");
      }
      if (start < rev) cache.EventsAfter(start, s.replay);
    }
    slot->start_revision = std::max(start, rev);
    slot->last_revision = slot->start_revision;
    bool stopped;
    {
      std::lock_guard slot_lock(slot->mu);
      stopped = slot->stopped;
    }
    if (!stopped) {
      slot->id = next_watcher_id++;
      slot->registered = true;
      by_scope[{slot->scope_namespace, slot->scope_name}].emplace(slot->id, slot);
      if (slot->bookmarks) {
        slot->next_bookmark = now + config.bookmark_frequency;
        bookmark_slots.emplace(slot->id, slot);
      }
      ++watcher_count;
      Set(metrics.watchers, static_cast<double>(watcher_count));
    }
  }
  co_return Status();
}

void CacherCore::RemoveWatcher(const std::shared_ptr<WatcherSlot>& slot) {
  std::lock_guard lock(mu);
  if (!slot->registered) return;
  slot->registered = false;
  auto it = by_scope.find(std::make_pair(slot->scope_namespace, slot->scope_name));
  if (it != by_scope.end()) {
    it->second.erase(slot->id);
    if (it->second.empty()) by_scope.erase(it);
  }
  bookmark_slots.erase(slot->id);
  --watcher_count;
  Set(metrics.watchers, static_cast<double>(watcher_count));
}

}  // namespace capstan::storage
