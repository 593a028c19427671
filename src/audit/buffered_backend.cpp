#include "audit/buffered_backend.h"

#include <algorithm>

namespace capstan::audit {

BufferedBackend::BufferedBackend(std::unique_ptr<Backend> delegate, BatchConfig config, AuditMetrics* metrics)
    : delegate_(std::move(delegate)), config_(config), metrics_(metrics) {
  if (config_.throttle_enable) throttle_.emplace(config_.throttle_qps, config_.throttle_burst);
  thread_ = std::thread([this] { Run(); });
}

BufferedBackend::~BufferedBackend() { Shutdown(); }

bool BufferedBackend::ProcessEvents(std::vector<EventPtr> events) {
  size_t n_dropped = 0;
  bool stopped = false;
  {
    std::lock_guard lock(mu_);
    stopped = stopping_;
    for (auto& e : events) {
      if (stopping_ || queue_.size() >= std::max<size_t>(1, config_.buffer_size)) {
        ++n_dropped;
        continue;
      }
      queue_.push_back(std::move(e));
    }
    dropped_ += n_dropped;
  }
  cv_.notify_all();
  if (n_dropped) {
    HandlePluginError(metrics_, "buffered", stopped ? "audit backend shut down" : "audit buffer queue blocked",
                      n_dropped);
  }
  return true;
}

// kube's collectEvents: up to max_batch_size events; with batching, no longer than max_batch_wait from
// the start of the collection; at once when stopping (or flushing) and nothing more is queued.
std::vector<EventPtr> BufferedBackend::CollectLocked(std::unique_lock<std::mutex>& lock) {
  const size_t max = std::max<size_t>(1, config_.max_batch_size);
  const bool timed = max > 1;
  const auto deadline = std::chrono::steady_clock::now() + config_.max_batch_wait;
  std::vector<EventPtr> batch;
  while (batch.size() < max) {
    if (!queue_.empty()) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
      continue;
    }
    if (stopping_ || (flush_waiters_ > 0 && !batch.empty())) break;
    if (timed) {
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && queue_.empty()) break;
    } else {
      cv_.wait(lock);
    }
  }
  return batch;
}

void BufferedBackend::Send(std::vector<EventPtr> batch, std::unique_lock<std::mutex>& lock) {
  if (config_.async_delegate) {
    drained_.wait(lock, [&] { return in_flight_ < static_cast<size_t>(kMaxSenders); });
  }
  ++in_flight_;
  lock.unlock();
  if (throttle_) throttle_->Accept();
  auto finish = [this] {
    std::lock_guard l(mu_);
    --in_flight_;
    drained_.notify_all();
  };
  if (config_.async_delegate) {
    std::thread([this, b = std::move(batch), finish]() mutable {
      delegate_->ProcessEvents(std::move(b));
      finish();
    }).detach();
  } else {
    delegate_->ProcessEvents(std::move(batch));
    finish();
  }
  lock.lock();
}

void BufferedBackend::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    std::vector<EventPtr> batch = CollectLocked(lock);
    if (batch.empty()) {
      if (stopping_ && queue_.empty()) break;
      continue;
    }
    Send(std::move(batch), lock);
  }
  done_ = true;
  drained_.notify_all();
}

void BufferedBackend::Shutdown() {
  {
    std::lock_guard lock(mu_);
    if (shut_down_) return;
    shut_down_ = true;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  {
    std::unique_lock lock(mu_);
    drained_.wait(lock, [&] { return in_flight_ == 0; });
  }
  delegate_->Shutdown();
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
