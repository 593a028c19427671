#include "audit/buffered_backend.h"

#include "util/log.h"

namespace capstan::audit {

BufferedBackend::BufferedBackend(std::string name, std::unique_ptr<EventSink> sink, BufferedOptions opts,
                                 AuditMetrics* metrics)
    : name_(std::move(name)), sink_(std::move(sink)), opts_(opts), metrics_(metrics) {
  if (opts_.max_batch_size == 0) opts_.max_batch_size = 1;
  thread_ = std::thread([this] { Run(); });
}

BufferedBackend::~BufferedBackend() { Shutdown(); }

void BufferedBackend::Drop(size_t n) {
  dropped_ += n;
  if (metrics_) metrics_->errors.With({name_})->Inc(static_cast<double>(n));
}

void BufferedBackend::ProcessEvents(std::vector<EventPtr> events) {
  size_t n_dropped = 0;
  uint64_t total = 0;
  bool log_drop = false;
  {
    std::lock_guard lock(mu_);
    for (auto& e : events) {
      if (stopping_ || queue_.size() >= opts_.buffer_size) {
        ++n_dropped;
        continue;
      }
      queue_.push_back(std::move(e));
    }
    if (n_dropped) {
      uint64_t before = dropped_;
      Drop(n_dropped);
      total = dropped_;
      log_drop = before == 0 || before / 1000 != dropped_ / 1000;
    }
  }
  // Logged at the first drop and then once per 1000, so an overloaded backend does not flood the log.
  if (n_dropped && log_drop) {
    LogWarn("audit buffer full, events dropped", {{"backend", name_}, {"dropped_total", static_cast<int64_t>(total)}});
  }
  cv_.notify_one();
}

void BufferedBackend::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty() && stopping_) break;
    // Wait for a full batch, at most max_wait (not at all when stopping).
    if (!stopping_ && flush_waiters_ == 0 && queue_.size() < opts_.max_batch_size) {
      cv_.wait_for(lock, opts_.max_wait, [&] { return stopping_ || flush_waiters_ > 0 || queue_.size() >= opts_.max_batch_size; });
    }
    std::vector<EventPtr> batch;
    while (!queue_.empty() && batch.size() < opts_.max_batch_size) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    in_flight_ = batch.size();
    lock.unlock();
    Status st = sink_->Write(batch);
    lock.lock();
    in_flight_ = 0;
    if (!st.ok()) {
      Drop(batch.size());
      LogWarn("audit backend failed to write events",
              {{"backend", name_}, {"count", static_cast<int64_t>(batch.size())}, {"error", st.message()}});
    }
    drained_.notify_all();
  }
  done_ = true;
  drained_.notify_all();
}

void BufferedBackend::Shutdown() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

uint64_t BufferedBackend::dropped() const {
  std::lock_guard lock(mu_);
  return dropped_;
}

void BufferedBackend::Flush() {
  std::unique_lock lock(mu_);
  ++flush_waiters_;
  cv_.notify_all();
  drained_.wait(lock, [&] { return (queue_.empty() && in_flight_ == 0) || done_; });
  --flush_waiters_;
}

}  // namespace capstan::audit
