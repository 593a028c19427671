#include "server/filters/filters.h"
#include "server/http/responses.h"
#include "util/log.h"

namespace capstan::server {

Handler WithAuthorization(Handler next, authz::Authorizer& authorizer) {
  return [next = std::move(next), &authorizer](http::RequestContext& ctx) -> Task<void> {
    if (!ctx.user) {
      co_await http::RespondStatus(ctx, authn::UnauthorizedStatus());
      co_return;
    }
    authz::Attributes attrs = authz::Attributes::FromRequest(*ctx.user, ctx.info);
    authz::Result r = co_await authorizer.Authorize(attrs);
    if (r.decision == authz::Decision::kAllow) {
      ctx.authorization_decision = "allow";
      ctx.authorization_reason = r.reason;
      co_await next(ctx);
      co_return;
    }
    ctx.authorization_decision = "forbid";
    ctx.authorization_reason = r.reason;
    LogDebug("forbidden", {{"user", ctx.user->name}, {"verb", attrs.verb}, {"path", ctx.request.path}});
    co_await http::RespondStatus(ctx, authz::ForbiddenStatus(attrs, r.reason));
  };
}

}  // namespace capstan::server
