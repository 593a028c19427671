#include "storage/embedded/writer_thread.h"

#include <chrono>

#include "storage/embedded/errors.h"
#include "util/log.h"

namespace capstan::storage::embedded {

WriterThread::WriterThread(MvccStore& store, std::function<void(WriteBatch&)> publish, WriterStats stats)
    : store_(store), publish_(std::move(publish)), stats_(std::move(stats)) {
  thread_ = std::thread([this] { Run(); });
}

WriterThread::~WriterThread() { Stop(); }

void WriterThread::Submit(WriteOp op) {
  {
    std::lock_guard lock(mu_);
    if (!stopping_) {
      queue_.push_back(std::move(op));
      // While the thread lingers for a batch, waking it for every arrival only costs switches.
      if (queue_.size() >= wake_at_) cv_.notify_one();
      return;
    }
  }
  op.finish(StoreClosed());
}

void WriterThread::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status WriterThread::failure() const {
  std::lock_guard lock(mu_);
  return failure_;
}

void WriterThread::Run() {
  size_t last_batch = 0;
  for (;;) {
    std::vector<WriteOp> ops;
    Status failed;
    {
      std::unique_lock lock(mu_);
      // The writers released by the last commit usually come straight back. Waiting a moment for
      // them turns alternating half-size batches into full ones; a lone writer is never delayed
      // (its own next write is what the wait is for), and the wait is bounded by kLinger.
      size_t target = std::min(kMaxBatch, queue_.size() + last_batch);
      if (last_batch > 1 && queue_.size() < target) {
        wake_at_ = target;
        cv_.wait_for(lock, kLinger, [&] { return stopping_ || queue_.size() >= target; });
      }
      wake_at_ = 1;
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) {
        std::deque<WriteOp> rest = std::move(queue_);
        queue_.clear();
        lock.unlock();
        for (WriteOp& op : rest) op.finish(StoreClosed());
        return;
      }
      while (!queue_.empty() && ops.size() < kMaxBatch) {
        ops.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      failed = failure_;
    }
    last_batch = ops.size();
    if (!failed.ok()) {
      for (WriteOp& op : ops) op.finish(failed);
      continue;
    }
    RunBatch(ops);
  }
}

void WriterThread::RunBatch(std::vector<WriteOp>& ops) {
  WriteBatch b;
  Status s = store_.BeginBatch(b);
  if (!s.ok()) {
    for (WriteOp& op : ops) op.finish(s);
    return;
  }
  for (WriteOp& op : ops) {
    op.apply(b);
    if (!b.fatal.ok()) break;
  }
  if (!b.fatal.ok()) {
    LogError("embedded store batch failed", {{"error", b.fatal.message()}});
    Status err = b.fatal;
    store_.AbortBatch(b);
    if (!err.IsStorage(StorageCode::kQuotaExceeded)) {
      std::lock_guard lock(mu_);
      failure_ = err;
    }
    for (WriteOp& op : ops) op.finish(err);
    return;
  }
  auto start = std::chrono::steady_clock::now();
  bool wrote = b.wrote;
  s = store_.CommitBatch(b);
  if (wrote && stats_.commit_duration) {
    stats_.commit_duration(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (stats_.batch_size) stats_.batch_size(ops.size());
  if (!s.ok()) {
    if (!s.IsStorage(StorageCode::kQuotaExceeded)) {
      std::lock_guard lock(mu_);
      failure_ = s;
    }
    for (WriteOp& op : ops) op.finish(s);
    return;
  }
  for (auto& step : b.after_commit) step();
  for (WriteOp& op : ops) op.finish(Status::Ok());
  if (publish_) publish_(b);
}

}  // namespace capstan::storage::embedded
