#include "server/filters/filters.h"

namespace capstan::server {

Handler WithCacheControl(Handler next) {
  return [next = std::move(next)](http::RequestContext& ctx) -> Task<void> {
    // API responses are never cached by intermediaries (kube's WithCacheControl).
    ctx.writer->extra_headers().Set("Cache-Control", "no-cache, private");
    co_await next(ctx);
  };
}

Handler WithHsts(Handler next, const std::vector<std::string>& directives) {
  std::string value;
  for (const auto& d : directives) value += (value.empty() ? "" : "; ") + d;
  return [next = std::move(next), value](http::RequestContext& ctx) -> Task<void> {
    if (!ctx.writer->extra_headers().Has("Strict-Transport-Security")) {
      ctx.writer->extra_headers().Set("Strict-Transport-Security", value);
    }
    co_await next(ctx);
  };
}

}  // namespace capstan::server
