#include "util/timer.h"

#include <condition_variable>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace capstan {
namespace {

class TimerThread;

struct TimerEntry : TimerHandle, std::enable_shared_from_this<TimerEntry> {
  std::chrono::steady_clock::time_point deadline;
  std::function<void()> fn;
  TimerThread* owner = nullptr;
  // 0 pending, 1 running or fired, 2 cancelled
  int state = 0;
  bool Cancel() override;
};

class TimerThread {
 public:
  TimerThread() : thread_([this] { Loop(); }) { thread_.detach(); }

  void Add(const std::shared_ptr<TimerEntry>& e) {
    std::lock_guard lock(mu_);
    heap_.push(e);
    cv_.notify_one();
  }

  bool CancelEntry(TimerEntry& e) {
    std::unique_lock lock(mu_);
    if (e.state == 0) {
      e.state = 2;
      e.fn = nullptr;
      return true;
    }
    // Running: wait until it finishes so the caller may free what fn uses.
    if (std::this_thread::get_id() != running_thread_id_) {
      done_cv_.wait(lock, [&] { return running_ != &e; });
    }
    return false;
  }

 private:
  struct Later {
    bool operator()(const std::shared_ptr<TimerEntry>& a, const std::shared_ptr<TimerEntry>& b) const {
      return a->deadline > b->deadline;
    }
  };

  void Loop() {
    running_thread_id_ = std::this_thread::get_id();
    std::unique_lock lock(mu_);
    for (;;) {
      if (heap_.empty()) {
        cv_.wait(lock);
        continue;
      }
      auto top = heap_.top();
      if (top->state == 2) {
        heap_.pop();
        continue;
      }
      auto now = std::chrono::steady_clock::now();
      if (top->deadline > now) {
        cv_.wait_until(lock, top->deadline);
        continue;
      }
      heap_.pop();
      top->state = 1;
      running_ = top.get();
      auto fn = std::move(top->fn);
      lock.unlock();
      if (fn) fn();
      lock.lock();
      running_ = nullptr;
      done_cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable done_cv_;
  std::priority_queue<std::shared_ptr<TimerEntry>, std::vector<std::shared_ptr<TimerEntry>>, Later> heap_;
  TimerEntry* running_ = nullptr;
  std::thread::id running_thread_id_;
  std::thread thread_;
};

TimerThread& Thread() {
  static TimerThread* t = new TimerThread();  // lives for the whole process
  return *t;
}

bool TimerEntry::Cancel() { return owner->CancelEntry(*this); }

}  // namespace

std::shared_ptr<TimerHandle> RunAfter(std::chrono::steady_clock::duration delay, std::function<void()> fn) {
  auto e = std::make_shared<TimerEntry>();
  e->deadline = std::chrono::steady_clock::now() + delay;
  e->fn = std::move(fn);
  e->owner = &Thread();
  Thread().Add(e);
  return e;
}

Task<void> SleepFor(std::chrono::steady_clock::duration delay) {
  co_await Await<int>([delay](std::function<void(int)> cb) { RunAfter(delay, [cb] { cb(0); }); });
}

}  // namespace capstan
