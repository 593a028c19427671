#include "server/http/request_info.h"

#include "server/filters/filters.h"
#include "server/http/responses.h"

namespace capstan::server {

Handler WithRequestInfo(Handler next) {
  return [next = std::move(next)](http::RequestContext& ctx) -> Task<void> {
    Status st = http::ResolveRequestInfo(ctx.request.method, ctx.request.path, ctx.request.query, ctx.info);
    if (!st.ok()) {
      co_await http::RespondText(ctx, "Internal Server Error: \"" + ctx.request.target + "\": " + st.message() + "\n",
                                 500);
      co_return;
    }
    co_await next(ctx);
  };
}

}  // namespace capstan::server
