#include "server/filters/filters.h"
#include "server/http/responses.h"
#include "util/log.h"

namespace capstan::server {

Handler Unauthorized() {
  return [](http::RequestContext& ctx) -> Task<void> { co_await http::RespondStatus(ctx, authn::UnauthorizedStatus()); };
}

Handler WithAuthentication(Handler next, authn::RequestAuthenticator& authenticator, Handler failed) {
  if (!failed) failed = Unauthorized();
  return [next = std::move(next), &authenticator, failed = std::move(failed)](http::RequestContext& ctx) -> Task<void> {
    auto result = co_await authenticator.Authenticate(ctx.request);
    if (!result.ok() || !result->has_value()) {
      if (!result.ok()) {
        LogDebug("unable to authenticate the request", {{"path", ctx.request.path}, {"reason", result.status().message()}});
      }
      co_await failed(ctx);
      co_return;
    }
    ctx.user = std::move(**result);
    // Credentials are not passed further down the chain (kube removes the header after success).
    ctx.request.headers.Remove("Authorization");
    co_await next(ctx);
  };
}

}  // namespace capstan::server
