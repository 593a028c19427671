#include "server/filters/filters.h"
#include "util/log.h"

namespace capstan::server {

Handler WithCors(Handler next, const std::vector<std::string>& allowed_origin_patterns) {
  if (allowed_origin_patterns.empty()) return next;
  std::vector<std::regex> patterns;
  for (const auto& p : allowed_origin_patterns) {
    // Patterns are validated when flags are parsed (cmd/options.cpp), so they compile here.
    patterns.emplace_back(p, std::regex::ECMAScript);
  }
  return [next = std::move(next), patterns = std::move(patterns)](http::RequestContext& ctx) -> Task<void> {
    std::string origin(ctx.request.headers.Get("Origin"));
    bool allowed = false;
    if (!origin.empty()) {
      for (const auto& re : patterns) {
        if (std::regex_search(origin, re)) {
          allowed = true;
          break;
        }
      }
    }
    if (!allowed) {
      co_await next(ctx);
      co_return;
    }
    auto& h = ctx.writer->extra_headers();
    h.Set("Access-Control-Allow-Origin", origin);
    h.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS, PUT, DELETE, PATCH");
    h.Set("Access-Control-Allow-Headers",
          "Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, "
          "If-Modified-Since");
    h.Set("Access-Control-Expose-Headers", "Date");
    h.Set("Access-Control-Allow-Credentials", "true");
    if (ctx.request.method == "OPTIONS") {
      http::HttpResponse resp;
      resp.status = 204;
      co_await ctx.writer->Respond(std::move(resp));
      co_return;
    }
    co_await next(ctx);
  };
}

}  // namespace capstan::server
