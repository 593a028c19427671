#include "storage/cacher/cache_watcher.h"

#include <boost/json.hpp>

#include "storage/cacher/cacher_core.h"

namespace capstan::storage {

namespace json = boost::json;

namespace {

// A batch handed to the consumer stops at this many events or this much JSON: the consumer writes a
// batch with one write call (TLS records of up to 16 KiB), and its buffers stay below malloc's mmap
// threshold, so a busy watcher neither maps fresh pages per batch nor holds megabytes per write.
constexpr size_t kMaxBatchEvents = 512;
constexpr size_t kMaxBatchBytes = 64 << 10;

}  // namespace

bool WatchFilter::InScope(const CachedObject& o) const {
  const std::string& k = o.key();
  if (!recursive) return k == key;
  return k.size() > key.size() && k.compare(0, key.size(), key) == 0;
}

bool WatchFilter::Matches(const CachedObject& o) const {
  if (!InScope(o)) return false;
  if (selection) return o.Matches(*selection);
  if (predicate) return predicate(o.Parse());
  return true;
}

std::optional<PendingEvent> WatchFilter::Convert(const CachedEvent& e) const {
  bool cur = e.type != CachedEvent::Type::kDeleted && Matches(*e.object);
  bool old = e.prev && Matches(*e.prev);
  if (!cur && !old) return std::nullopt;
  PendingEvent p;
  p.revision = e.revision;
  if (cur) {
    p.type = old ? ObjectEvent::Type::kModified : ObjectEvent::Type::kAdded;
    p.object = e.object;
  } else {
    // Deleted, or it left the selection: its previous state at this revision.
    p.type = ObjectEvent::Type::kDeleted;
    if (e.type == CachedEvent::Type::kDeleted) {
      p.object = e.object;
    } else if (e.prev_at_revision) {
      p.object = e.prev_at_revision;
    } else {
      // Only a predicate-only watcher can see a transition without a label/field change.
      p.object = e.prev->AtRevision(e.revision);
      if (!p.object) p.object = e.prev;
    }
  }
  return p;
}

bool WatcherSlot::Push(PendingEvent e, std::optional<detail::Waiter>& wake) {
  std::lock_guard lock(mu);
  if (ended || stopped) return true;
  if (pending.size() >= max_pending) return false;
  pending.push_back(std::move(e));
  if (!waiter || deferred) return true;  // the consumer is busy, or already due at the next flush
  if (batcher && not_before != std::chrono::steady_clock::time_point{} &&
      std::chrono::steady_clock::now() < not_before) {
    // Within the consumer's batch window: the batcher wakes it once, with what has collected by then.
    deferred = true;
    batcher->Defer(shared_from_this());
    return true;
  }
  wake = std::exchange(waiter, std::nullopt);
  return true;
}

void WatcherSlot::End(std::optional<detail::Waiter>& wake) {
  std::lock_guard lock(mu);
  ended = true;
  if (waiter) wake = std::exchange(waiter, std::nullopt);
}

CacheWatcher::CacheWatcher(std::shared_ptr<CacherCore> core, WatchFilter filter, WatchOptions opts,
                           int64_t start_revision)
    : core_(std::move(core)),
      opts_(std::move(opts)),
      start_revision_(start_revision),
      slot_(std::make_shared<WatcherSlot>(core_->config.max_pending_events)) {
  slot_->filter = std::move(filter);
  slot_->batcher = core_->batcher.get();
  if (slot_->batcher) slot_->batcher->AddWatcher();
}

CacheWatcher::~CacheWatcher() {
  Stop();
  if (slot_->batcher) slot_->batcher->RemoveWatcher();
}

void CacheWatcher::Stop() {
  std::optional<detail::Waiter> wake;
  {
    std::lock_guard lock(slot_->mu);
    if (slot_->stopped) return;
    slot_->stopped = true;
    slot_->pending.clear();
    if (slot_->waiter) wake = std::exchange(slot_->waiter, std::nullopt);
  }
  core_->RemoveWatcher(slot_);
  if (wake) wake->Resume();
}

void CacheWatcher::AppendObjectEvent(const PendingEvent& p, std::vector<ObjectEvent>& out) const {
  ObjectEvent& e = out.emplace_back();  // built in place: an ObjectEvent is large (its Status) to move
  e.type = p.type;
  e.revision = p.revision;
  if (p.type == ObjectEvent::Type::kBookmark) {
    json::object md;
    md["resourceVersion"] = std::to_string(p.revision);
    if (p.initial_events_end) {
      json::object ann;
      ann["k8s.io/initial-events-end"] = "true";
      md["annotations"] = std::move(ann);
    }
    e.object["metadata"] = std::move(md);
    return;
  }
  if (opts_.accept_serialized) {
    e.serialized = p.object->Serialized(p.object);
    e.encodings = p.object;
  } else {
    e.object = p.object->Parse();
  }
}

bool CacheWatcher::TakeStartEvents(std::vector<ObjectEvent>& out) {
  size_t bytes = 0;
  const WatchFilter& f = slot_->filter;
  while (initial_pos_ < start_.initial.size()) {
    if (out.size() >= kMaxBatchEvents || bytes >= kMaxBatchBytes) return true;
    const CachedObjectPtr& o = start_.initial[initial_pos_++];
    if (!f.Matches(*o)) continue;
    PendingEvent p;
    p.type = ObjectEvent::Type::kAdded;
    p.revision = start_.snapshot_revision;
    p.object = o;
    bytes += o->json().size();
    AppendObjectEvent(p, out);
  }
  if (!start_.initial.empty()) {
    start_.initial.clear();
    start_.initial.shrink_to_fit();
    initial_pos_ = 0;
  }
  while (replay_pos_ < start_.replay.size()) {
    if (out.size() >= kMaxBatchEvents || bytes >= kMaxBatchBytes) return true;
    auto p = f.Convert(*start_.replay[replay_pos_++]);
    if (!p) continue;
    bytes += p->object->json().size();
    AppendObjectEvent(*p, out);
  }
  if (!start_.replay.empty()) {
    start_.replay.clear();
    start_.replay.shrink_to_fit();
    replay_pos_ = 0;
  }
  if (start_.end_bookmark) {
    PendingEvent b;
    b.type = ObjectEvent::Type::kBookmark;
    b.revision = *start_.end_bookmark;
    b.initial_events_end = true;
    start_.end_bookmark.reset();
    AppendObjectEvent(b, out);
  }
  return !out.empty();
}

auto CacheWatcher::WaitForEvents() {
  struct Awaiter {
    WatcherSlot& s;
    // Something to take now: the end, or events once the batch window has passed.
    static bool Ready(WatcherSlot& s) {
      if (s.ended || s.stopped) return true;
      if (s.pending.empty()) return false;
      return !s.batcher || s.not_before == std::chrono::steady_clock::time_point{} ||
             std::chrono::steady_clock::now() >= s.not_before;
    }
    bool await_ready() {
      std::lock_guard lock(s.mu);
      return Ready(s);
    }
    bool await_suspend(std::coroutine_handle<> h) {
      std::lock_guard lock(s.mu);
      if (Ready(s)) return false;
      s.waiter = detail::Waiter{h, CurrentExecutor()};
      if (!s.pending.empty() && !s.deferred) {
        // Events are there but the window has not passed: the next flush wakes this consumer.
        s.deferred = true;
        s.batcher->Defer(s.shared_from_this());
      }
      return true;
    }
    void await_resume() {}
  };
  return Awaiter{*slot_};
}

Task<std::vector<ObjectEvent>> CacheWatcher::Next() {
  std::vector<ObjectEvent> out;
  if (finished_) co_return out;
  if (!started_) {
    started_ = true;
    Status st = co_await core_->StartWatch(*this);
    if (!st.ok()) {
      finished_ = true;
      ObjectEvent e;
      e.type = ObjectEvent::Type::kError;
      e.error = std::move(st);
      out.push_back(std::move(e));
      co_return out;
    }
  }
  {
    std::lock_guard lock(slot_->mu);
    if (slot_->stopped) {
      finished_ = true;
      co_return out;
    }
  }
  if (TakeStartEvents(out)) {
    // The start events are a batch like any other: once they are all out and nothing is pending,
    // the batch window opens (without this, events right after a watch's catch-up woke the consumer
    // one by one).
    std::lock_guard lock(slot_->mu);
    const bool start_done = start_.initial.empty() && start_.replay.empty() && !start_.end_bookmark;
    if (start_done && slot_->batcher && slot_->pending.empty()) {
      slot_->not_before = std::chrono::steady_clock::now() + slot_->batcher->window();
    }
    co_return out;
  }
  std::vector<PendingEvent> batch;
  while (true) {
    co_await WaitForEvents();
    bool ended = false;
    {
      std::lock_guard lock(slot_->mu);
      if (slot_->stopped) {
        finished_ = true;
        co_return out;
      }
      size_t bytes = 0;
      size_t n = 0;
      for (const auto& p : slot_->pending) {
        if (n >= kMaxBatchEvents || bytes >= kMaxBatchBytes) break;
        if (p.object) bytes += p.object->json().size();
        ++n;
      }
      batch.assign(std::make_move_iterator(slot_->pending.begin()),
                   std::make_move_iterator(slot_->pending.begin() + static_cast<std::ptrdiff_t>(n)));
      slot_->pending.erase(slot_->pending.begin(), slot_->pending.begin() + static_cast<std::ptrdiff_t>(n));
      // A batch that emptied the queue opens a batch window: what follows collects until it passes
      // (see watch_batcher.h). After a batch cut by its cap the rest goes out without waiting.
      if (n > 0) {
        if (slot_->batcher && slot_->pending.empty()) {
          slot_->not_before = std::chrono::steady_clock::now() + slot_->batcher->window();
        } else {
          slot_->not_before = {};
        }
      }
      ended = slot_->ended && slot_->pending.empty();
    }
    out.reserve(batch.size());
    for (const auto& p : batch) AppendObjectEvent(p, out);
    batch.clear();
    if (!out.empty()) co_return out;  // after an end, what was queued goes out first
    if (ended) {
      finished_ = true;
      co_return out;
    }
  }
}

}  // namespace capstan::storage
