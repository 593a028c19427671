// audit/blocking_backend.h: the `blocking` and `blocking-strict` modes of --audit-log-mode and
// --audit-webhook-mode: a request waits until its events are written, so no event is ever dropped
// (a slow disk or webhook slows the requests instead).
//
// kube calls the delegate on the request's goroutine. Capstan's request threads must not block, so
// ProcessEventsAsync queues the events for this backend's writer thread and resumes the request when
// the delegate returned. The thread hands what is queued to the delegate in one call (one webhook POST
// for the events of the requests waiting, up to kMaxGroupEvents, as a group commit), in arrival order, so each
// request's events stay in order; the outcome of that call is every waiting request's outcome.
// In `blocking` the outcome is always true (kube's ignoreErrorsBackend: failures are only counted by
// the delegate); in `blocking-strict` a failure is passed up, and the audit filter fails a request
// whose RequestReceived event was not stored. ProcessEvents calls the delegate on the calling thread.
// Shutdown() writes what is queued, joins the thread and shuts the delegate down; events that come
// later are written on the caller's thread.
// Thread-safety: ProcessEvents and ProcessEventsAsync from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "audit/backend.h"

namespace capstan::audit {

class BlockingBackend : public Backend {
 public:
  static constexpr size_t kMaxGroupEvents = 100;

  BlockingBackend(std::unique_ptr<Backend> delegate, bool strict);
  ~BlockingBackend() override;
  BlockingBackend(const BlockingBackend&) = delete;
  BlockingBackend& operator=(const BlockingBackend&) = delete;

  bool ProcessEvents(std::vector<EventPtr> events) override;
  Task<bool> ProcessEventsAsync(std::vector<EventPtr> events) override;
  void Shutdown() override;
  // kube names the blocking wrapper ignoreErrors<...>; blocking-strict is the delegate itself.
  std::string Name() const override { return strict_ ? delegate_->Name() : "ignoreErrors<" + delegate_->Name() + ">"; }

 private:
  struct Pending {
    std::vector<EventPtr> events;
    std::function<void(bool)> done;
  };
  void Enqueue(std::vector<EventPtr> events, std::function<void(bool)> done);
  void Run();

  std::unique_ptr<Backend> delegate_;
  const bool strict_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Pending> queue_;  // guarded by mu_
  bool stopping_ = false;      // guarded by mu_
  bool shut_down_ = false;     // guarded by mu_
  std::thread thread_;
};

}  // namespace capstan::audit
