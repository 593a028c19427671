// util/executor.h: where continuations run.
//
// Each event-loop thread (the server's I/O threads, a SyncWait caller) has a current Executor. An
// asynchronous operation completed on another thread (the storage writer, a gRPC completion queue)
// posts its continuation back to the executor that was current when it was started, so handler code
// never runs on the storage threads. Thread-safety: Post may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace capstan {

class Executor {
 public:
  virtual ~Executor() = default;
  virtual void Post(std::function<void()> fn) = 0;
};

// The calling thread's executor, or null when it has none (then continuations run inline).
std::shared_ptr<Executor> CurrentExecutor();

// Sets the calling thread's executor for the lifetime of the scope.
class ExecutorScope {
 public:
  explicit ExecutorScope(std::shared_ptr<Executor> ex);
  ~ExecutorScope();
  ExecutorScope(const ExecutorScope&) = delete;
  ExecutorScope& operator=(const ExecutorScope&) = delete;

 private:
  std::shared_ptr<Executor> previous_;
};

// A run loop for a plain thread: Run() executes posted functions until Stop().
class LocalLoop : public Executor {
 public:
  void Post(std::function<void()> fn) override;
  void Run();
  void Stop();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopped_ = false;
};

}  // namespace capstan
