#include "audit/blocking_backend.h"

namespace capstan::audit {

BlockingBackend::BlockingBackend(std::unique_ptr<Backend> delegate, bool strict)
    : delegate_(std::move(delegate)), strict_(strict) {
  thread_ = std::thread([this] { Run(); });
}

BlockingBackend::~BlockingBackend() { Shutdown(); }

bool BlockingBackend::ProcessEvents(std::vector<EventPtr> events) {
  bool ok = delegate_->ProcessEvents(std::move(events));
  return strict_ ? ok : true;
}

Task<bool> BlockingBackend::ProcessEventsAsync(std::vector<EventPtr> events) {
  co_return co_await Await<bool>(
      [this, events = std::move(events)](std::function<void(bool)> done) mutable {
        Enqueue(std::move(events), std::move(done));
      });
}

void BlockingBackend::Enqueue(std::vector<EventPtr> events, std::function<void(bool)> done) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      queue_.push_back({std::move(events), std::move(done)});
      cv_.notify_one();
      return;
    }
  }
  done(ProcessEvents(std::move(events)));
}

void BlockingBackend::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
    if (queue_.empty()) break;  // stopping, and everything is written
    // A group is what is queued, up to kMaxGroupEvents (always at least one request's events).
    std::vector<Pending> group;
    size_t n = 0;
    while (!queue_.empty() && (group.empty() || n + queue_.front().events.size() <= kMaxGroupEvents)) {
      n += queue_.front().events.size();
      group.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    lock.unlock();
    std::vector<EventPtr> events;
    for (auto& p : group) {
      for (auto& e : p.events) events.push_back(std::move(e));
    }
    bool ok = ProcessEvents(std::move(events));
    for (auto& p : group) p.done(ok);
    lock.lock();
  }
}

void BlockingBackend::Shutdown() {
  {
    std::lock_guard lock(mu_);
    if (shut_down_) return;
    shut_down_ = true;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  delegate_->Shutdown();
}

}  // namespace capstan::audit
