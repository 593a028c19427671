#include "storage/etcd3/compactor.h"

#include "util/log.h"

namespace capstan::storage::etcd3 {

Compactor::~Compactor() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Compactor::Start(std::chrono::milliseconds interval) {
  if (interval.count() <= 0 || thread_.joinable()) return;
  thread_ = std::thread([this, interval] { Loop(interval); });
}

void Compactor::Loop(std::chrono::milliseconds interval) {
  for (;;) {
    {
      std::unique_lock lock(mu_);
      if (cv_.wait_for(lock, interval, [&] { return stopping_; })) return;
    }
    auto round = SyncWait(RunOnce());
    if (!round.ok()) {
      LogWarn("etcd compaction round failed", {{"error", round.status().message()}});
    } else if (round->compacted_to > 0) {
      LogInfo("etcd compacted", {{"revision", round->compacted_to}});
    }
  }
}

Task<StatusOr<CompactRound>> Compactor::RunOnce() {
  TxnRequest txn;
  Compare c;
  c.key = kCompactRevKey;
  c.target = Compare::Target::kVersion;
  c.result = Compare::Result::kEqual;
  c.number = logical_time_;
  txn.compare.push_back(c);
  txn.success.push_back(RequestOp::Put(kCompactRevKey, std::to_string(last_revision_)));
  txn.failure.push_back(RequestOp::Get(kCompactRevKey));
  auto resp = co_await backend_.Txn(std::move(txn));
  if (!resp.ok()) co_return resp.TakeStatus();
  CompactRound round;
  round.revision = resp->revision;
  if (!resp->succeeded) {
    // Another replica won this interval: learn the key's version and wait for the next one.
    const auto& kvs = resp->responses.empty() ? std::vector<KeyValue>() : resp->responses[0].range.kvs;
    logical_time_ = kvs.empty() ? 0 : kvs[0].version;
    last_revision_ = resp->revision;
    round.logical_time = logical_time_;
    co_return round;
  }
  round.won = true;
  int64_t target = last_revision_;
  logical_time_ += 1;
  last_revision_ = resp->revision;
  round.logical_time = logical_time_;
  if (target == 0) co_return round;  // the first round only starts the clock
  Status st = co_await backend_.Compact(target);
  if (!st.ok() && !st.IsStorage(StorageCode::kCompacted)) co_return st;
  if (st.ok()) round.compacted_to = target;
  co_return round;
}

}  // namespace capstan::storage::etcd3
