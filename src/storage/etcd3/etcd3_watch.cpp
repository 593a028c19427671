#include "storage/etcd3/etcd3_watch.h"

#include <deque>
#include <mutex>
#include <optional>

#include "storage/etcd3/proto_convert.h"
#include "util/log.h"
#include "util/timer.h"

namespace capstan::storage::etcd3 {
namespace {

using PbWatchRequest = etcdserverpb::WatchRequest;
using PbWatchResponse = etcdserverpb::WatchResponse;

class WatchState;

// One attempt: one gRPC Watch call. Holds itself alive (self_) from Begin until its Finish completes.
class Stream : public std::enable_shared_from_this<Stream> {
 public:
  Stream(std::shared_ptr<WatchState> owner, std::shared_ptr<EtcdClient> client, PbWatchRequest create)
      : owner_(std::move(owner)), client_(std::move(client)) {
    start_.Init(this, Tag::kStart);
    read_.Init(this, Tag::kRead);
    write_.Init(this, Tag::kWrite);
    finish_.Init(this, Tag::kFinish);
    queue_.push_back(std::move(create));
  }

  // Starts the call; false if the client is shut down (nothing started).
  bool Begin() {
    Endpoint& ep = client_->pool().Pick();
    endpoint_ = &ep;
    ctx_.AddMetadata("hasleader", "true");
    self_ = shared_from_this();
    bool ok = client_->tracker().Begin(&ctx_, [&] {
      rw_ = ep.watch->PrepareAsyncWatch(&ctx_, client_->cq());
      rw_->StartCall(&start_);
    });
    if (!ok) self_.reset();
    return ok;
  }

  void Cancel() { ctx_.TryCancel(); }

  void SendProgressRequest() {
    PbWatchRequest r;
    r.mutable_progress_request();
    std::lock_guard lock(mu_);
    if (finishing_) return;
    queue_.push_back(std::move(r));
    if (started_) WriteNextLocked();
  }

  // Stops reading after the current response (the watch has ended); the call is cancelled.
  void StopReading() {
    std::lock_guard lock(mu_);
    stop_reading_ = true;
    ctx_.TryCancel();
  }

  const Endpoint* endpoint() const { return endpoint_; }

 private:
  struct Tag : CqOp {
    enum Kind { kStart, kRead, kWrite, kFinish };
    Stream* stream = nullptr;
    Kind kind = kStart;
    void Init(Stream* s, Kind k) {
      stream = s;
      kind = k;
    }
    void Proceed(bool ok) override { stream->OnEvent(kind, ok); }
  };

  void OnEvent(Tag::Kind kind, bool ok);
  void WriteNextLocked() {
    if (writing_ || queue_.empty() || finishing_) return;
    writing_ = true;
    out_ = std::move(queue_.front());
    queue_.pop_front();
    rw_->Write(out_, &write_);
  }
  void ReadNext() { rw_->Read(&in_, &read_); }
  // Finishes the call once nothing is outstanding.
  void MaybeFinishLocked() {
    if (finishing_ || reading_ || writing_) return;
    finishing_ = true;
    rw_->Finish(&final_, &finish_);
  }

  std::shared_ptr<WatchState> owner_;
  std::shared_ptr<EtcdClient> client_;
  std::shared_ptr<Stream> self_;
  const Endpoint* endpoint_ = nullptr;
  grpc::ClientContext ctx_;
  std::unique_ptr<grpc::ClientAsyncReaderWriter<PbWatchRequest, PbWatchResponse>> rw_;
  Tag start_, read_, write_, finish_;
  PbWatchResponse in_;
  PbWatchRequest out_;
  grpc::Status final_;

  std::mutex mu_;
  std::deque<PbWatchRequest> queue_;  // guarded by mu_
  bool started_ = false;              // guarded by mu_
  bool reading_ = false;              // guarded by mu_
  bool writing_ = false;              // guarded by mu_
  bool finishing_ = false;            // guarded by mu_
  bool stop_reading_ = false;         // guarded by mu_
};

// Everything one watch keeps across its streams.
class WatchState : public std::enable_shared_from_this<WatchState> {
 public:
  WatchState(std::shared_ptr<EtcdClient> client, WatchRequest req, WatchCallback cb)
      : client_(std::move(client)), req_(std::move(req)), cb_(std::move(cb)) {
    backoff_ = client_->options().watch_retry_min;
    if (req_.start_revision > 0) {
      next_rev_ = req_.start_revision;
    } else {
      int64_t seen = client_->last_revision();
      pinned_now_ = true;
      next_rev_ = seen > 0 ? seen + 1 : 0;
    }
    proven_rev_ = next_rev_ > 0 ? next_rev_ - 1 : 0;
  }

  void Launch() {
    client_->LearnVersion();
    std::shared_ptr<Stream> s;
    {
      std::lock_guard lock(mu_);
      if (stopped_ || ended_) return;
      PbWatchRequest create;
      auto* c = create.mutable_create_request();
      c->set_key(req_.key);
      c->set_range_end(req_.range_end);
      c->set_start_revision(next_rev_);
      c->set_prev_kv(req_.prev_kv);
      c->set_progress_notify(req_.progress_notify);
      s = std::make_shared<Stream>(shared_from_this(), client_, std::move(create));
      created_ = false;
      current_ = s;
      // Begun under mu_ so that Stop() either sees the running call (and cancels it) or stops it first.
      if (s->Begin()) return;
      current_.reset();
    }
    OnStreamDone(grpc::Status(grpc::StatusCode::CANCELLED, "the etcd client is shut down"));
  }

  void Stop() {
    {
      std::lock_guard lock(cb_mu_);
      cb_stopped_ = true;
    }
    std::shared_ptr<Stream> s;
    std::shared_ptr<TimerHandle> timer;
    {
      std::lock_guard lock(mu_);
      stopped_ = true;
      s = current_;
      timer = std::move(retry_timer_);
    }
    if (timer) timer->Cancel();
    if (s) s->Cancel();
  }

  void RequestProgress() {
    std::shared_ptr<Stream> s;
    {
      std::lock_guard lock(mu_);
      if (stopped_ || ended_) return;
      if (!current_ || !created_) {
        want_progress_ = true;
        return;
      }
      s = current_;
    }
    s->SendProgressRequest();
  }

  // Completion thread: one response of the current stream. Returns false when the watch has ended.
  bool OnResponse(Stream& s, const PbWatchResponse& r) {
    const int64_t header = r.header().revision();
    std::optional<WatchResponse> out;
    bool send_progress = false;
    bool more = true;
    {
      std::lock_guard lock(mu_);
      if (stopped_ || ended_) return false;
      if (r.created()) {
        if (r.canceled()) {
          out = EndLocked(Status::Storage(StorageCode::kInternal, "etcd refused the watch: " + r.cancel_reason()));
          more = false;
        } else {
          if (next_rev_ == 0) {
            next_rev_ = header + 1;
            proven_rev_ = header;
          }
          created_ = true;
          backoff_ = client_->options().watch_retry_min;
          send_progress = std::exchange(want_progress_, false);
        }
      } else if (r.canceled()) {
        if (r.compact_revision() != 0 && pinned_now_ && !delivered_) {
          // "From now" was pinned to a revision compacted since: start again from etcd's now.
          next_rev_ = 0;
          s.StopReading();
        } else if (r.compact_revision() != 0) {
          out = EndLocked(Status::Storage(StorageCode::kCompacted, "etcd watch: required revision has been compacted",
                                          r.compact_revision()));
          more = false;
        } else {
          out = EndLocked(Status::Storage(StorageCode::kInternal, "etcd cancelled the watch: " + r.cancel_reason()));
          more = false;
        }
      } else if (r.events_size() == 0) {
        // watch_id -1: the answer to a progress request; otherwise a periodic notification, which
        // etcd sends through the watcher's ordered event channel.
        int64_t rev = header;
        if (r.watch_id() == -1 && !client_->reliable_progress()) rev = proven_rev_;
        proven_rev_ = std::max(proven_rev_, rev);
        next_rev_ = std::max(next_rev_, proven_rev_ + 1);
        out.emplace();
        out->progress_notify = true;
        out->header_revision = rev;
      } else {
        out.emplace();
        out->events.reserve(r.events_size());
        for (const auto& ev : r.events()) out->events.push_back(FromProto(ev));
        int64_t last = out->events.back().kv.mod_revision;
        proven_rev_ = std::max(proven_rev_, last);
        next_rev_ = last + 1;
        delivered_ = true;
        out->header_revision = std::max(header, last);
      }
    }
    if (send_progress) s.SendProgressRequest();
    if (out) Deliver(std::move(*out));
    return more;
  }

  // Completion thread (or the launching thread): the current stream is over.
  void OnStreamDone(const grpc::Status& st) {
    std::optional<WatchResponse> out;
    std::chrono::milliseconds delay{0};
    int64_t from = 0;
    {
      std::lock_guard lock(mu_);
      current_.reset();
      if (stopped_ || ended_) return;
      if (client_->closed()) {
        out = EndLocked(Status::Storage(StorageCode::kUnavailable, "etcd watch ended: the etcd client is shut down"));
      } else if (st.error_code() == grpc::StatusCode::PERMISSION_DENIED ||
                 st.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
                 st.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
        out = EndLocked(FromGrpc(st, "watch"));
      } else {
        delay = backoff_;
        backoff_ = std::min(backoff_ * 2, client_->options().watch_retry_max);
        from = next_rev_;
        std::weak_ptr<WatchState> weak = weak_from_this();
        retry_timer_ = RunAfter(delay, [weak] {
          if (auto w = weak.lock()) w->Launch();
        });
      }
    }
    if (out) {
      Deliver(std::move(*out));
      return;
    }
    LogWarn("etcd watch stream ended; resuming", {{"key", req_.key},
                                                   {"from_revision", from},
                                                   {"error", st.error_message()},
                                                   {"retry_ms", static_cast<int64_t>(delay.count())}});
  }

 private:
  // Ends the watch: the returned response (carrying `error`) is delivered by the caller, after mu_.
  WatchResponse EndLocked(Status error) {
    ended_ = true;
    if (current_) current_->StopReading();
    WatchResponse out;
    out.error = std::move(error);
    out.header_revision = proven_rev_;
    return out;
  }

  void Deliver(WatchResponse resp) {
    std::lock_guard lock(cb_mu_);
    if (cb_stopped_) return;
    cb_(std::move(resp));
  }

  std::shared_ptr<EtcdClient> client_;
  const WatchRequest req_;

  std::mutex cb_mu_;  // held while the callback runs; Stop() waits for it
  WatchCallback cb_;
  bool cb_stopped_ = false;  // guarded by cb_mu_

  std::mutex mu_;
  int64_t next_rev_ = 0;      // guarded by mu_: start revision of the next stream (0: etcd's now)
  int64_t proven_rev_ = 0;    // guarded by mu_: every change up to here has been delivered
  bool pinned_now_ = false;   // guarded by mu_
  bool delivered_ = false;    // guarded by mu_
  bool created_ = false;      // guarded by mu_
  bool want_progress_ = false;  // guarded by mu_
  bool stopped_ = false;      // guarded by mu_
  bool ended_ = false;        // guarded by mu_
  std::chrono::milliseconds backoff_{100};  // guarded by mu_
  std::shared_ptr<Stream> current_;          // guarded by mu_
  std::shared_ptr<TimerHandle> retry_timer_;  // guarded by mu_
};

void Stream::OnEvent(Tag::Kind kind, bool ok) {
  switch (kind) {
    case Tag::kStart: {
      std::lock_guard lock(mu_);
      if (!ok) {
        MaybeFinishLocked();
        return;
      }
      started_ = true;
      reading_ = true;
      WriteNextLocked();
      ReadNext();
      return;
    }
    case Tag::kRead: {
      bool more = ok && owner_->OnResponse(*this, in_);
      std::lock_guard lock(mu_);
      if (more && !stop_reading_) {
        ReadNext();
        return;
      }
      if (ok) ctx_.TryCancel();  // we stop reading a live stream: end the call
      reading_ = false;
      MaybeFinishLocked();
      return;
    }
    case Tag::kWrite: {
      std::lock_guard lock(mu_);
      writing_ = false;
      if (!ok) {
        queue_.clear();
        MaybeFinishLocked();
        return;
      }
      WriteNextLocked();
      if (!reading_) MaybeFinishLocked();
      return;
    }
    case Tag::kFinish: {
      client_->tracker().End(&ctx_);
      if (final_.error_code() == grpc::StatusCode::UNAVAILABLE && endpoint_) client_->pool().MarkFailed(*endpoint_);
      owner_->OnStreamDone(final_);
      auto self = std::move(self_);  // may destroy this Stream when it returns
      return;
    }
  }
}

class EtcdWatchHandle : public WatchHandle {
 public:
  explicit EtcdWatchHandle(std::shared_ptr<WatchState> state) : state_(std::move(state)) {}
  ~EtcdWatchHandle() override { state_->Stop(); }
  void RequestProgress() override { state_->RequestProgress(); }

 private:
  std::shared_ptr<WatchState> state_;
};

}  // namespace

std::unique_ptr<WatchHandle> StartWatch(std::shared_ptr<EtcdClient> client, WatchRequest req, WatchCallback cb) {
  auto state = std::make_shared<WatchState>(std::move(client), std::move(req), std::move(cb));
  state->Launch();
  return std::make_unique<EtcdWatchHandle>(std::move(state));
}

}  // namespace capstan::storage::etcd3
