#include "util/blocking_pool.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace capstan {

namespace {

class BlockingPool {
 public:
  ~BlockingPool() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

  void Post(std::function<void()> fn) {
    {
      std::lock_guard lock(mu_);
      if (threads_.empty()) {
        for (int i = 0; i < kBlockingThreads; ++i) threads_.emplace_back([this] { Run(); });
      }
      queue_.push_back(std::move(fn));
    }
    cv_.notify_one();
  }

 private:
  void Run() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;  // at exit: calls still queued are dropped with their waiters
      auto fn = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;  // guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
  std::vector<std::thread> threads_;         // started under mu_ by the first Post
};

}  // namespace

void PostBlocking(std::function<void()> fn) {
  static BlockingPool pool;
  pool.Post(std::move(fn));
}

}  // namespace capstan
