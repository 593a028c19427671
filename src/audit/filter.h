// audit/filter.h: the audit filter's logic (kube's WithAudit): evaluates the policy for each request,
// records the RequestReceived, ResponseStarted (long-running requests only), ResponseComplete and
// Panic stages (minus the policy's omitStages) and hands them to the backend; and opens the request's
// RequestScope so admission can add warnings (written as Warning headers) and audit annotations.
//
// The event carries what kube's does: auditID, requestURI, verb, user (the authenticated one;
// impersonatedUser once impersonation has run), sourceIPs, userAgent (truncated past 1024 bytes),
// objectRef (from the request info, and for create/update from the body's metadata), responseStatus
// (the code; the whole Status for Status responses), requestObject at Request level and above (the
// decoded body, or the patch), responseObject at RequestResponse, timestamps with microseconds, and
// annotations (authorization.k8s.io/decision and reason, admission's). omitManagedFields drops
// metadata.managedFields from both objects. Bodies that are not JSON or YAML are decoded with the
// optional `decode` hook (protobuf).
//
// server/handler_chain.cpp installs it right after authentication; the audit-ID filter is outermost,
// so the Audit-Id header and the event's auditID agree. Thread-safety: the returned handler is safe to call
// concurrently; the config's pointers must outlive it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "audit/backend.h"
#include "audit/policy.h"
#include "audit/request_scope.h"
#include "server/http/request_context.h"

namespace capstan::audit {

struct FilterConfig {
  const Policy* policy = nullptr;  // null, or no backend: no events (scopes still open)
  Backend* backend = nullptr;
  AuditMetrics* metrics = nullptr;
  RequestScopes* scopes = nullptr;
  std::function<std::optional<boost::json::value>(std::string_view content_type, std::string_view body)> decode;
  size_t max_response_capture_bytes = 8 * 1024 * 1024;  // larger responses are logged without the object
};

http::Handler WithAuditEvents(http::Handler next, FilterConfig config);

// kube's WithFailedAuthenticationAudit: wraps the handler that answers a request whose credentials
// did not authenticate (the 401). When the policy audits the request (matched with no user), one
// ResponseStarted event is recorded with responseStatus {code: 401, message: "Authentication failed,
// attempted: bearer" / "..., no credentials provided"}, naming the kinds of credentials the request
// carried (basic, bearer, access_token, x509), as kube does.
http::Handler WithFailedAuthenticationAudit(http::Handler failed, FilterConfig config);

// kube's getAuthMethods text for a request that failed authentication.
std::string FailedAuthenticationMessage(const http::HttpRequest& request);

// The event's attributes for policy matching, from a request that went through request info and
// authentication.
RequestAttributes AttributesOf(const http::RequestContext& ctx);

}  // namespace capstan::audit
