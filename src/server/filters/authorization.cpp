#include "server/filters/filters.h"
#include "server/http/responses.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::server {

Handler WithAuthorization(Handler next, authz::Authorizer& authorizer, RequestMetrics* metrics) {
  return [next = std::move(next), &authorizer, metrics](http::RequestContext& ctx) -> Task<void> {
    if (!ctx.user) {
      co_await http::RespondStatus(ctx, authn::UnauthorizedStatus());
      co_return;
    }
    authz::Attributes attrs = authz::Attributes::FromRequest(*ctx.user, ctx.info);
    auto start = std::chrono::steady_clock::now();
    authz::Result r = co_await authorizer.Authorize(attrs);
    if (metrics) {
      // kube's recordAuthorizationMetrics: allowed first, then an error, then the decision.
      const char* label = r.decision == authz::Decision::kAllow ? "allowed"
                          : !r.error.empty()                    ? "error"
                          : r.decision == authz::Decision::kDeny ? "denied"
                                                                 : "no-opinion";
      metrics->authorization_attempts.With({label})->Inc();
      metrics->authorization_durations.With({label})->Observe(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    if (r.decision == authz::Decision::kAllow) {
      ctx.authorization_decision = "allow";
      ctx.authorization_reason = r.reason;
      co_await next(ctx);
      co_return;
    }
    if (!r.error.empty()) {
      // An evaluation error with no Allow (an unreachable webhook): kube's InternalError, a plain-text
      // 500, not a 403 the client would take as a decision.
      ctx.authorization_reason = "internal error";  // kube's audit reason; no decision annotation
      LogWarn("authorization failed", {{"user", ctx.user->name}, {"verb", attrs.verb}, {"error", r.error}});
      co_await http::RespondText(ctx, "Internal Server Error: " + GoQuote(ctx.request.target) + ": " + r.error + "\n", 500);
      co_return;
    }
    ctx.authorization_decision = "forbid";
    ctx.authorization_reason = r.reason;
    LogDebug("forbidden", {{"user", ctx.user->name}, {"verb", attrs.verb}, {"path", ctx.request.path}});
    co_await http::RespondStatus(ctx, authz::ForbiddenStatus(attrs, r.reason));
  };
}

}  // namespace capstan::server
