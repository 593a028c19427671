// storage/embedded/store_metrics.h: the embedded store's metrics, named as etcd names them so that
// existing etcd dashboards read the embedded store too. Built from the registry given to the store.
// Thread-safety: the metric types are atomic; safe from any thread.
#pragma once

#include "util/metrics.h"

namespace capstan::storage::embedded {

struct StoreMetrics {
  explicit StoreMetrics(MetricsRegistry& r)
      : db_total_size(r.NewGauge("etcd_mvcc_db_total_size_in_bytes",
                                 "Total size of the underlying database physically allocated in bytes.")),
        db_in_use_size(r.NewGauge("etcd_mvcc_db_total_size_in_use_in_bytes",
                                  "Total size of the underlying database logically in use in bytes.")),
        quota_bytes(r.NewGauge("etcd_server_quota_backend_bytes", "Current backend storage quota size in bytes.")),
        current_revision(r.NewGauge("etcd_debugging_mvcc_current_revision", "The current revision of store.")),
        compact_revision(r.NewGauge("etcd_debugging_mvcc_compact_revision",
                                    "The revision of the last compaction in store.")),
        keys_total(r.NewGauge("etcd_debugging_mvcc_keys_total", "Total number of keys.")),
        watchers(r.NewGauge("etcd_debugging_mvcc_watcher_total", "Total number of watchers.")),
        slow_watchers_ended(r.NewCounter("capstan_storage_embedded_slow_watchers_ended_total",
                                         "Watchers ended because they fell too far behind.")),
        puts(r.NewCounter("etcd_mvcc_put_total", "Total number of puts seen by this member.")),
        deletes(r.NewCounter("etcd_mvcc_delete_total", "Total number of deletes seen by this member.")),
        txns(r.NewCounter("etcd_mvcc_txn_total", "Total number of txns seen by this member.")),
        ranges(r.NewCounter("etcd_mvcc_range_total", "Total number of ranges seen by this member.")),
        leases_granted(r.NewCounter("etcd_debugging_lease_granted_total", "The total number of granted leases.")),
        leases_revoked(r.NewCounter("etcd_debugging_lease_revoked_total", "The total number of revoked leases.")),
        commit_duration(*r.NewHistogramVec("etcd_disk_backend_commit_duration_seconds",
                                           "The latency distributions of commit called by backend.", {},
                                           ExponentialBuckets(0.001, 2, 14))
                             .With({})),
        batch_size(*r.NewHistogramVec("capstan_storage_embedded_commit_batch_size",
                                      "Operations grouped into one commit.", {}, ExponentialBuckets(1, 2, 13))
                        .With({})) {}

  Gauge& db_total_size;
  Gauge& db_in_use_size;
  Gauge& quota_bytes;
  Gauge& current_revision;
  Gauge& compact_revision;
  Gauge& keys_total;
  Gauge& watchers;
  Counter& slow_watchers_ended;
  Counter& puts;
  Counter& deletes;
  Counter& txns;
  Counter& ranges;
  Counter& leases_granted;
  Counter& leases_revoked;
  Histogram& commit_duration;
  Histogram& batch_size;
};

}  // namespace capstan::storage::embedded
