#include "storage/cacher/cacher_metrics.h"

namespace capstan::storage {

CacherMetrics::CacherMetrics(MetricsRegistry& r)
    : events_received(r.NewCounterVec("apiserver_watch_cache_events_received_total",
                                      "Counter of events received in watch cache broken by resource type.",
                                      {"resource"})),
      events_dispatched(r.NewCounterVec("apiserver_watch_cache_events_dispatched_total",
                                        "Counter of events dispatched in watch cache broken by resource type.",
                                        {"resource"})),
      resource_version(r.NewGaugeVec("apiserver_watch_cache_resource_version",
                                     "Current resource version of watch cache broken by resource type.",
                                     {"resource"})),
      capacity(r.NewGaugeVec("watch_cache_capacity", "Total capacity of watch cache broken by resource type.",
                             {"resource"})),
      initializations(r.NewCounterVec("apiserver_watch_cache_initializations_total",
                                      "Counter of watch cache initializations broken by resource type.",
                                      {"resource"})),
      terminated_watchers(r.NewCounterVec("apiserver_terminated_watchers_total",
                                          "Counter of watchers closed due to unresponsiveness broken by resource type.",
                                          {"resource"})),
      consistent_read(r.NewCounterVec("apiserver_watch_cache_consistent_read_total",
                                      "Counter for consistent reads from cache.",
                                      {"resource", "success", "fallback"})),
      list_total(r.NewCounterVec("apiserver_cache_list_total", "Number of LIST requests served from watch cache",
                                 {"resource_prefix", "index"})),
      watchers(r.NewGaugeVec("capstan_watch_cache_watchers", "Watchers registered with the watch cache.",
                             {"resource"})),
      objects(r.NewGaugeVec("apiserver_storage_objects",
                            "Number of stored objects at the time of last check split by kind. In case of a fetching "
                            "error, the value will be -1.",
                            {"resource"})),
      storage_durations(r.NewHistogramVec(
          "etcd_request_duration_seconds", "Etcd request latency in seconds for each operation and object type.",
          {"operation", "type"},
          {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0,
           30.0, 45.0, 60.0})),
      storage_requests(r.NewCounterVec("etcd_requests_total", "Etcd request counts for each operation and object type.",
                                       {"operation", "type"})),
      storage_errors(r.NewCounterVec("etcd_request_errors_total",
                                     "Etcd failed request counts for each operation and object type.",
                                     {"operation", "type"})),
      storage_lists(r.NewCounterVec("apiserver_storage_list_total", "Number of LIST requests served from storage",
                                    {"resource"})),
      storage_list_returned(r.NewCounterVec("apiserver_storage_list_returned_objects_total",
                                            "Number of objects returned for a LIST request from storage",
                                            {"resource"})) {}

void RecordStorageRequest(CacherMetrics* m, const char* operation, const std::string& type,
                          std::chrono::steady_clock::time_point start, bool failed) {
  if (!m) return;
  LabelValues l{operation, type};
  m->storage_durations.With(l)->Observe(
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  m->storage_requests.With(l)->Inc();
  if (failed) m->storage_errors.With(l)->Inc();
}

CacherMetrics::Children CacherMetrics::For(const std::string& group, const std::string& resource,
                                           const std::string& key_prefix) {
  Children c;
  LabelValues l{group.empty() ? resource : resource + "." + group};
  // kube's resourcePrefix is the key prefix under the storage root (--etcd-prefix, "/registry").
  auto slash = key_prefix.find('/', 1);
  std::string prefix = slash == std::string::npos ? key_prefix : key_prefix.substr(slash);
  c.events_received = events_received.With(l);
  c.events_dispatched = events_dispatched.With(l);
  c.resource_version = resource_version.With(l);
  c.capacity = capacity.With(l);
  c.initializations = initializations.With(l);
  c.terminated_watchers = terminated_watchers.With(l);
  c.consistent_ok = consistent_read.With({prefix, "true", "false"});
  c.consistent_fallback = consistent_read.With({prefix, "true", "true"});
  c.list_total = list_total.With({prefix, ""});
  c.watchers = watchers.With(l);
  c.objects = objects.With(l);
  c.owner = this;
  c.type = l[0];
  return c;
}

}  // namespace capstan::storage
