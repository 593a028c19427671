#include "server/handler_chain.h"

#include <functional>

namespace capstan::server {

http::Handler BuildHandlerChain(http::Handler inner, const ChainConfig& c) {
  using Filter = std::function<Handler(Handler next)>;
  // Execution order, outermost first: kube-apiserver's DefaultBuildHandlerChain read from the outside
  // in (WithAuditInit outermost, so every answer, a 401 or a 429 too, carries the Audit-Id header).
  const std::vector<Filter> chain = {
      WithAuditId,
      WithPanicRecovery,  // the one place an exception becomes an answer (500)
      WithRequestInfo,    // verb, group, resource, name; long-running or not
      [&](Handler n) { return WithRequestMetrics(std::move(n), *c.metrics); },
      [&](Handler n) { return c.hsts_directives.empty() ? n : WithHsts(std::move(n), c.hsts_directives); },
      WithCacheControl,
      WithWarningRecorder,
      // --goaway-chance (kube adds it only when above 0 and HTTP/2 is served; at 0 it passes everything).
      [&](Handler n) { return c.goaway_chance > 0 ? WithProbabilisticGoaway(std::move(n), c.goaway_chance) : n; },
      [&](Handler n) { return WithWaitGroup(std::move(n), *c.wait_group); },
      [&](Handler n) { return WithTimeout(std::move(n), c.request_timeout, c.metrics); },
      [&](Handler n) { return WithCors(std::move(n), c.cors_allowed_origins); },
      [&](Handler n) {
        return WithAuthentication(std::move(n), *c.authenticator, WithFailedAuthenticationAudit(Unauthorized(), c.audit),
                                  c.metrics);
      },
      [&](Handler n) { return WithAuditEvents(std::move(n), c.audit); },
      [&](Handler n) { return WithImpersonation(std::move(n), *c.authorizer); },
      [&](Handler n) {
        if (c.apf) return WithPriorityAndFairness(std::move(n), *c.apf, c.request_timeout, *c.metrics);
        return WithMaxInFlight(std::move(n), c.max_requests_inflight, c.max_mutating_requests_inflight, *c.metrics);
      },
      [&](Handler n) { return WithAuthorization(std::move(n), *c.authorizer, c.metrics); },
  };
  Handler h = std::move(inner);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) h = (*it)(std::move(h));
  return h;
}

}  // namespace capstan::server
