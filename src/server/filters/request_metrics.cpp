#include "server/filters/filters.h"
#include "server/http/forwarding_writer.h"
#include "util/strings.h"

namespace capstan::server {

namespace {
const std::vector<std::string> kEndpointLabels = {"verb", "group", "version", "resource", "subresource", "scope", "component"};
const std::vector<double> kSliBuckets = {0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60};
// kube's LinearBuckets(50000, 100000, 31): up to its 3 MiB body limit.
std::vector<double> LinearBodyBuckets() {
  std::vector<double> b;
  for (int i = 0; i < 31; ++i) b.push_back(50000.0 + 100000.0 * i);
  return b;
}
const char* kSliHelp =
    "Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in "
    "seconds for each verb, group, version, resource, subresource, scope and component.";
}  // namespace

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
      sli_durations(reg.NewHistogramVec("apiserver_request_sli_duration_seconds", kSliHelp, kEndpointLabels, kSliBuckets)),
      slo_durations(reg.NewHistogramVec("apiserver_request_slo_duration_seconds", kSliHelp, kEndpointLabels, kSliBuckets)),
      slo_shown(reg.Shown("apiserver_request_slo_duration_seconds")),
      response_sizes(reg.NewHistogramVec(
          "apiserver_response_sizes",
          "Response size distribution in bytes for each group, version, verb, resource, subresource, scope and "
          "component.",
          kEndpointLabels, ExponentialBuckets(1000, 10, 7))),
      request_body_sizes(reg.NewHistogramVec(
          "apiserver_request_body_size_bytes", "Apiserver request body size in bytes broken out by resource and verb.",
          {"resource", "verb"}, LinearBodyBuckets())),
      longrunning(reg.NewGaugeVec("apiserver_longrunning_requests",
                                  "Gauge of all active long-running apiserver requests broken out by verb, group, "
                                  "version, resource, scope and component. Not all requests are tracked this way.",
                                  kEndpointLabels)),
      terminations(reg.NewCounterVec(
          "apiserver_request_terminations_total", "Number of requests which apiserver terminated in self-defense.",
          {"verb", "group", "version", "resource", "subresource", "scope", "component", "code"})),
      inflight(reg.NewGaugeVec("apiserver_current_inflight_requests",
                               "Maximal number of currently used inflight request limit of this apiserver per request "
                               "kind in last second.",
                               {"request_kind"})),
      authenticated_users(reg.NewCounterVec("authenticated_user_requests",
                                            "Counter of authenticated requests broken out by username.", {"username"})),
      authentication_attempts(
          reg.NewCounterVec("authentication_attempts", "Counter of authenticated attempts.", {"result"})),
      authentication_durations(reg.NewHistogramVec("authentication_duration_seconds",
                                                   "Authentication duration in seconds broken out by result.",
                                                   {"result"}, ExponentialBuckets(0.001, 2, 15))),
      authorization_attempts(reg.NewCounterVec("authorization_attempts_total",
                                               "Counter of authorization attempts broken down by result. It can be "
                                               "either 'allowed', 'denied', 'no-opinion' or 'error'.",
                                               {"result"})),
      authorization_durations(reg.NewHistogramVec("authorization_duration_seconds",
                                                  "Authorization duration in seconds broken out by result.", {"result"},
                                                  ExponentialBuckets(0.001, 2, 15))) {}


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

// Counts the body bytes of the response (for apiserver_response_sizes).
class SizeCountingWriter : public http::ForwardingWriter {
 public:
  using ForwardingWriter::ForwardingWriter;
  size_t bytes() const { return bytes_; }

 private:
  void OnData(const std::string& data) override { bytes_ += data.size(); }
  size_t bytes_ = 0;
};

// kube's endpoints label values: for a non-resource request the path stands in the subresource (kube's
// health handlers, instrumented with an empty component, and its discovery handlers do so; Capstan
// counts its other non-resource paths the same way).
LabelValues EndpointLabels(const http::RequestContext& ctx, const std::string& verb, const std::string& scope) {
  const auto& info = ctx.info;
  if (!info.is_resource_request) {
    const std::string& path = ctx.request.path;
    bool health = path == "/healthz" || path == "/livez" || path == "/readyz";
    return {verb, "", "", "", path, scope, health ? "" : "apiserver"};
  }
  return {verb, info.api_group, info.api_version, info.resource, info.subresource, scope, "apiserver"};
}
}  // namespace

void RecordRequestTermination(RequestMetrics& m, const http::RequestContext& ctx, int code) {
  LabelValues labels = EndpointLabels(ctx, MetricsVerb(ctx), Scope(ctx.info));
  labels.push_back(std::to_string(code));
  m.terminations.With(labels)->Inc();
}

Handler WithRequestMetrics(Handler next, RequestMetrics& m) {
  return [next = std::move(next), &m](http::RequestContext& ctx) -> Task<void> {
    const auto& info = ctx.info;
    std::string verb = MetricsVerb(ctx);
    std::string scope = Scope(info);
    SizeCountingWriter counting(*ctx.writer);
    Gauge* longrunning = nullptr;
    {
      http::ScopedWriter scoped(ctx, counting);
      if (info.long_running) {
        longrunning = m.longrunning.With(EndpointLabels(ctx, verb, scope));
        longrunning->Add(1);
      }
      struct Done {
        Gauge* g;
        ~Done() {
          if (g) g->Add(-1);
        }
      } done{longrunning};
      co_await next(ctx);
    }
    std::string dry_run = ctx.request.query.Has("dryRun") ? "All" : "";
    int code = ctx.writer->status();
    // kube records the body of an authorized create, update, patch, delete or deletecollection once its
    // handler has read it within the size limit.
    if (info.is_resource_request && ctx.authorization_decision == "allow" && code != 413) {
      const std::string& v = info.verb;
      if (v == "create" || v == "update" || v == "patch" || v == "delete" || v == "deletecollection") {
        std::string resource = info.api_group.empty() ? info.resource : info.resource + "." + info.api_group;
        m.request_body_sizes.With({resource, v == "deletecollection" ? "delete_collection" : v})
            ->Observe(static_cast<double>(ctx.request.body.size()));
      }
    }
    // One label set for every family; a non-resource request's path stands in the subresource, as kube's.
    LabelValues labels = EndpointLabels(ctx, verb, scope);
    LabelValues with_dry_run = labels;
    with_dry_run.insert(with_dry_run.begin() + 1, dry_run);
    with_dry_run.push_back(std::to_string(code));
    m.requests.With(with_dry_run)->Inc();
    if (!info.long_running) {
      with_dry_run.pop_back();
      auto elapsed = std::chrono::steady_clock::now() - ctx.received;
      m.durations.With(with_dry_run)->Observe(std::chrono::duration<double>(elapsed).count());
      double sli = std::chrono::duration<double>(elapsed - ctx.scope.sli_excluded_latency()).count();
      m.sli_durations.With(labels)->Observe(sli);
      // The SLO family is hidden in 1.32 (deprecated in 1.27): recorded only when shown.
      if (m.slo_shown) m.slo_durations.With(labels)->Observe(sli);
      if (verb == "GET" || verb == "LIST") m.response_sizes.With(labels)->Observe(static_cast<double>(counting.bytes()));
    }
  };
}

}  // namespace capstan::server
