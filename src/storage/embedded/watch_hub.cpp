#include "storage/embedded/watch_hub.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "storage/embedded/errors.h"

namespace capstan::storage::embedded {
namespace {

using EventPtr = std::shared_ptr<const WatchEvent>;

struct Watcher {
  uint64_t id = 0;
  KeyRange range;
  bool prev_kv = false;
  bool progress_notify = false;
  WatchCallback cb;

  std::mutex mu;
  std::condition_variable cv;
  // Guarded by mu.
  std::vector<EventPtr> pending;  // queued live events, revision order
  int64_t next_rev = 0;           // the first revision not yet queued (synced) or read (catching up)
  bool synced = false;            // receives live events; changes only under the hub mutex too
  bool scheduled = false;         // in the run queue or being processed
  bool running = false;           // its callback is running
  bool cancelled = false;         // its handle was destroyed
  bool ended = false;             // a final error response is due
  bool end_delivered = false;
  Status end_error;
  bool progress_requested = false;
  std::chrono::steady_clock::time_point last_sent;
};

thread_local const Watcher* tls_in_callback = nullptr;

Status FellBehind(size_t pending) {
  return Status::Storage(StorageCode::kUnavailable, "embedded store: watcher fell too far behind (" +
                                                        std::to_string(pending) + " events pending); re-list");
}

WatchEvent ToEvent(const WatchEvent& e, bool prev_kv) {
  WatchEvent out;
  out.type = e.type;
  out.kv = e.kv;
  if (prev_kv) out.prev_kv = e.prev_kv;
  return out;
}

}  // namespace

struct WatchHub::Core {
  Core(const HistorySource& h, WatchHubOptions o) : history(h), opts(o) {}

  const HistorySource& history;
  const WatchHubOptions opts;

  mutable std::mutex mu;
  std::map<uint64_t, std::shared_ptr<Watcher>> watchers;  // guarded by mu: running, not ended
  std::deque<EventPtr> ring;                               // guarded by mu
  int64_t ring_start_rev = 1;  // guarded by mu: the ring holds every event at or above it
  std::atomic<int64_t> published_rev{0};
  uint64_t next_id = 1;   // guarded by mu
  bool shutdown = false;  // guarded by mu
  std::atomic<int64_t> slow_ended{0};

  std::mutex qmu;
  std::condition_variable qcv;
  std::deque<std::shared_ptr<Watcher>> runq;  // guarded by qmu
  bool stop_threads = false;                  // guarded by qmu
  std::vector<std::thread> threads;

  void ScheduleLocked(const std::shared_ptr<Watcher>& w) {
    if (w->scheduled) return;
    w->scheduled = true;
    Requeue(w);
  }
  void Requeue(const std::shared_ptr<Watcher>& w) {
    {
      std::lock_guard lock(qmu);
      runq.push_back(w);
    }
    qcv.notify_one();
  }
  static void EndLocked(Watcher& w, Status err) {
    w.ended = true;
    w.end_error = std::move(err);
    w.pending.clear();
  }
  // Copies the ring's events at or above `from` that match the watcher into its queue.
  void FillFromRingLocked(Watcher& w, int64_t from) {
    for (const EventPtr& e : ring) {
      if (e->kv.mod_revision >= from && w.range.Contains(e->kv.key)) w.pending.push_back(e);
    }
  }
  // Runs the callback with w.mu released; false when the watcher was cancelled meanwhile.
  bool Call(std::unique_lock<std::mutex>& lock, Watcher& w, WatchResponse resp) {
    if (w.cancelled) return false;
    w.running = true;
    w.last_sent = opts.clock->Monotonic();
    lock.unlock();
    tls_in_callback = &w;
    w.cb(std::move(resp));
    tls_in_callback = nullptr;
    lock.lock();
    w.running = false;
    w.cv.notify_all();
    return !w.cancelled;
  }

  void Worker() {
    for (;;) {
      std::shared_ptr<Watcher> w;
      {
        std::unique_lock lock(qmu);
        qcv.wait(lock, [&] { return stop_threads || !runq.empty(); });
        if (runq.empty()) return;
        w = std::move(runq.front());
        runq.pop_front();
      }
      Process(w);
    }
  }

  void Process(const std::shared_ptr<Watcher>& w) {
    std::unique_lock lock(w->mu);
    if (w->cancelled || w->end_delivered) {
      w->scheduled = false;
      return;
    }
    if (w->ended) {
      WatchResponse resp;
      resp.header_revision = published_rev.load();
      resp.error = w->end_error;
      w->end_delivered = true;
      Call(lock, *w, std::move(resp));
      w->scheduled = false;
      return;
    }
    if (!w->synced) {
      lock.unlock();
      CatchUp(w);
      return;
    }
    int64_t header = std::min(w->next_rev - 1, published_rev.load());
    if (!w->pending.empty()) {
      std::vector<EventPtr> events = std::move(w->pending);
      w->pending.clear();
      WatchResponse resp;
      resp.header_revision = std::max(header, events.back()->kv.mod_revision);
      resp.events.reserve(events.size());
      for (const EventPtr& e : events) resp.events.push_back(ToEvent(*e, w->prev_kv));
      if (!Call(lock, *w, std::move(resp))) {
        w->scheduled = false;
        return;
      }
    } else if (w->progress_requested) {
      w->progress_requested = false;
      WatchResponse resp;
      resp.header_revision = header;
      resp.progress_notify = true;
      if (!Call(lock, *w, std::move(resp))) {
        w->scheduled = false;
        return;
      }
    }
    if (!w->pending.empty() || w->ended || w->progress_requested) {
      Requeue(w);
    } else {
      w->scheduled = false;
    }
  }

  // One step of catching up from history; the watcher stays scheduled until it is in sync.
  void CatchUp(const std::shared_ptr<Watcher>& w) {
    int64_t from;
    {
      std::lock_guard lock(w->mu);
      if (w->cancelled) {
        w->scheduled = false;
        return;
      }
      from = w->next_rev;
    }
    int64_t to = published_rev.load();
    int64_t next = from;
    if (from <= to) {
      std::vector<WatchEvent> events;
      Status s = history.ReadEvents(w->range, from, to, opts.catch_up_chunk, &events, &next);
      if (!s.ok()) {
        {
          std::lock_guard lock(mu);
          watchers.erase(w->id);
        }
        std::lock_guard lock(w->mu);
        EndLocked(*w, s);
        Requeue(w);
        return;
      }
      if (!events.empty()) {
        std::unique_lock lock(w->mu);
        WatchResponse resp;
        resp.header_revision = next - 1;
        if (!w->prev_kv) {
          for (auto& e : events) e.prev_kv.reset();
        }
        resp.events = std::move(events);
        if (!Call(lock, *w, std::move(resp))) {
          w->scheduled = false;
          return;
        }
      }
    }
    std::lock_guard hub_lock(mu);
    std::lock_guard lock(w->mu);
    w->next_rev = next;
    if (w->cancelled) {
      w->scheduled = false;
      return;
    }
    int64_t pub = published_rev.load();
    if (w->next_rev > pub) {
      w->synced = true;
    } else if (w->next_rev >= ring_start_rev) {
      FillFromRingLocked(*w, w->next_rev);
      w->next_rev = pub + 1;
      w->synced = true;
    }
    if (!w->synced || !w->pending.empty() || w->progress_requested || w->ended) {
      Requeue(w);
    } else {
      w->scheduled = false;
    }
  }
};

namespace {

class HubWatchHandle : public WatchHandle {
 public:
  HubWatchHandle(std::shared_ptr<WatchHub::Core> core, std::shared_ptr<Watcher> w)
      : core_(std::move(core)), w_(std::move(w)) {}
  ~HubWatchHandle() override {
    {
      std::lock_guard lock(core_->mu);
      core_->watchers.erase(w_->id);
    }
    std::unique_lock lock(w_->mu);
    w_->cancelled = true;
    w_->pending.clear();
    // A handle destroyed from its own callback (against the contract) must not wait for itself.
    if (tls_in_callback != w_.get()) w_->cv.wait(lock, [&] { return !w_->running; });
  }
  void RequestProgress() override {
    std::lock_guard lock(w_->mu);
    if (w_->cancelled || w_->ended) return;
    w_->progress_requested = true;
    core_->ScheduleLocked(w_);
  }

 private:
  std::shared_ptr<WatchHub::Core> core_;
  std::shared_ptr<Watcher> w_;
};

}  // namespace

WatchHub::WatchHub(const HistorySource& history, int64_t current_revision, WatchHubOptions options)
    : core_(std::make_shared<Core>(history, options)) {
  core_->published_rev.store(current_revision);
  core_->ring_start_rev = current_revision + 1;
  for (int i = 0; i < std::max(1, options.dispatch_threads); ++i) {
    core_->threads.emplace_back([core = core_.get()] { core->Worker(); });
  }
}

WatchHub::~WatchHub() { Shutdown(); }

std::unique_ptr<WatchHandle> WatchHub::Watch(WatchRequest req, WatchCallback cb) {
  auto w = std::make_shared<Watcher>();
  w->range = KeyRange::From(req.key, req.range_end);
  w->prev_kv = req.prev_kv;
  w->progress_notify = req.progress_notify;
  w->cb = std::move(cb);
  w->last_sent = core_->opts.clock->Monotonic();
  Core& c = *core_;
  std::lock_guard hub_lock(c.mu);
  std::lock_guard lock(w->mu);
  w->id = c.next_id++;
  if (c.shutdown) {
    // No dispatch thread is left to deliver an error; the watch simply never reports.
    w->ended = w->end_delivered = true;
    return std::make_unique<HubWatchHandle>(core_, w);
  }
  int64_t pub = c.published_rev.load();
  int64_t compact = c.history.compact_revision();
  int64_t start = req.start_revision;
  if (req.key.empty()) {
    Core::EndLocked(*w, EmptyKey());
  } else if (start <= 0) {
    // After the committed revision, which a client may already have seen in a write's response even
    // if that batch is not published yet; the publisher skips events below next_rev.
    w->next_rev = std::max(pub, c.history.current_revision()) + 1;
    w->synced = true;
  } else if (start < compact) {
    Core::EndLocked(*w, Compacted(compact));
  } else if (start > pub) {
    w->next_rev = start;
    w->synced = true;
  } else if (start >= c.ring_start_rev) {
    c.FillFromRingLocked(*w, start);
    w->next_rev = pub + 1;
    w->synced = true;
  } else {
    w->next_rev = start;  // caught up from history by a dispatch thread
  }
  if (!w->ended) c.watchers.emplace(w->id, w);
  if (w->ended || !w->synced || !w->pending.empty()) c.ScheduleLocked(w);
  return std::make_unique<HubWatchHandle>(core_, w);
}

void WatchHub::Publish(const std::vector<std::shared_ptr<const WatchEvent>>& events, int64_t revision) {
  Core& c = *core_;
  std::lock_guard hub_lock(c.mu);
  c.published_rev.store(revision);
  for (const EventPtr& e : events) c.ring.push_back(e);
  while (c.ring.size() > c.opts.ring_events) {
    c.ring_start_rev = c.ring.front()->kv.mod_revision + 1;
    c.ring.pop_front();
  }
  if (c.ring.empty()) c.ring_start_rev = revision + 1;
  std::vector<uint64_t> ended;
  for (auto& [id, w] : c.watchers) {
    std::lock_guard lock(w->mu);
    if (!w->synced || w->cancelled || w->ended) continue;
    for (const EventPtr& e : events) {
      if (e->kv.mod_revision >= w->next_rev && w->range.Contains(e->kv.key)) w->pending.push_back(e);
    }
    w->next_rev = std::max(w->next_rev, revision + 1);
    if (w->pending.size() > c.opts.max_pending_events) {
      Core::EndLocked(*w, FellBehind(w->pending.size()));
      c.slow_ended.fetch_add(1);
      ended.push_back(id);
    }
    if (!w->pending.empty() || w->ended) c.ScheduleLocked(w);
  }
  for (uint64_t id : ended) c.watchers.erase(id);
}

void WatchHub::Tick() {
  Core& c = *core_;
  auto now = c.opts.clock->Monotonic();
  std::lock_guard hub_lock(c.mu);
  for (auto& [id, w] : c.watchers) {
    std::lock_guard lock(w->mu);
    if (!w->progress_notify || !w->synced || w->ended || w->cancelled) continue;
    if (now - w->last_sent < c.opts.progress_interval) continue;
    w->progress_requested = true;
    c.ScheduleLocked(w);
  }
}

void WatchHub::Shutdown() {
  Core& c = *core_;
  {
    std::lock_guard hub_lock(c.mu);
    if (c.shutdown) return;
    c.shutdown = true;
    for (auto& [id, w] : c.watchers) {
      std::lock_guard lock(w->mu);
      if (w->ended || w->cancelled) continue;
      Core::EndLocked(*w, StoreClosed());
      c.ScheduleLocked(w);
    }
    c.watchers.clear();
  }
  {
    std::lock_guard lock(c.qmu);
    c.stop_threads = true;
  }
  c.qcv.notify_all();
  for (auto& t : c.threads) t.join();
  c.threads.clear();
}

size_t WatchHub::watcher_count() const {
  std::lock_guard lock(core_->mu);
  return core_->watchers.size();
}

int64_t WatchHub::slow_watchers_ended() const { return core_->slow_ended.load(); }

}  // namespace capstan::storage::embedded
