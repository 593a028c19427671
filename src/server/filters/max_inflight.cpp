#include "server/filters/filters.h"
#include "server/http/responses.h"

namespace capstan::server {

Handler WithMaxInFlight(Handler next, int max_read_only, int max_mutating, RequestMetrics& m) {
  if (max_read_only <= 0 && max_mutating <= 0) return next;
  struct Budget {
    std::atomic<int> read_only{0};
    std::atomic<int> mutating{0};
  };
  auto budget = std::make_shared<Budget>();
  Gauge* ro_gauge = m.inflight.With({"readOnly"});
  Gauge* mut_gauge = m.inflight.With({"mutating"});
  return [next = std::move(next), max_read_only, max_mutating, budget, ro_gauge, mut_gauge,
          &m](http::RequestContext& ctx) -> Task<void> {
    if (ctx.info.long_running) {
      co_await next(ctx);
      co_return;
    }
    const std::string& verb = ctx.info.verb;
    bool mutating = !(verb == "get" || verb == "list" || verb == "watch");
    int limit = mutating ? max_mutating : max_read_only;
    if (limit <= 0) {
      co_await next(ctx);
      co_return;
    }
    std::atomic<int>& counter = mutating ? budget->mutating : budget->read_only;
    Gauge* gauge = mutating ? mut_gauge : ro_gauge;
    int now = counter.fetch_add(1) + 1;
    if (now > limit) {
      counter.fetch_sub(1);
      // system:masters always gets an answer, as in kube.
      if (ctx.user && ctx.user->InGroup(http::kSystemPrivilegedGroup)) {
        co_await next(ctx);
        co_return;
      }
      Status st(429, "TooManyRequests", "Too many requests, please try again later.");
      StatusDetails d;
      d.retry_after_seconds = 1;
      st.WithDetails(d);
      RecordRequestTermination(m, ctx, 429);
      co_await http::RespondStatus(ctx, st);
      co_return;
    }
    gauge->Set(now);
    struct Release {
      std::atomic<int>& c;
      Gauge* g;
      ~Release() { g->Set(c.fetch_sub(1) - 1); }
    } release{counter, gauge};
    co_await next(ctx);
  };
}

}  // namespace capstan::server
