// audit/buffered_backend.h: a Backend that never blocks requests (kube's buffered audit backend).
//
// ProcessEvents puts events in a bounded buffer (buffer_size events); when it is full the events are
// dropped and counted in apiserver_audit_error_total{plugin=<name>}. One thread takes batches of up
// to max_batch_size events, waiting at most max_wait for a batch to fill, and writes each batch to
// the sink; a sink error counts the batch as dropped. Shutdown() stops accepting events, writes what
// is buffered and joins the thread (the destructor calls it).
// Thread-safety: ProcessEvents from any thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "audit/backend.h"

namespace capstan::audit {

struct BufferedOptions {
  size_t buffer_size = 10000;
  size_t max_batch_size = 400;
  std::chrono::milliseconds max_wait{30000};
};

class BufferedBackend : public Backend {
 public:
  BufferedBackend(std::string name, std::unique_ptr<EventSink> sink, BufferedOptions opts, AuditMetrics* metrics);
  ~BufferedBackend() override;
  BufferedBackend(const BufferedBackend&) = delete;
  BufferedBackend& operator=(const BufferedBackend&) = delete;

  void ProcessEvents(std::vector<EventPtr> events) override;
  void Shutdown() override;
  std::string Name() const override { return name_; }

  // Events dropped so far (buffer full or sink errors); also in the metrics.
  uint64_t dropped() const;
  // Waits until everything accepted so far was handed to the sink (tests).
  void Flush();

 private:
  void Run();
  void Drop(size_t n);

  const std::string name_;
  std::unique_ptr<EventSink> sink_;
  BufferedOptions opts_;
  AuditMetrics* metrics_;
  mutable std::mutex mu_;
  std::condition_variable cv_;        // events arrived, or stopping
  std::condition_variable drained_;   // the sink finished a batch
  std::deque<EventPtr> queue_;        // guarded by mu_
  bool stopping_ = false;             // guarded by mu_
  size_t in_flight_ = 0;              // guarded by mu_
  int flush_waiters_ = 0;             // guarded by mu_
  bool done_ = false;                 // guarded by mu_: Run() returned
  uint64_t dropped_ = 0;              // guarded by mu_
  std::thread thread_;
};

}  // namespace capstan::audit
