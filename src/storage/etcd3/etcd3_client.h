// storage/etcd3/etcd3_client.h: the gRPC client under the etcd3 backend: the member channels, the
// completion thread, and unary calls with failover.
//
// Call() sends one unary request and resumes the awaiting coroutine on its own executor with the
// reply (util/task.h Await: the completion thread only posts). A read (Range, Status, keep-alive) that
// fails because a member is unreachable or has no leader is retried on the next member, once per
// member; a write is retried elsewhere only when it provably never left this process (no connection
// could be made), so no write is ever applied twice. Every reply's header revision is remembered
// (last_revision): the newest revision this client knows to be committed.
//
// The client also learns the servers' etcd version (from Maintenance.Status): etcd before 3.4.31 and
// 3.5.0-3.5.12 answer on-demand watch progress requests with a revision that may run ahead of events
// still queued for the watcher (etcd issues 15220 and 17507), so watches treat those answers with
// care (see etcd3_watch.h).
//
// Thread-safety: everything may be called from any thread. Shutdown() (also run by the destructor)
// cancels every call in flight and waits for them; later calls fail with kUnavailable.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "apimachinery/status.h"
#include "storage/etcd3/completion_thread.h"
#include "storage/etcd3/endpoint_pool.h"
#include "storage/etcd3/etcd3_options.h"
#include "storage/etcd3/grpc_errors.h"
#include "util/task.h"

namespace capstan::storage::etcd3 {

// One unary call in flight; deletes itself when it completes.
template <class Resp>
class UnaryCall : public CqOp {
 public:
  grpc::ClientContext ctx;
  Resp resp;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<Resp>> reader;
  std::function<void(grpc::Status, Resp)> done;
  CallTracker* tracker = nullptr;

  void Proceed(bool) override {
    std::unique_ptr<UnaryCall> self(this);
    tracker->End(&ctx);
    done(std::move(status), std::move(resp));
  }
};

class EtcdClient {
 public:
  enum class Kind { kRead, kWrite };

  static StatusOr<std::shared_ptr<EtcdClient>> Create(EtcdOptions options);
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  void Shutdown();
  bool closed() const { return tracker_.closing(); }

  // Sends `req` through prepare(endpoint, ctx, req, cq) (which returns the stub's PrepareAsync<Method>
  // reader) and awaits the reply, failing over as described above. timeout 0: options().request_timeout.
  template <class Resp, class Req, class Prepare>
  Task<StatusOr<Resp>> Call(const char* what, Prepare prepare, Req req, Kind kind,
                            std::chrono::milliseconds timeout = std::chrono::milliseconds(0));

  const EtcdOptions& options() const { return options_; }
  EndpointPool& pool() { return *pool_; }
  CallTracker& tracker() { return tracker_; }
  grpc::CompletionQueue* cq() { return thread_->cq(); }

  void ObserveRevision(int64_t rev);
  int64_t last_revision() const { return last_revision_.load(); }

  // The etcd version the members reported ("" until known) and whether their on-demand watch
  // progress answers can be trusted.
  std::string server_version() const;
  bool reliable_progress() const { return reliable_progress_.load(); }
  void SetServerVersion(const std::string& version);
  // Asks a member for its version in the background, unless it is known.
  void LearnVersion();

 private:
  explicit EtcdClient(EtcdOptions options) : options_(std::move(options)) {}

  template <class Resp, class Req, class Prepare>
  void Start(Endpoint& ep, Prepare& prepare, const Req& req, std::chrono::milliseconds timeout,
             std::function<void(grpc::Status, Resp)> done);

  EtcdOptions options_;
  std::unique_ptr<EndpointPool> pool_;
  CallTracker tracker_;
  std::unique_ptr<CompletionThread> thread_;
  std::atomic<int64_t> last_revision_{0};
  std::atomic<bool> reliable_progress_{false};
  std::atomic<bool> version_pending_{false};
  mutable std::mutex version_mu_;
  std::string server_version_;  // guarded by version_mu_
  std::once_flag shutdown_once_;
};

// Whether an etcd version answers watch progress requests only after the events before it.
bool ReliableProgressVersion(const std::string& version);

template <class Resp, class Req, class Prepare>
void EtcdClient::Start(Endpoint& ep, Prepare& prepare, const Req& req, std::chrono::milliseconds timeout,
                       std::function<void(grpc::Status, Resp)> done) {
  auto call = std::make_unique<UnaryCall<Resp>>();
  call->ctx.set_deadline(std::chrono::system_clock::now() + timeout);
  call->done = std::move(done);
  call->tracker = &tracker_;
  UnaryCall<Resp>* raw = call.get();
  bool started = tracker_.Begin(&raw->ctx, [&] {
    raw->reader = prepare(ep, &raw->ctx, req, thread_->cq());
    raw->reader->StartCall();
    raw->reader->Finish(&raw->resp, &raw->status, raw);
    call.release();  // owned by the completion queue until Proceed
  });
  if (!started) {
    auto d = std::move(call->done);
    d(grpc::Status(grpc::StatusCode::CANCELLED, "the etcd client is shut down"), Resp());
  }
}

template <class Resp, class Req, class Prepare>
Task<StatusOr<Resp>> EtcdClient::Call(const char* what, Prepare prepare, Req req, Kind kind,
                                      std::chrono::milliseconds timeout) {
  if (timeout.count() <= 0) timeout = options_.request_timeout;
  const size_t attempts = pool_->size() + (kind == Kind::kRead ? 1 : 0);
  for (size_t attempt = 0;; ++attempt) {
    Endpoint* ep = &pool_->Pick();
    using Reply = std::pair<grpc::Status, Resp>;
    Reply reply = co_await Await<Reply>([this, ep, &prepare, &req, timeout](std::function<void(Reply)> cb) {
      Start<Resp>(*ep, prepare, req, timeout, [cb](grpc::Status s, Resp r) { cb(Reply(std::move(s), std::move(r))); });
    });
    if (reply.first.ok()) {
      if constexpr (requires { reply.second.header().revision(); }) ObserveRevision(reply.second.header().revision());
      co_return std::move(reply.second);
    }
    const grpc::Status& st = reply.first;
    if (st.error_code() == grpc::StatusCode::UNAVAILABLE) pool_->MarkFailed(*ep);
    bool retry = attempt + 1 < attempts && !tracker_.closing() &&
                 (kind == Kind::kRead ? st.error_code() == grpc::StatusCode::UNAVAILABLE : NeverSent(st));
    if (!retry) co_return FromGrpc(st, what);
  }
}

}  // namespace capstan::storage::etcd3
