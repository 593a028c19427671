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
                             {"resource"})) {}

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
  return c;
}

}  // namespace capstan::storage
