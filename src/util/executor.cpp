#include "util/executor.h"

namespace capstan {
namespace {
thread_local std::shared_ptr<Executor> current_executor;
}

std::shared_ptr<Executor> CurrentExecutor() { return current_executor; }

ExecutorScope::ExecutorScope(std::shared_ptr<Executor> ex) : previous_(std::move(current_executor)) {
  current_executor = std::move(ex);
}
ExecutorScope::~ExecutorScope() { current_executor = std::move(previous_); }

void LocalLoop::Post(std::function<void()> fn) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void LocalLoop::Run() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopped_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopped and drained
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    fn();
  }
}

void LocalLoop::Stop() {
  {
    std::lock_guard lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

}  // namespace capstan
