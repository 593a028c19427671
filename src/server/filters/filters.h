// server/filters/filters.h: the filters of kube-apiserver's DefaultBuildHandlerChain, one per file.
//
// Each filter wraps the next handler and returns a new one; server/handler_chain.cpp lists them in
// execution order. Filters run on the request's I/O thread and keep no per-request state outside the
// RequestContext. The objects passed by reference must outlive the chain.
#pragma once

#include <atomic>
#include <boost/json/value.hpp>
#include <chrono>
#include <functional>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "auth/authn/authenticator.h"
#include "audit/recorder.h"
#include "auth/authz/authorizer.h"
#include "server/http/request_context.h"
#include "util/metrics.h"

namespace capstan::flowcontrol {
class Controller;
}

namespace capstan::server {

using http::Handler;

// panic_recovery.cpp: an exception escaping the chain is logged and answered with 500.
Handler WithPanicRecovery(Handler next);

// request_info.cpp: resolves RequestContext::info.
Handler WithRequestInfo(Handler next);

// probabilistic_goaway.cpp: --goaway-chance: with that probability an HTTP/2 request's response
// carries "Connection: close", which makes its connection send a graceful GOAWAY (server/http2_session.h).
// `random` (uniform in [0,1)) is for tests; null: a per-thread generator.
Handler WithProbabilisticGoaway(Handler next, double chance, std::function<double()> random = nullptr);

// cache_control.cpp: "Cache-Control: no-cache, private" on every response.
Handler WithCacheControl(Handler next);

// cache_control.cpp: kube's WithHSTS: Strict-Transport-Security with the directives joined by "; ".
Handler WithHsts(Handler next, const std::vector<std::string>& directives);

// request_metrics.cpp: kube's endpoints metrics: apiserver_request_total, _duration_seconds,
// _sli_duration_seconds (and the hidden _slo_), apiserver_response_sizes (GET and LIST),
// apiserver_longrunning_requests (open watches and connects) and apiserver_request_terminations_total.
struct RequestMetrics {
  explicit RequestMetrics(MetricsRegistry& reg);
  CounterVec& requests;
  HistogramVec& durations;
  HistogramVec& sli_durations;
  HistogramVec& slo_durations;
  bool slo_shown;  // the hidden SLO family is observed only when --show-hidden-metrics-for-version shows it
  HistogramVec& response_sizes;
  HistogramVec& request_body_sizes;  // apiserver_request_body_size_bytes{resource, verb}
  GaugeVec& longrunning;
  CounterVec& terminations;  // requests the server ended in self-defense (RecordRequestTermination)
  GaugeVec& inflight;        // apiserver_current_inflight_requests{request_kind}
  // The authentication and authorization filters' (kube's endpoints/filters/metrics.go).
  CounterVec& authenticated_users;  // authenticated_user_requests{username}, names compressed as kube's
  CounterVec& authentication_attempts;
  HistogramVec& authentication_durations;
  CounterVec& authorization_attempts;
  HistogramVec& authorization_durations;
};
Handler WithRequestMetrics(Handler next, RequestMetrics& m);
// apiserver_request_terminations_total: the filters that end a request in self-defense (the
// in-flight limits and APF with 429, the timeout with 504) record it here, as kube's
// RecordRequestTermination.
void RecordRequestTermination(RequestMetrics& m, const http::RequestContext& ctx, int code);

// wait_group.cpp: counts non-long-running requests so shutdown can wait for them; once shutdown has
// begun new ones get 503 "apiserver is shutting down" with Retry-After: 1.
class RequestWaitGroup {
 public:
  // False once closed, except for requests whose head arrived before the close (they were in flight).
  bool Add(std::chrono::steady_clock::time_point received);
  void Done();
  // Closes the group and waits until it is empty or the deadline passes. Returns true if drained.
  bool CloseAndWait(std::chrono::milliseconds timeout);
  int64_t count() const { return count_.load(); }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::atomic<int64_t> count_{0};
  bool closed_ = false;
  std::chrono::steady_clock::time_point closed_at_;
};
Handler WithWaitGroup(Handler next, RequestWaitGroup& wg);

// timeout.cpp: non-long-running requests get 504 after --request-timeout (or a shorter ?timeout=).
// With `metrics`, a 504 it sends is recorded as a termination.
Handler WithTimeout(Handler next, std::chrono::nanoseconds request_timeout, RequestMetrics* metrics = nullptr);

// cors.cpp: --cors-allowed-origins (regular expressions); no patterns: no CORS.
Handler WithCors(Handler next, const std::vector<std::string>& allowed_origin_patterns);

// authentication.cpp: sets RequestContext::user, or hands the request to `failed` (default:
// Unauthorized(), kube's 401 Status) when its credentials do not authenticate.
// With `metrics`, records authentication_attempts, authentication_duration_seconds and
// authenticated_user_requests.
Handler WithAuthentication(Handler next, authn::RequestAuthenticator& authenticator, Handler failed = nullptr,
                           RequestMetrics* metrics = nullptr);
Handler Unauthorized();

// audit_id.cpp: gives every request an audit ID (a client's Audit-ID header is kept), answered in the
// Audit-Id response header; kube's WithAuditInit.
Handler WithAuditId(Handler next);

// warning_recorder.cpp: the request scope's warnings become `Warning: 299 - "<text>"` response headers
// when the response starts (each text once); kube's WithWarningRecorder.
Handler WithWarningRecorder(Handler next);

// audit_events.cpp: kube's WithAudit. Evaluates the policy for each request and records the
// RequestReceived, ResponseStarted (long-running requests only), ResponseComplete and Panic stages
// (minus the policy's omitStages). The event carries what kube's does: auditID, requestURI, verb, user
// (the authenticated one; impersonatedUser once impersonation has run), sourceIPs, userAgent (truncated
// past 1024 bytes), objectRef (from the request info, and for create/update from the body's metadata),
// responseStatus (the code; the whole Status for Status responses), requestObject at Request level and
// above (the decoded body, or the patch), responseObject at RequestResponse, and annotations
// (authorization.k8s.io/decision and reason, and the request scope's at their levels). Bodies that
// are neither JSON nor YAML go through `decode` (protobuf).
struct AuditConfig {
  audit::Sink sink;  // disabled: the filters are no-ops
  std::function<std::optional<boost::json::value>(std::string_view content_type, std::string_view body)> decode;
  size_t max_response_capture_bytes = 8 * 1024 * 1024;  // larger responses are logged without the object
};
Handler WithAuditEvents(Handler next, AuditConfig config);
// kube's WithFailedAuthenticationAudit: wraps the 401 handler. When the policy audits the request
// (matched with no user), one ResponseStarted event with responseStatus {code: 401, message:
// FailedAuthenticationMessage}.
Handler WithFailedAuthenticationAudit(Handler failed, AuditConfig config);
// kube's text naming the credentials a request carried: "Authentication failed, attempted: basic,
// bearer, access_token, x509" or "..., no credentials provided".
std::string FailedAuthenticationMessage(const http::HttpRequest& request);
// The policy's view of a request that went through request info and authentication.
audit::RequestAttributes AuditAttributesOf(const http::RequestContext& ctx);

// impersonation.cpp: Impersonate-User/-Group/-Uid/-Extra-* headers, each checked with the
// "impersonate" verb against the authorizer.
Handler WithImpersonation(Handler next, authz::Authorizer& authorizer);

// max_inflight.cpp: --max-requests-inflight / --max-mutating-requests-inflight; 429 with Retry-After
// when full; long-running requests and system:masters are exempt.
Handler WithMaxInFlight(Handler next, int max_read_only, int max_mutating, RequestMetrics& m);

// priority_and_fairness.cpp: API Priority and Fairness in max-in-flight's place (kube's
// --enable-priority-and-fairness, on by default). Each request is classified and dispatched by `apf`
// (flowcontrol/controller.h); every answer names the matched FlowSchema and priority level in
// X-Kubernetes-PF-FlowSchema-UID / X-Kubernetes-PF-PriorityLevel-UID. A queued request waits at most
// a quarter of `request_timeout` (at most a minute) from its arrival; a rejected one gets kube's 429
// "Too many requests, please try again later." (text/plain) with the level's Retry-After. Watches
// hold their seats only until their response starts, and are registered with the controller's watch
// tracker while open (the write estimates); other long-running requests are not limited.
// apiserver_current_inflight_requests{request_kind} counts the requests executing.
Handler WithPriorityAndFairness(Handler next, flowcontrol::Controller& apf, std::chrono::nanoseconds request_timeout,
                                RequestMetrics& m);

// authorization.cpp: 403 unless the authorizer allows the request.
// With `metrics`, records authorization_attempts_total and authorization_duration_seconds.
Handler WithAuthorization(Handler next, authz::Authorizer& authorizer, RequestMetrics* metrics = nullptr);

}  // namespace capstan::server
