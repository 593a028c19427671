#include "server/filters/filters.h"
#include "server/http/responses.h"
#include "util/log.h"

namespace capstan::server {

Handler Unauthorized() {
  return [](http::RequestContext& ctx) -> Task<void> { co_await http::RespondStatus(ctx, authn::UnauthorizedStatus()); };
}

namespace {
// kube's compressUsername: known internal identities by name, e-mail addresses and the rest grouped.
std::string CompressUsername(const std::string& name) {
  if (name == "admin" || name == "client" || name == "kube_proxy" || name == "kubelet" ||
      name == "system:serviceaccount:kube-system:default") {
    return name;
  }
  if (name.find('@') != std::string::npos) return "email_id";
  return "other";
}
}  // namespace

Handler WithAuthentication(Handler next, authn::RequestAuthenticator& authenticator, Handler failed,
                           RequestMetrics* metrics) {
  if (!failed) failed = Unauthorized();
  return [next = std::move(next), &authenticator, failed = std::move(failed), metrics](http::RequestContext& ctx) -> Task<void> {
    auto start = std::chrono::steady_clock::now();
    auto result = co_await authenticator.Authenticate(ctx.request);
    if (metrics) {
      const char* label = !result.ok() ? "error" : !result->has_value() ? "failure" : "success";
      if (result.ok() && result->has_value()) metrics->authenticated_users.With({CompressUsername((**result).name)})->Inc();
      metrics->authentication_attempts.With({label})->Inc();
      metrics->authentication_durations.With({label})->Observe(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
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
