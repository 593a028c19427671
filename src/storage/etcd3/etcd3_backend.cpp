#include "storage/etcd3/etcd3_backend.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "storage/etcd3/etcd3_client.h"
#include "storage/etcd3/etcd3_watch.h"
#include "storage/etcd3/proto_convert.h"

namespace capstan::storage::etcd3 {
namespace {

namespace pb = etcdserverpb;
using Kind = EtcdClient::Kind;

auto PrepareRange = [](Endpoint& ep, grpc::ClientContext* ctx, const pb::RangeRequest& r, grpc::CompletionQueue* cq) {
  return ep.kv->PrepareAsyncRange(ctx, r, cq);
};
auto PrepareTxn = [](Endpoint& ep, grpc::ClientContext* ctx, const pb::TxnRequest& r, grpc::CompletionQueue* cq) {
  return ep.kv->PrepareAsyncTxn(ctx, r, cq);
};
auto PrepareCompact = [](Endpoint& ep, grpc::ClientContext* ctx, const pb::CompactionRequest& r,
                         grpc::CompletionQueue* cq) { return ep.kv->PrepareAsyncCompact(ctx, r, cq); };
auto PrepareGrant = [](Endpoint& ep, grpc::ClientContext* ctx, const pb::LeaseGrantRequest& r,
                       grpc::CompletionQueue* cq) { return ep.lease->PrepareAsyncLeaseGrant(ctx, r, cq); };
auto PrepareRevoke = [](Endpoint& ep, grpc::ClientContext* ctx, const pb::LeaseRevokeRequest& r,
                        grpc::CompletionQueue* cq) { return ep.lease->PrepareAsyncLeaseRevoke(ctx, r, cq); };
auto PrepareStatus = [](Endpoint& ep, grpc::ClientContext* ctx, const pb::StatusRequest& r, grpc::CompletionQueue* cq) {
  return ep.maintenance->PrepareAsyncStatus(ctx, r, cq);
};

// One keep-alive on a LeaseKeepAlive stream: write the request, read the answer, close.
class KeepAliveCall : public CqOp {
 public:
  using Done = std::function<void(grpc::Status, pb::LeaseKeepAliveResponse)>;

  static void Start(EtcdClient& client, int64_t id, Done done) {
    auto call = std::unique_ptr<KeepAliveCall>(new KeepAliveCall(client, std::move(done)));
    call->req_.set_id(id);
    call->ctx_.set_deadline(std::chrono::system_clock::now() + client.options().request_timeout);
    KeepAliveCall* raw = call.get();
    Endpoint& ep = client.pool().Pick();
    raw->endpoint_ = &ep;
    bool started = client.tracker().Begin(&raw->ctx_, [&] {
      raw->rw_ = ep.lease->PrepareAsyncLeaseKeepAlive(&raw->ctx_, client.cq());
      raw->rw_->StartCall(raw);
      call.release();
    });
    if (!started) {
      auto d = std::move(call->done_);
      d(grpc::Status(grpc::StatusCode::CANCELLED, "the etcd client is shut down"), {});
    }
  }

  void Proceed(bool ok) override {
    switch (step_) {
      case kStart:
        if (!ok) return Finish();
        step_ = kWrite;
        rw_->Write(req_, this);
        return;
      case kWrite:
        if (!ok) return Finish();
        step_ = kRead;
        rw_->Read(&resp_, this);
        return;
      case kRead:
        got_ = ok;
        if (!ok) return Finish();
        step_ = kWritesDone;
        rw_->WritesDone(this);
        return;
      case kWritesDone:
        return Finish();
      case kFinish: {
        std::unique_ptr<KeepAliveCall> self(this);
        client_.tracker().End(&ctx_);
        if (status_.error_code() == grpc::StatusCode::UNAVAILABLE) client_.pool().MarkFailed(*endpoint_);
        done_(got_ ? grpc::Status::OK : status_, std::move(resp_));
        return;
      }
    }
  }

 private:
  KeepAliveCall(EtcdClient& client, Done done) : client_(client), done_(std::move(done)) {}
  void Finish() {
    step_ = kFinish;
    rw_->Finish(&status_, this);
  }

  enum Step { kStart, kWrite, kRead, kWritesDone, kFinish };
  EtcdClient& client_;
  Done done_;
  const Endpoint* endpoint_ = nullptr;
  grpc::ClientContext ctx_;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<pb::LeaseKeepAliveRequest, pb::LeaseKeepAliveResponse>> rw_;
  pb::LeaseKeepAliveRequest req_;
  pb::LeaseKeepAliveResponse resp_;
  grpc::Status status_;
  Step step_ = kStart;
  bool got_ = false;
};

class Etcd3BackendImpl final : public Etcd3Backend {
 public:
  explicit Etcd3BackendImpl(std::shared_ptr<EtcdClient> client) : client_(std::move(client)) {}
  ~Etcd3BackendImpl() override { client_->Shutdown(); }

  Task<StatusOr<RangeResponse>> Range(RangeRequest req) override {
    const int64_t at = req.revision;
    auto r = co_await client_->Call<pb::RangeResponse>("range", PrepareRange, ToProto(req), Kind::kRead);
    if (!r.ok()) co_return co_await WithCompactRevision(r.TakeStatus(), at);
    co_return FromProto(*r, r->header().revision());
  }

  Task<StatusOr<TxnResponse>> Txn(TxnRequest req) override {
    bool writes = false;
    int64_t lowest_read = 0;
    for (const auto* ops : {&req.success, &req.failure}) {
      for (const auto& op : *ops) {
        if (op.type != RequestOp::Type::kRange) writes = true;
        if (op.type == RequestOp::Type::kRange && op.range.revision > 0) {
          lowest_read = lowest_read == 0 ? op.range.revision : std::min(lowest_read, op.range.revision);
        }
      }
    }
    auto r = co_await client_->Call<pb::TxnResponse>("txn", PrepareTxn, ToProto(req), writes ? Kind::kWrite : Kind::kRead);
    if (!r.ok()) co_return co_await WithCompactRevision(r.TakeStatus(), lowest_read);
    co_return FromProto(*r);
  }

  std::unique_ptr<WatchHandle> Watch(WatchRequest req, WatchCallback cb) override {
    return StartWatch(client_, std::move(req), std::move(cb));
  }

  Task<Status> Compact(int64_t revision) override {
    pb::CompactionRequest req;
    req.set_revision(revision);
    auto r = co_await client_->Call<pb::CompactionResponse>("compact", PrepareCompact, req, Kind::kWrite);
    if (!r.ok()) {
      Status st = r.TakeStatus();
      if (st.IsStorage(StorageCode::kCompacted)) co_return co_await WithCompactRevision(std::move(st), revision - 1);
      co_return st;
    }
    RaiseKnownCompact(revision);
    co_return Status();
  }

  Task<StatusOr<LeaseGrantResponse>> LeaseGrant(int64_t ttl_seconds) override {
    pb::LeaseGrantRequest req;
    req.set_ttl(ttl_seconds);
    auto r = co_await client_->Call<pb::LeaseGrantResponse>("lease grant", PrepareGrant, req, Kind::kWrite);
    if (!r.ok()) co_return r.TakeStatus();
    if (!r->error().empty()) co_return Status::Storage(StorageCode::kInternal, "etcd lease grant: " + r->error());
    co_return LeaseGrantResponse{r->id(), r->ttl()};
  }

  Task<Status> LeaseRevoke(int64_t id) override {
    pb::LeaseRevokeRequest req;
    req.set_id(id);
    auto r = co_await client_->Call<pb::LeaseRevokeResponse>("lease revoke", PrepareRevoke, req, Kind::kWrite);
    co_return r.TakeStatus();
  }

  Task<StatusOr<int64_t>> LeaseKeepAlive(int64_t id) override {
    using Reply = std::pair<grpc::Status, pb::LeaseKeepAliveResponse>;
    Reply reply;
    for (size_t attempt = 0; attempt <= client_->pool().size(); ++attempt) {
      reply = co_await Await<Reply>([this, id](std::function<void(Reply)> cb) {
        KeepAliveCall::Start(*client_, id, [cb](grpc::Status s, pb::LeaseKeepAliveResponse r) {
          cb(Reply(std::move(s), std::move(r)));
        });
      });
      // A keep-alive is idempotent: another member may answer it.
      if (reply.first.error_code() != grpc::StatusCode::UNAVAILABLE || client_->closed()) break;
    }
    if (!reply.first.ok()) co_return FromGrpc(reply.first, "lease keep-alive");
    client_->ObserveRevision(reply.second.header().revision());
    if (reply.second.ttl() <= 0) {
      co_return Status::Storage(StorageCode::kKeyNotFound, "etcdserver: requested lease not found");
    }
    co_return reply.second.ttl();
  }

  Task<StatusOr<BackendStatus>> GetStatus() override {
    auto st = co_await client_->Call<pb::StatusResponse>("status", PrepareStatus, pb::StatusRequest(), Kind::kRead);
    if (!st.ok()) co_return st.TakeStatus();
    client_->SetServerVersion(st->version());
    BackendStatus out;
    out.db_size = st->dbsize();
    out.db_size_in_use = st->dbsizeinuse();
    out.version = "etcd " + st->version();
    // The revision from a linearizable read (Status is answered from the member's own state), which
    // also confirms the compact revision.
    auto probe = co_await ProbeAt(std::max<int64_t>(known_compact_.load(), 1));
    if (probe.ok()) {
      out.revision = *probe;
      out.compact_revision = known_compact_.load();
      co_return out;
    }
    if (!probe.status().IsStorage(StorageCode::kCompacted)) co_return probe.TakeStatus();
    auto found = co_await FindCompactRevision(std::max<int64_t>(known_compact_.load(), 1) + 1);
    if (!found.ok()) co_return found.TakeStatus();
    out.compact_revision = *found;
    out.revision = std::max(client_->last_revision(), *found);
    co_return out;
  }

  Task<Status> Check() override {
    pb::RangeRequest req;
    req.set_key(client_->options().health_key);
    auto r = co_await client_->Call<pb::RangeResponse>("health check", PrepareRange, req, Kind::kRead);
    co_return r.TakeStatus();
  }

  Task<Status> Probe(std::chrono::milliseconds timeout) override {
    pb::RangeRequest req;
    req.set_key(client_->options().health_key);
    auto r = co_await client_->Call<pb::RangeResponse>("health check", PrepareRange, req, Kind::kRead, timeout);
    co_return r.TakeStatus();
  }

  Status WaitForConnected(std::chrono::milliseconds timeout) override {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    Status last = Status::Storage(StorageCode::kUnavailable, "etcd: no member answered in time");
    while (std::chrono::steady_clock::now() < deadline) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (!client_->pool().WaitForConnected(std::chrono::system_clock::now() + left)) break;
      last = SyncWait(Check());
      if (last.ok()) {
        client_->LearnVersion();
        return last;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return last;
  }

  std::string ServerVersion() const override { return client_->server_version(); }

 private:
  // A linearizable count-only read at `revision`: the current revision, or kCompacted when `revision`
  // is below the compact revision.
  Task<StatusOr<int64_t>> ProbeAt(int64_t revision) {
    pb::RangeRequest req;
    req.set_key(client_->options().health_key);
    req.set_revision(revision);
    req.set_count_only(true);
    auto r = co_await client_->Call<pb::RangeResponse>("range", PrepareRange, req, Kind::kRead);
    if (!r.ok()) co_return r.TakeStatus();
    co_return r->header().revision();
  }

  // The compact revision, known to be at least `lo`: the least revision a read succeeds at.
  Task<StatusOr<int64_t>> FindCompactRevision(int64_t lo) {
    lo = std::max<int64_t>(lo, known_compact_.load());
    auto cur = co_await ProbeAt(0);
    if (!cur.ok()) co_return cur.TakeStatus();
    int64_t hi = std::max(*cur, lo);
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      auto p = co_await ProbeAt(mid);
      if (p.ok()) {
        hi = mid;
      } else if (p.status().IsStorage(StorageCode::kCompacted)) {
        lo = mid + 1;
      } else {
        co_return p.TakeStatus();
      }
    }
    RaiseKnownCompact(lo);
    co_return lo;
  }

  // Adds the compact revision to a kCompacted error from a read at `revision` (so it is above it).
  Task<Status> WithCompactRevision(Status st, int64_t revision) {
    if (!st.IsStorage(StorageCode::kCompacted)) co_return st;
    auto found = co_await FindCompactRevision(revision + 1);
    co_return Status::Storage(StorageCode::kCompacted, st.message(), found.ok() ? *found : known_compact_.load());
  }

  void RaiseKnownCompact(int64_t rev) {
    int64_t cur = known_compact_.load();
    while (rev > cur && !known_compact_.compare_exchange_weak(cur, rev)) {
    }
  }

  std::shared_ptr<EtcdClient> client_;
  std::atomic<int64_t> known_compact_{0};
};

}  // namespace

StatusOr<std::unique_ptr<Etcd3Backend>> OpenEtcd3Backend(EtcdOptions options) {
  auto client = EtcdClient::Create(std::move(options));
  if (!client.ok()) return client.TakeStatus();
  return std::unique_ptr<Etcd3Backend>(std::make_unique<Etcd3BackendImpl>(std::move(*client)));
}

}  // namespace capstan::storage::etcd3
