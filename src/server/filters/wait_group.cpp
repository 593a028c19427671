#include "server/filters/filters.h"
#include "server/http/responses.h"

namespace capstan::server {

bool RequestWaitGroup::Add(std::chrono::steady_clock::time_point received) {
  std::lock_guard lock(mu_);
  if (closed_ && received >= closed_at_) return false;
  count_.fetch_add(1);
  return true;
}

void RequestWaitGroup::Done() {
  std::lock_guard lock(mu_);
  if (count_.fetch_sub(1) == 1) cv_.notify_all();
}

bool RequestWaitGroup::CloseAndWait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  closed_ = true;
  closed_at_ = std::chrono::steady_clock::now();
  return cv_.wait_for(lock, timeout, [&] { return count_.load() == 0; });
}

Handler WithWaitGroup(Handler next, RequestWaitGroup& wg) {
  return [next = std::move(next), &wg](http::RequestContext& ctx) -> Task<void> {
    if (ctx.info.long_running) {
      co_await next(ctx);
      co_return;
    }
    if (!wg.Add(ctx.received)) {
      Status st(503, "ServiceUnavailable", "apiserver is shutting down");
      auto resp = http::StatusResponse(st);
      resp.headers.Set("Retry-After", "1");
      co_await ctx.writer->Respond(std::move(resp));
      co_return;
    }
    struct Done {
      RequestWaitGroup& wg;
      ~Done() { wg.Done(); }
    } done{wg};
    co_await next(ctx);
  };
}

}  // namespace capstan::server
