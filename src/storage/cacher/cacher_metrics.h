// storage/cacher/cacher_metrics.h: the watch cache's metrics, with kube-apiserver's names
// (apiserver_watch_cache_*, apiserver_terminated_watchers_total, ...) and kube 1.32's labels: the
// group resource ("configmaps", "deployments.apps") or, for the list and consistent-read counters, the
// resource prefix under the storage root ("/configmaps", "/example.com/widgets").
// One CacherMetrics serves every Cacher of a process; each Cacher looks its children up once.
// Thread-safe.
#pragma once

#include <chrono>
#include <string>

#include "util/metrics.h"

namespace capstan::storage {

struct CacherMetrics {
  explicit CacherMetrics(MetricsRegistry& registry);

  CounterVec& events_received;
  CounterVec& events_dispatched;
  GaugeVec& resource_version;
  GaugeVec& capacity;
  CounterVec& initializations;
  CounterVec& terminated_watchers;
  CounterVec& consistent_read;  // labels: resource (the prefix), success, fallback
  CounterVec& list_total;       // apiserver_cache_list_total; labels: resource_prefix, index
  GaugeVec& watchers;           // capstan's: watchers registered with the cache
  // apiserver_storage_objects{resource}: kube polls a count from storage; the cache knows it exactly.
  GaugeVec& objects;
  // Storage calls made for API requests (the cache router's), as kube's etcd3 store records them:
  // etcd_request_duration_seconds, etcd_requests_total and etcd_request_errors_total {operation, type}.
  HistogramVec& storage_durations;
  CounterVec& storage_requests;
  CounterVec& storage_errors;
  // apiserver_storage_list_total and _returned_objects_total {resource}: lists the store answered.
  CounterVec& storage_lists;
  CounterVec& storage_list_returned;

  // One resource's children; every pointer is null when the Cacher has no metrics.
  struct Children {
    Counter* events_received = nullptr;
    Counter* events_dispatched = nullptr;
    Gauge* resource_version = nullptr;
    Gauge* capacity = nullptr;
    Counter* initializations = nullptr;
    Counter* terminated_watchers = nullptr;
    Counter* consistent_ok = nullptr;
    Counter* consistent_fallback = nullptr;
    Counter* list_total = nullptr;
    Gauge* watchers = nullptr;
    Gauge* objects = nullptr;
    CacherMetrics* owner = nullptr;  // for RecordStorageRequest
    std::string type;                // the group resource, as kube labels storage calls
  };
  // `key_prefix` is the resource's storage prefix ("/registry/configmaps").
  Children For(const std::string& group, const std::string& resource, const std::string& key_prefix);
};

// Records one storage call of `type` ("configmaps", "deployments.apps") that started at `start`.
void RecordStorageRequest(CacherMetrics* m, const char* operation, const std::string& type,
                          std::chrono::steady_clock::time_point start, bool failed);

// Null-safe updates.
inline void Inc(Counter* c, double v = 1) {
  if (c) c->Inc(v);
}
inline void Set(Gauge* g, double v) {
  if (g) g->Set(v);
}

}  // namespace capstan::storage
