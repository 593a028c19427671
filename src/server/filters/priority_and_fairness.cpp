// kube's WithPriorityAndFairness (server/filters/priority-and-fairness.go) over flowcontrol::Controller.
#include "flowcontrol/controller.h"
#include "server/filters/filters.h"
#include "server/http/forwarding_writer.h"
#include "util/duration.h"
#include "util/timer.h"

namespace capstan::server {

namespace {

constexpr const char* kFlowSchemaUidHeader = "X-Kubernetes-PF-FlowSchema-UID";
constexpr const char* kPriorityLevelUidHeader = "X-Kubernetes-PF-PriorityLevel-UID";

flowcontrol::RequestDigest DigestOf(const http::RequestContext& ctx) {
  const http::RequestInfo& ri = ctx.info;
  flowcontrol::RequestDigest d;
  d.is_resource_request = ri.is_resource_request;
  d.verb = ri.verb;
  d.path = ri.path;
  d.api_group = ri.api_group;
  d.api_version = ri.api_version;
  d.resource = ri.resource;
  d.subresource = ri.subresource;
  d.namespace_ = ri.namespace_;
  d.name = ri.name;
  if (ctx.user) d.user = *ctx.user;
  return d;
}

flowcontrol::WorkRequest WorkOf(const http::RequestContext& ctx) {
  const http::RequestInfo& ri = ctx.info;
  const http::Query& q = ctx.request.query;
  flowcontrol::WorkRequest w;
  w.verb = ri.verb;
  w.api_group = ri.api_group;
  w.resource = ri.resource;
  w.subresource = ri.subresource;
  w.namespace_ = ri.namespace_;
  w.name = ri.name;
  if (auto limit = q.Get("limit")) {
    try {
      w.limit = std::stoll(*limit);
    } catch (...) {
      w.limit = 0;
    }
  }
  w.resource_version = q.Get("resourceVersion").value_or("");
  w.resource_version_match = q.Get("resourceVersionMatch").value_or("");
  w.continue_token = q.Get("continue").value_or("");
  w.has_selector = !q.Get("labelSelector").value_or("").empty() || !q.Get("fieldSelector").value_or("").empty();
  w.send_initial_events = q.Get("sendInitialEvents").value_or("") == "true";
  return w;
}

// A watch holds its seats only while it initializes: until its response starts.
class WatchInitWriter : public http::ForwardingWriter {
 public:
  WatchInitWriter(http::ResponseWriter& inner, std::function<void()> initialized)
      : ForwardingWriter(inner), initialized_(std::move(initialized)) {}

 protected:
  void BeforeStart(int, http::Headers&) override { initialized_(); }

 private:
  std::function<void()> initialized_;
};

// kube's tooManyRequests: http.Error's plain text and Retry-After.
http::HttpResponse TooManyRequests(int64_t retry_after) {
  http::HttpResponse resp;
  resp.status = 429;
  resp.headers.Set("Content-Type", "text/plain; charset=utf-8");
  resp.headers.Set("X-Content-Type-Options", "nosniff");
  resp.headers.Set("Retry-After", std::to_string(retry_after));
  resp.body = "Too many requests, please try again later.\n";
  return resp;
}

}  // namespace

Handler WithPriorityAndFairness(Handler next, flowcontrol::Controller& apf, std::chrono::nanoseconds request_timeout,
                                RequestMetrics& m) {
  // kube's wait limit: a quarter of the request's deadline (--request-timeout, or a shorter ?timeout=;
  // watches have none and get a quarter of --request-timeout), at most a minute.
  const auto default_wait = std::min<std::chrono::nanoseconds>(request_timeout / 4, std::chrono::minutes(1));
  // apiserver_current_inflight_requests counts what executes (watches while they initialize), as
  // kube's APF filter feeds it.
  struct Executing {
    std::atomic<int> read_only{0};
    std::atomic<int> mutating{0};
  };
  auto executing = std::make_shared<Executing>();
  Gauge* ro_gauge = m.inflight.With({"readOnly"});
  Gauge* mut_gauge = m.inflight.With({"mutating"});
  return [next = std::move(next), &apf, default_wait, request_timeout, executing, ro_gauge, mut_gauge,
          &m](http::RequestContext& ctx) -> Task<void> {
    const bool watch = ctx.info.verb == "watch";
    if (ctx.info.long_running && !watch) {  // exec, attach, proxy, logs: not limited
      co_await next(ctx);
      co_return;
    }
    auto ticket = std::make_shared<flowcontrol::Ticket>(apf.Start(DigestOf(ctx), WorkOf(ctx)));
    http::Headers& headers = ctx.writer->extra_headers();
    headers.Set(kFlowSchemaUidHeader, ticket->flow_schema_uid);
    headers.Set(kPriorityLevelUidHeader, ticket->priority_level_uid);

    if (ticket->request->decision == flowcontrol::Decision::kPending) {
      // The wait ends at its limit from the request's arrival, or when the client goes away.
      auto wait_limit = default_wait;
      if (!ctx.info.long_running) {
        auto timeout = request_timeout;
        if (auto t = ctx.request.query.Get("timeout"); t && !t->empty()) {
          if (auto parsed = ParseGoDuration(*t); parsed && parsed->count() > 0 && *parsed < timeout) timeout = *parsed;
        }
        wait_limit = std::min<std::chrono::nanoseconds>(timeout / 4, std::chrono::minutes(1));
      }
      auto deadline = ctx.received + std::chrono::duration_cast<std::chrono::steady_clock::duration>(wait_limit);
      auto remaining = deadline - std::chrono::steady_clock::now();
      if (remaining.count() < 0) remaining = {};
      auto timer = RunAfter(remaining, [&apf, ticket] { apf.Cancel(*ticket); });
      size_t on_cancel = ctx.cancel.OnCancel([&apf, ticket] { apf.Cancel(*ticket); });
      auto queued = std::chrono::steady_clock::now();
      co_await ticket->request->decided.Wait();
      ctx.scope.AddSliExcludedLatency(std::chrono::steady_clock::now() - queued);
      timer->Cancel();
      ctx.cancel.Remove(on_cancel);
    }
    if (ticket->request->decision != flowcontrol::Decision::kExecute) {
      RecordRequestTermination(m, ctx, 429);
      co_await ctx.writer->Respond(TooManyRequests(apf.RetryAfter(ticket->priority_level)));
      co_return;
    }
    const std::string& verb = ctx.info.verb;
    const bool mutating = !(verb == "get" || verb == "list" || verb == "watch");
    std::atomic<int>& count = mutating ? executing->mutating : executing->read_only;
    Gauge* gauge = mutating ? mut_gauge : ro_gauge;
    gauge->Set(count.fetch_add(1) + 1);
    // Ends the execution once: when the handler returns, or for a watch when its response starts.
    auto finish = [&apf, ticket, &count, gauge] {
      if (ticket->finished) return;
      apf.Finish(*ticket);
      gauge->Set(count.fetch_sub(1) - 1);
    };
    struct Done {
      std::function<void()> f;
      ~Done() { f(); }
    } done{finish};
    if (!watch) {
      co_await next(ctx);
      co_return;
    }
    // Counted for the write estimates while it is open (kube's RegisterWatch).
    flowcontrol::WatchTracker& tracker = apf.watch_tracker();
    auto key = tracker.Register({ctx.info.api_group, ctx.info.resource, ctx.info.namespace_, ctx.info.name},
                                ctx.request.query.Get("fieldSelector").value_or(""));
    struct Forget {
      flowcontrol::WatchTracker& tracker;
      const std::optional<flowcontrol::WatchKey>& key;
      ~Forget() {
        if (key) tracker.Forget(*key);
      }
    } forget{tracker, key};
    WatchInitWriter w(*ctx.writer, finish);
    http::ScopedWriter installed(ctx, w);
    co_await next(ctx);
  };
}

}  // namespace capstan::server
