#include "storage/embedded/embedded_backend.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "storage/embedded/errors.h"
#include "storage/embedded/mvcc_store.h"
#include "storage/embedded/store_metrics.h"
#include "storage/embedded/watch_hub.h"
#include "storage/embedded/writer_thread.h"
#include "util/log.h"

namespace capstan::storage::embedded {
namespace {

class StoreHistory : public HistorySource {
 public:
  explicit StoreHistory(const MvccStore& store) : store_(store) {}
  Status ReadEvents(const KeyRange& range, int64_t from, int64_t to, size_t max_events, std::vector<WatchEvent>* out,
                    int64_t* next) const override {
    return store_.ReadEvents(range, from, to, max_events, out, next);
  }
  int64_t compact_revision() const override { return store_.compact_revision(); }
  int64_t current_revision() const override { return store_.revision(); }

 private:
  const MvccStore& store_;
};

using Steady = std::chrono::steady_clock::time_point;

class EmbeddedBackend final : public Backend {
 public:
  explicit EmbeddedBackend(EmbeddedOptions options) : opts_(std::move(options)) {
    if (!opts_.metrics) {
      own_metrics_ = std::make_unique<MetricsRegistry>();
      opts_.metrics = own_metrics_.get();
    }
    metrics_ = std::make_unique<StoreMetrics>(*opts_.metrics);
  }

  const MvccStore& store() const { return *store_; }

  Status Init() {
    MvccOptions mo;
    mo.dir = opts_.dir;
    mo.quota_bytes = opts_.quota_bytes;
    mo.max_request_bytes = opts_.max_request_bytes;
    mo.verify_checksums_on_open = opts_.verify_checksums_on_open;
    mo.clock = opts_.clock;
    ASSIGN_OR_RETURN(store_, MvccStore::Open(mo));
    history_ = std::make_unique<StoreHistory>(*store_);
    WatchHubOptions wo;
    wo.ring_events = opts_.watch_ring_events;
    wo.max_pending_events = opts_.watch_max_pending_events;
    wo.dispatch_threads = opts_.watch_dispatch_threads;
    wo.progress_interval = opts_.watch_progress_interval;
    wo.clock = opts_.clock;
    hub_ = std::make_unique<WatchHub>(*history_, store_->revision(), wo);
    WriterStats stats;
    stats.commit_duration = [this](double s) { metrics_->commit_duration.Observe(s); };
    stats.batch_size = [this](size_t n) { metrics_->batch_size.Observe(static_cast<double>(n)); };
    Steady now = opts_.clock->Monotonic();
    samples_.emplace_back(now, store_->revision());
    last_compaction_ = now;
    writer_ = std::make_unique<WriterThread>(*store_, [this](WriteBatch& b) { OnCommit(b); }, std::move(stats));
    metrics_->quota_bytes.Set(static_cast<double>(opts_.quota_bytes));
    RefreshMetrics(true);
    ticker_ = std::thread([this] { Ticker(); });
    LogInfo("embedded store opened", {{"dir", opts_.dir},
                                      {"revision", store_->revision()},
                                      {"compact_revision", store_->compact_revision()},
                                      {"keys", static_cast<uint64_t>(store_->key_count())}});
    return Status::Ok();
  }

  ~EmbeddedBackend() override {
    {
      std::lock_guard lock(tick_mu_);
      stopping_ = true;
    }
    tick_cv_.notify_all();
    if (ticker_.joinable()) ticker_.join();
    if (writer_) writer_->Stop();
    if (hub_) hub_->Shutdown();
  }

  Task<StatusOr<RangeResponse>> Range(RangeRequest req) override {
    metrics_->ranges.Inc();
    co_return store_->Range(req);
  }

  Task<StatusOr<TxnResponse>> Txn(TxnRequest req) override {
    metrics_->txns.Inc();
    auto shared = std::make_shared<TxnRequest>(std::move(req));
    co_return co_await Submit<TxnResponse>([this, shared](WriteBatch& b) { return store_->ApplyTxn(b, *shared); });
  }

  std::unique_ptr<WatchHandle> Watch(WatchRequest req, WatchCallback cb) override {
    return hub_->Watch(std::move(req), std::move(cb));
  }

  Task<Status> Compact(int64_t revision) override {
    auto r = co_await Submit<bool>([this, revision](WriteBatch& b) -> StatusOr<bool> {
      RETURN_IF_ERROR(store_->ApplyCompact(b, revision));
      return true;
    });
    co_return r.TakeStatus();
  }

  Task<StatusOr<LeaseGrantResponse>> LeaseGrant(int64_t ttl_seconds) override {
    auto r = co_await Submit<LeaseGrantResponse>(
        [this, ttl_seconds](WriteBatch& b) { return store_->ApplyLeaseGrant(b, ttl_seconds); });
    if (r.ok()) metrics_->leases_granted.Inc();
    co_return r;
  }

  Task<Status> LeaseRevoke(int64_t id) override {
    auto r = co_await Submit<bool>([this, id](WriteBatch& b) -> StatusOr<bool> {
      RETURN_IF_ERROR(store_->ApplyLeaseRevoke(b, id, false));
      return true;
    });
    if (r.ok()) metrics_->leases_revoked.Inc();
    co_return r.TakeStatus();
  }

  Task<StatusOr<int64_t>> LeaseKeepAlive(int64_t id) override { co_return store_->leases().KeepAlive(id); }

  Task<StatusOr<BackendStatus>> GetStatus() override { co_return store_->GetStatus(); }

  Task<Status> Check() override {
    Status failed = writer_->failure();
    if (!failed.ok()) {
      co_return Status::Storage(StorageCode::kUnavailable, "embedded store: writes failed: " + failed.message());
    }
    co_return store_->Check();
  }

 private:
  template <class T>
  Task<StatusOr<T>> Submit(std::function<StatusOr<T>(WriteBatch&)> apply) {
    co_return co_await Await<StatusOr<T>>([this, apply = std::move(apply)](std::function<void(StatusOr<T>)> done) {
      auto result = std::make_shared<std::optional<StatusOr<T>>>();
      WriteOp op;
      op.apply = [apply, result](WriteBatch& b) { result->emplace(apply(b)); };
      op.finish = [result, done](const Status& s) {
        if (!s.ok() || !result->has_value()) {
          done(s.ok() ? StoreClosed() : s);
        } else {
          done(std::move(**result));
        }
      };
      writer_->Submit(std::move(op));
    });
  }

  // Writer thread, after each batch: watchers, metrics and the compaction schedule.
  void OnCommit(WriteBatch& b) {
    if (!b.events.empty()) hub_->Publish(b.events, b.rev);
    metrics_->puts.Inc(static_cast<double>(b.puts));
    metrics_->deletes.Inc(static_cast<double>(b.deletes));
    if (b.wrote) {
      Steady now = opts_.clock->Monotonic();
      std::lock_guard lock(samples_mu_);
      // The revision before this batch was current until now.
      if (now - samples_.back().first >= std::chrono::seconds(1)) samples_.emplace_back(now, b.rev - 1);
      metrics_->current_revision.Set(static_cast<double>(b.rev));
      metrics_->db_total_size.Set(static_cast<double>(store_->FileBytes()));
    }
  }

  void RefreshMetrics(bool full) {
    metrics_->current_revision.Set(static_cast<double>(store_->revision()));
    metrics_->compact_revision.Set(static_cast<double>(store_->compact_revision()));
    metrics_->keys_total.Set(static_cast<double>(store_->key_count()));
    metrics_->watchers.Set(static_cast<double>(hub_->watcher_count()));
    // A counter kept equal to the hub's count (RefreshMetrics runs on one thread at a time).
    double ended = static_cast<double>(hub_->slow_watchers_ended());
    if (ended > metrics_->slow_watchers_ended.Value()) metrics_->slow_watchers_ended.Inc(ended - metrics_->slow_watchers_ended.Value());
    if (full) {
      if (auto st = store_->GetStatus(); st.ok()) {
        metrics_->db_total_size.Set(static_cast<double>(st->db_size));
        metrics_->db_in_use_size.Set(static_cast<double>(st->db_size_in_use));
      }
    }
  }

  void SubmitDetached(std::function<Status(WriteBatch&)> apply, std::string what) {
    auto result = std::make_shared<Status>();
    WriteOp op;
    op.apply = [apply = std::move(apply), result](WriteBatch& b) { *result = apply(b); };
    op.finish = [result, what = std::move(what)](const Status& s) {
      Status r = s.ok() ? *result : s;
      if (!r.ok() && !r.IsStorage(StorageCode::kCompacted) && !r.IsStorage(StorageCode::kUnavailable)) {
        LogWarn("embedded store background write failed", {{"what", what}, {"error", r.message()}});
      }
    };
    writer_->Submit(std::move(op));
  }

  void MaybeCompact(Steady now) {
    if (opts_.compaction_interval.count() <= 0 || now - last_compaction_ < opts_.compaction_interval) return;
    last_compaction_ = now;
    int64_t target = 0;
    {
      std::lock_guard lock(samples_mu_);
      int64_t rev = store_->revision();
      if (samples_.back().second != rev) samples_.emplace_back(now, rev);
      Steady cutoff = now - opts_.compaction_retention;
      // The newest sample at or before the cutoff: everything below its revision is old enough.
      while (samples_.size() > 1 && samples_[1].first <= cutoff) samples_.pop_front();
      if (samples_.front().first <= cutoff) target = samples_.front().second;
    }
    if (target > store_->compact_revision()) {
      LogInfo("embedded store compacting", {{"revision", target}});
      SubmitDetached([this, target](WriteBatch& b) { return store_->ApplyCompact(b, target); }, "compaction");
    }
  }

  void Ticker() {
    Steady last_metrics = opts_.clock->Monotonic();
    std::unique_lock lock(tick_mu_);
    while (!stopping_) {
      tick_cv_.wait_for(lock, opts_.tick);
      if (stopping_) break;
      lock.unlock();
      Steady now = opts_.clock->Monotonic();
      for (int64_t id : store_->leases().TakeExpired()) {
        metrics_->leases_revoked.Inc();
        SubmitDetached([this, id](WriteBatch& b) { return store_->ApplyLeaseRevoke(b, id, true); }, "lease expiry");
      }
      MaybeCompact(now);
      hub_->Tick();
      bool full = now - last_metrics >= std::chrono::seconds(1);
      if (full) last_metrics = now;
      RefreshMetrics(full);
      lock.lock();
    }
  }

  EmbeddedOptions opts_;
  std::unique_ptr<MetricsRegistry> own_metrics_;
  std::unique_ptr<StoreMetrics> metrics_;
  std::unique_ptr<MvccStore> store_;
  std::unique_ptr<StoreHistory> history_;
  std::unique_ptr<WatchHub> hub_;
  std::unique_ptr<WriterThread> writer_;

  std::mutex samples_mu_;
  std::deque<std::pair<Steady, int64_t>> samples_;  // guarded by samples_mu_: (time, revision current then)
  Steady last_compaction_;                           // ticker thread

  std::mutex tick_mu_;
  std::condition_variable tick_cv_;
  bool stopping_ = false;  // guarded by tick_mu_
  std::thread ticker_;
};

}  // namespace

StatusOr<SnapshotStatus> SaveBackendSnapshot(Backend& backend, const std::string& file) {
  auto* embedded = dynamic_cast<EmbeddedBackend*>(&backend);
  if (!embedded) return Status(400, "BadRequest", "snapshots are taken of the embedded store only");
  return SaveSnapshotWith([embedded](int fd) { return embedded->store().CopyTo(fd); }, file);
}

StatusOr<std::unique_ptr<Backend>> OpenEmbeddedBackend(EmbeddedOptions options) {
  if (options.dir.empty()) return Status::Storage(StorageCode::kInvalidArgument, "embedded store: no data dir given");
  if (options.quota_bytes <= 0) return Status::Storage(StorageCode::kInvalidArgument, "embedded store: quota must be positive");
  auto backend = std::make_unique<EmbeddedBackend>(std::move(options));
  RETURN_IF_ERROR(backend->Init());
  return std::unique_ptr<Backend>(std::move(backend));
}

}  // namespace capstan::storage::embedded
