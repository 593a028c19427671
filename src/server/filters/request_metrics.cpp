#include "server/filters/filters.h"
#include "util/strings.h"

namespace capstan::server {

RequestMetrics::RequestMetrics(MetricsRegistry& reg)
    : requests(reg.NewCounterVec(
          "apiserver_request_total",
          "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, "
          "component, and HTTP response code.",
          {"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"})),
      durations(reg.NewHistogramVec(
          "apiserver_request_duration_seconds",
          "Response latency distribution in seconds for each verb, dry run value, group, version, resource, "
          "subresource, scope and component.",
          {"verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"},
          {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60})),
      inflight(reg.NewGaugeVec("apiserver_current_inflight_requests",
                               "Maximal number of currently used inflight request limit of this apiserver per request "
                               "kind in last second.",
                               {"request_kind"})) {}

namespace {
// kube's metrics verb: LIST/WATCH/APPLY distinguished from GET/PATCH, CONNECT for connect verbs.
std::string MetricsVerb(const http::RequestContext& ctx) {
  const auto& info = ctx.info;
  std::string verb = ctx.request.method;
  if (info.is_resource_request) {
    if (info.verb == "list") return "LIST";
    if (info.verb == "watch") return "WATCH";
    if (info.verb == "proxy") return "CONNECT";
    if (verb == "PATCH" && StartsWith(ctx.request.headers.Get("Content-Type"), "application/apply-patch")) {
      return "APPLY";
    }
    const auto& s = info.subresource;
    if (s == "exec" || s == "attach" || s == "portforward" || s == "proxy") return "CONNECT";
  }
  return verb;
}

std::string Scope(const http::RequestInfo& info) {
  if (!info.is_resource_request) return "";
  if (!info.name.empty()) return "resource";
  if (!info.namespace_.empty()) return "namespace";
  return "cluster";
}
}  // namespace

Handler WithRequestMetrics(Handler next, RequestMetrics& m) {
  return [next = std::move(next), &m](http::RequestContext& ctx) -> Task<void> {
    co_await next(ctx);
    const auto& info = ctx.info;
    std::string verb = MetricsVerb(ctx);
    std::string dry_run = ctx.request.query.Has("dryRun") ? "All" : "";
    std::string scope = Scope(info);
    int code = ctx.writer->status();
    m.requests
        .With({verb, dry_run, info.api_group, info.api_version, info.resource, info.subresource, scope, "apiserver",
               std::to_string(code)})
        ->Inc();
    if (!info.long_running) {
      double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - ctx.received).count();
      m.durations.With({verb, dry_run, info.api_group, info.api_version, info.resource, info.subresource, scope, "apiserver"})
          ->Observe(secs);
    }
  };
}

}  // namespace capstan::server
