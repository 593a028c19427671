// storage/etcd3/completion_thread.h: the gRPC completion queue of one etcd client and the thread that
// drains it, plus the registry of calls in flight that makes shutdown orderly.
//
// Every asynchronous gRPC operation is started with a CqOp* as its tag; when it completes, the
// completion thread calls tag->Proceed(ok). Proceed must be quick and never block: it decodes the
// reply and hands it on (util/task.h's Await posts the caller's continuation to the caller's executor,
// so no handler code runs on this thread; watch callbacks run here and must not block either).
//
// Shutdown: CallTracker::Close() refuses new calls and cancels the running ones; once every call has
// reported its end (End), the queue is shut down and the thread joined. A call registered with Begin
// may keep starting operations of its own (a stream's next read, its Finish) until it calls End.
//
// Thread-safety: CallTracker is safe from any thread. CompletionThread is created and destroyed by
// its owner; cq() may be used from any thread while calls are registered.
#pragma once

#include <grpcpp/client_context.h>
#include <grpcpp/completion_queue.h>

#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace capstan::storage::etcd3 {

class CqOp {
 public:
  virtual ~CqOp() = default;
  // Called on the completion thread when the operation started with this tag completes.
  virtual void Proceed(bool ok) = 0;
};

class CallTracker {
 public:
  // Registers a call before it starts; false once closing (the call must not start). `start` runs
  // under the tracker's lock so that Close() either sees the call and cancels it, or the call never
  // starts.
  template <class F>
  bool Begin(grpc::ClientContext* ctx, F&& start) {
    std::lock_guard lock(mu_);
    if (closing_) return false;
    live_.insert(ctx);
    start();
    return true;
  }
  void End(grpc::ClientContext* ctx);
  // Refuses new calls and cancels those in flight.
  void Close();
  // Waits until every registered call has ended.
  void WaitIdle();
  bool closing() const;

 private:
  mutable std::mutex mu_;
  std::condition_variable idle_;
  bool closing_ = false;                   // guarded by mu_
  std::set<grpc::ClientContext*> live_;    // guarded by mu_
};

class CompletionThread {
 public:
  CompletionThread();
  // Shuts the queue down and joins the thread; every call must have ended (CallTracker::WaitIdle).
  ~CompletionThread();
  CompletionThread(const CompletionThread&) = delete;
  CompletionThread& operator=(const CompletionThread&) = delete;

  grpc::CompletionQueue* cq() { return &cq_; }

 private:
  void Run();
  grpc::CompletionQueue cq_;
  std::thread thread_;
};

}  // namespace capstan::storage::etcd3
