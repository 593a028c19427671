#include "storage/backend_copy.h"

#include <map>

#include "util/task.h"

namespace capstan::storage {

namespace {

constexpr int64_t kPageSize = 500;
// etcd's default --max-txn-ops is 128; stay under it and under its request size limit.
constexpr size_t kBatchOps = 100;
constexpr size_t kBatchBytes = 1 << 20;

}  // namespace

StatusOr<CopyStats> CopyKeys(Backend& from, Backend& to, const std::string& prefix) {
  CopyStats stats;
  const std::string end = PrefixEnd(prefix);
  {
    RangeRequest probe;
    probe.key = prefix;
    probe.range_end = end;
    probe.count_only = true;
    auto r = SyncWait(to.Range(probe));
    if (!r.ok()) return r.TakeStatus();
    if (r->count > 0) {
      return Status::Storage(StorageCode::kKeyExists, "the target already holds " + std::to_string(r->count) +
                                                          " keys under " + prefix + "; migrate into an empty store");
    }
  }
  std::map<int64_t, int64_t> leases;  // source lease -> target lease (0: expired)
  TxnRequest batch;
  size_t batch_bytes = 0;
  auto flush = [&]() -> Status {
    if (batch.success.empty()) return Status::Ok();
    auto r = SyncWait(to.Txn(std::move(batch)));
    batch = TxnRequest();
    batch_bytes = 0;
    if (!r.ok()) return r.TakeStatus();
    stats.target_revision = r->revision;
    return Status::Ok();
  };
  std::string from_key = prefix;
  int64_t at = 0;
  for (;;) {
    RangeRequest page;
    page.key = from_key;
    page.range_end = end;
    page.limit = kPageSize;
    page.revision = at;
    auto r = SyncWait(from.Range(page));
    if (!r.ok()) return r.TakeStatus();
    if (at == 0) at = stats.source_revision = r->revision;
    for (auto& kv : r->kvs) {
      int64_t lease = 0;
      if (kv.lease != 0) {
        auto it = leases.find(kv.lease);
        if (it == leases.end()) {
          int64_t granted = 0;
          auto ttl = SyncWait(from.LeaseKeepAlive(kv.lease));
          if (ttl.ok() && *ttl > 0) {
            auto g = SyncWait(to.LeaseGrant(*ttl));
            if (!g.ok()) return g.TakeStatus();
            granted = g->id;
            ++stats.leases;
          }
          it = leases.emplace(kv.lease, granted).first;
        }
        if (it->second == 0) {
          ++stats.expired_keys;
          continue;
        }
        lease = it->second;
      }
      stats.keys++;
      stats.bytes += static_cast<int64_t>(kv.key.size() + kv.value.size());
      batch_bytes += kv.key.size() + kv.value.size();
      batch.success.push_back(RequestOp::Put(kv.key, std::move(kv.value), lease));
      if (batch.success.size() >= kBatchOps || batch_bytes >= kBatchBytes) RETURN_IF_ERROR(flush());
    }
    if (!r->more || r->kvs.empty()) break;
    from_key = r->kvs.back().key + std::string(1, '\0');
  }
  RETURN_IF_ERROR(flush());
  if (stats.target_revision == 0) {
    auto st = SyncWait(to.GetStatus());
    if (st.ok()) stats.target_revision = st->revision;
  }
  return stats;
}

}  // namespace capstan::storage
