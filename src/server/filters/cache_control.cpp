#include "server/filters/filters.h"

namespace capstan::server {

Handler WithCacheControl(Handler next) {
  return [next = std::move(next)](http::RequestContext& ctx) -> Task<void> {
    // API responses are never cached by intermediaries (kube's WithCacheControl).
    ctx.writer->extra_headers().Set("Cache-Control", "no-cache, private");
    co_await next(ctx);
  };
}

}  // namespace capstan::server
