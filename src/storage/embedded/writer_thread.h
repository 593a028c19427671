// storage/embedded/writer_thread.h: the one thread that writes the embedded store (group commit).
//
// Callers Submit operations from any thread. The thread takes everything queued, applies it in one
// MvccStore WriteBatch (one LMDB write transaction), commits with one durable sync, runs the batch's
// after-commit steps, completes every operation with its own result, and only then hands the batch's
// events to the publish callback (the watch hub), so a watcher never sees a change a read cannot.
// Throughput grows with concurrency: while one commit syncs, the next batch queues up.
//
// An LMDB failure abandons the batch (every operation in it fails; the store reloads its state from
// disk). A failed commit other than "map full" makes every later write fail until restart.
//
// Thread-safety: Submit is safe from any thread; apply/finish callbacks run on the writer thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "storage/embedded/mvcc_store.h"

namespace capstan::storage::embedded {

struct WriteOp {
  // Applies the operation to the batch (writer thread). Records its own result for finish.
  std::function<void(WriteBatch&)> apply;
  // Completes the caller: batch_status is OK when the batch committed (then the result recorded by
  // apply stands), else the error that sank the batch.
  std::function<void(const Status& batch_status)> finish;
};

struct WriterStats {
  std::function<void(double seconds)> commit_duration;
  std::function<void(size_t ops)> batch_size;
};

class WriterThread {
 public:
  WriterThread(MvccStore& store, std::function<void(WriteBatch&)> publish, WriterStats stats = {});
  ~WriterThread();
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;

  // Queues the op; once stopped, finishes it at once with kUnavailable.
  void Submit(WriteOp op);
  // Finishes every queued op with kUnavailable and joins the thread.
  void Stop();
  // The error that stopped writes, OK while healthy.
  Status failure() const;

 private:
  void Run();
  void RunBatch(std::vector<WriteOp>& ops);

  static constexpr size_t kMaxBatch = 4096;
  static constexpr std::chrono::microseconds kLinger{500};

  MvccStore& store_;
  std::function<void(WriteBatch&)> publish_;
  WriterStats stats_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<WriteOp> queue_;  // guarded by mu_
  bool stopping_ = false;      // guarded by mu_
  size_t wake_at_ = 1;         // guarded by mu_: queue length at which Submit wakes the thread
  Status failure_;             // guarded by mu_
  std::thread thread_;
};

}  // namespace capstan::storage::embedded
