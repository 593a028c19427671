// audit/buffered_backend.h: kube's buffered audit backend, the `batch` mode of --audit-log-mode and
// --audit-webhook-mode: requests never wait for the delegate.
//
// ProcessEvents puts events in a bounded buffer (buffer_size events) and returns true; what does not
// fit is dropped and counted in apiserver_audit_error_total{plugin="buffered"}. One thread collects
// batches as kube's collectEvents does: up to max_batch_size events, and, when batches are larger than
// one event, for at most max_batch_wait from the start of each collection. Each batch waits for a
// token when throttling is on, then goes to the delegate: on the batching thread, or (async_delegate,
// the webhook's default) on a sender thread of its own so collection goes on meanwhile (at most
// kMaxSenders at once). Delegate failures are counted by the delegate itself.
// Shutdown() stops accepting events, sends what is buffered, waits for the senders, joins the thread
// and shuts the delegate down (the destructor calls it).
// Thread-safety: ProcessEvents from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "audit/backend.h"
#include "audit/token_bucket.h"

namespace capstan::audit {

// kube's BatchConfig; the defaults are the webhook backend's (the log backend: max_batch_size 1, no
// throttle, synchronous delegate).
struct BatchConfig {
  size_t buffer_size = 10000;
  size_t max_batch_size = 400;
  std::chrono::nanoseconds max_batch_wait = std::chrono::seconds(30);
  bool throttle_enable = true;
  double throttle_qps = 10;
  int throttle_burst = 15;
  bool async_delegate = true;
};

class BufferedBackend : public Backend {
 public:
  static constexpr int kMaxSenders = 64;

  BufferedBackend(std::unique_ptr<Backend> delegate, BatchConfig config, AuditMetrics* metrics);
  ~BufferedBackend() override;
  BufferedBackend(const BufferedBackend&) = delete;
  BufferedBackend& operator=(const BufferedBackend&) = delete;

  bool ProcessEvents(std::vector<EventPtr> events) override;
  void Shutdown() override;
  std::string Name() const override { return "buffered<" + delegate_->Name() + ">"; }

  // Events dropped so far because the buffer was full (or the backend stopped).
  uint64_t dropped() const;
  // Waits until everything accepted so far was handed to the delegate and it returned (tests).
  void Flush();

 private:
  void Run();
  std::vector<EventPtr> CollectLocked(std::unique_lock<std::mutex>& lock);
  void Send(std::vector<EventPtr> batch, std::unique_lock<std::mutex>& lock);

  std::unique_ptr<Backend> delegate_;
  const BatchConfig config_;
  AuditMetrics* metrics_;
  std::optional<TokenBucket> throttle_;
  mutable std::mutex mu_;
  std::condition_variable cv_;       // events arrived, a flush was asked for, or stopping
  std::condition_variable drained_;  // a batch finished
  std::deque<EventPtr> queue_;       // guarded by mu_
  bool stopping_ = false;            // guarded by mu_
  bool shut_down_ = false;           // guarded by mu_: Shutdown() finished or is running
  size_t in_flight_ = 0;             // guarded by mu_: batches handed to the delegate, not yet returned
  int flush_waiters_ = 0;            // guarded by mu_
  bool done_ = false;                // guarded by mu_: Run() returned
  uint64_t dropped_ = 0;             // guarded by mu_
  std::thread thread_;
};

}  // namespace capstan::audit
