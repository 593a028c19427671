#include "util/timer.h"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace capstan {
namespace {

class TimerThread;

struct TimerEntry;
// Ordered by deadline, then by arrival, so equal deadlines fire in the order they were set.
using TimerKey = std::pair<std::chrono::steady_clock::time_point, uint64_t>;
using TimerMap = std::map<TimerKey, std::shared_ptr<TimerEntry>>;

struct TimerEntry : TimerHandle {
  std::function<void()> fn;
  TimerThread* owner = nullptr;
  TimerMap::iterator pos;  // valid while state == 0; guarded by the owner's mutex
  // 0 pending, 1 running or fired, 2 cancelled
  int state = 0;
  bool Cancel() override;
};

// Most timers are request deadlines that are cancelled long before they are due, and each new one is
// due later than those already set. So: cancelling removes the entry at once (nothing is held until
// its deadline), and the thread is woken only when a new entry becomes the earliest one.
class TimerThread {
 public:
  TimerThread() : thread_([this] { Loop(); }) { thread_.detach(); }

  void Add(const std::shared_ptr<TimerEntry>& e, std::chrono::steady_clock::time_point deadline) {
    bool earliest;
    {
      std::lock_guard lock(mu_);
      e->pos = entries_.emplace(TimerKey{deadline, next_seq_++}, e).first;
      earliest = e->pos == entries_.begin();
    }
    if (earliest) cv_.notify_one();
  }

  bool CancelEntry(TimerEntry& e) {
    std::unique_lock lock(mu_);
    if (e.state == 0) {
      e.state = 2;
      auto fn = std::move(e.fn);
      auto self = std::move(e.pos->second);  // keeps e alive until the lock is released
      entries_.erase(e.pos);
      lock.unlock();
      return true;  // fn and the entry's last reference (if any) go here, outside the lock
    }
    // Running: wait until it finishes so the caller may free what fn uses.
    if (e.state == 1 && std::this_thread::get_id() != running_thread_id_) {
      done_cv_.wait(lock, [&] { return running_ != &e; });
    }
    return false;
  }

 private:
  void Loop() {
    running_thread_id_ = std::this_thread::get_id();
    std::unique_lock lock(mu_);
    for (;;) {
      if (entries_.empty()) {
        cv_.wait(lock);
        continue;
      }
      auto it = entries_.begin();
      if (it->first.first > std::chrono::steady_clock::now()) {
        cv_.wait_until(lock, it->first.first);
        continue;
      }
      std::shared_ptr<TimerEntry> top = std::move(it->second);
      entries_.erase(it);
      top->state = 1;
      running_ = top.get();
      auto fn = std::move(top->fn);
      lock.unlock();
      if (fn) fn();
      fn = nullptr;
      lock.lock();
      running_ = nullptr;
      done_cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::condition_variable done_cv_;
  TimerMap entries_;  // guarded by mu_
  uint64_t next_seq_ = 0;
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
  e->fn = std::move(fn);
  e->owner = &Thread();
  Thread().Add(e, std::chrono::steady_clock::now() + delay);
  return e;
}

Task<void> SleepFor(std::chrono::steady_clock::duration delay) {
  co_await Await<int>([delay](std::function<void(int)> cb) { RunAfter(delay, [cb] { cb(0); }); });
}

}  // namespace capstan
