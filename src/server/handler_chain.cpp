#include "server/handler_chain.h"

namespace capstan::server {

http::Handler BuildHandlerChain(http::Handler inner, const ChainConfig& c) {
  // Wrapped innermost first, so the list reads bottom-up; execution order (outermost first) is:
  //   audit ID → panic recovery → request info → request metrics → cache control → wait group →
  //   timeout → CORS → authentication (failures audited) → audit → impersonation → max in-flight →
  //   authorization → router
  // which is kube-apiserver's DefaultBuildHandlerChain (WithAuditInit outermost, so every answer,
  // a 401 or a 429 too, carries the Audit-Id header).
  http::Handler h = std::move(inner);
  h = WithAuthorization(std::move(h), *c.authorizer);
  h = WithMaxInFlight(std::move(h), c.max_requests_inflight, c.max_mutating_requests_inflight, *c.metrics);
  h = WithImpersonation(std::move(h), *c.authorizer);
  if (c.audit) h = c.audit(std::move(h));  // policy, events, admission's warnings and annotations
  Handler failed = Unauthorized();
  if (c.failed_authentication_audit) failed = c.failed_authentication_audit(std::move(failed));
  h = WithAuthentication(std::move(h), *c.authenticator, std::move(failed));
  h = WithCors(std::move(h), c.cors_allowed_origins);
  h = WithTimeout(std::move(h), c.request_timeout);
  h = WithWaitGroup(std::move(h), *c.wait_group);
  h = WithCacheControl(std::move(h));
  h = WithRequestMetrics(std::move(h), *c.metrics);
  h = WithRequestInfo(std::move(h));
  h = WithPanicRecovery(std::move(h));
  h = WithAudit(std::move(h));
  return h;
}

}  // namespace capstan::server
