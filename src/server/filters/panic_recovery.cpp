#include "server/filters/filters.h"
#include "server/http/responses.h"
#include "util/log.h"

namespace capstan::server {

Handler WithPanicRecovery(Handler next) {
  return [next = std::move(next)](http::RequestContext& ctx) -> Task<void> {
    bool failed = false;
    std::string what;
    try {
      co_await next(ctx);
    } catch (const std::exception& e) {
      failed = true;
      what = e.what();
    } catch (...) {
      failed = true;
      what = "unknown exception";
    }
    if (!failed) co_return;
    LogError("request handler failed", {{"method", ctx.request.method}, {"path", ctx.request.path}, {"error", what}});
    if (!ctx.writer->started()) {
      co_await http::RespondText(ctx, "This request caused apiserver to panic. Look in the logs for details.\n", 500);
    }
  };
}

}  // namespace capstan::server
