#include "storage/cacher/cacher_metrics.h"

namespace capstan::storage {

CacherMetrics::CacherMetrics(MetricsRegistry& r)
    : events_received(r.NewCounterVec("apiserver_watch_cache_events_received_total",
                                      "Counter of events received in watch cache broken by resource type.",
                                      {"group", "resource"})),
      events_dispatched(r.NewCounterVec("apiserver_watch_cache_events_dispatched_total",
                                        "Counter of events dispatched in watch cache broken by resource type.",
                                        {"group", "resource"})),
      resource_version(r.NewGaugeVec("apiserver_watch_cache_resource_version",
                                     "Current resource version of watch cache broken by resource type.",
                                     {"group", "resource"})),
      capacity(r.NewGaugeVec("apiserver_watch_cache_capacity", "Total capacity of watch cache broken by resource type.",
                             {"group", "resource"})),
      initializations(r.NewCounterVec("apiserver_watch_cache_initializations_total",
                                      "Counter of watch cache initializations broken by resource type.",
                                      {"group", "resource"})),
      terminated_watchers(r.NewCounterVec("apiserver_terminated_watchers_total",
                                          "Counter of watchers closed due to unresponsiveness broken by resource type.",
                                          {"group", "resource"})),
      consistent_read(r.NewCounterVec("apiserver_watch_cache_consistent_read_total",
                                      "Counter for consistent reads from cache.",
                                      {"group", "resource", "success", "fallback"})),
      list_total(r.NewCounterVec("apiserver_cache_list_total", "Number of LIST requests served from watch cache",
                                 {"group", "resource", "index"})),
      watchers(r.NewGaugeVec("capstan_watch_cache_watchers", "Watchers registered with the watch cache.",
                             {"group", "resource"})) {}

CacherMetrics::Children CacherMetrics::For(const std::string& group, const std::string& resource) {
  Children c;
  LabelValues l{group, resource};
  c.events_received = events_received.With(l);
  c.events_dispatched = events_dispatched.With(l);
  c.resource_version = resource_version.With(l);
  c.capacity = capacity.With(l);
  c.initializations = initializations.With(l);
  c.terminated_watchers = terminated_watchers.With(l);
  c.consistent_ok = consistent_read.With({group, resource, "true", "false"});
  c.consistent_fallback = consistent_read.With({group, resource, "true", "true"});
  c.list_total = list_total.With({group, resource, ""});
  c.watchers = watchers.With(l);
  return c;
}

}  // namespace capstan::storage
