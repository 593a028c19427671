// server/filters/filters.h: the filters of kube-apiserver's DefaultBuildHandlerChain, one per file.
//
// Each filter wraps the next handler and returns a new one; server/handler_chain.cpp assembles them
// in order. Filters run on the request's I/O thread and keep no per-request state outside the
// RequestContext. The objects passed by reference must outlive the chain.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "auth/authn/authenticator.h"
#include "auth/authz/authorizer.h"
#include "server/http/request_context.h"
#include "util/metrics.h"

namespace capstan::server {

using http::Handler;

// panic_recovery.cpp: an exception escaping the chain is logged and answered with 500.
Handler WithPanicRecovery(Handler next);

// request_info.cpp: resolves RequestContext::info.
Handler WithRequestInfo(Handler next);

// cache_control.cpp: "Cache-Control: no-cache, private" on every response.
Handler WithCacheControl(Handler next);

// request_metrics.cpp: apiserver_request_total and apiserver_request_duration_seconds.
struct RequestMetrics {
  explicit RequestMetrics(MetricsRegistry& reg);
  CounterVec& requests;
  HistogramVec& durations;
  GaugeVec& inflight;  // apiserver_current_inflight_requests{request_kind}
};
Handler WithRequestMetrics(Handler next, RequestMetrics& m);

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
Handler WithTimeout(Handler next, std::chrono::nanoseconds request_timeout);

// cors.cpp: --cors-allowed-origins (regular expressions); no patterns: no CORS.
Handler WithCors(Handler next, const std::vector<std::string>& allowed_origin_patterns);

// authentication.cpp: sets RequestContext::user, or hands the request to `failed` (default:
// Unauthorized(), kube's 401 Status) when its credentials do not authenticate.
Handler WithAuthentication(Handler next, authn::RequestAuthenticator& authenticator, Handler failed = nullptr);
Handler Unauthorized();

// audit.cpp: gives every request an audit ID (the Audit-Id response header). The audit policy and
// backends plug in here.
Handler WithAudit(Handler next);

// impersonation.cpp: Impersonate-User/-Group/-Uid/-Extra-* headers, each checked with the
// "impersonate" verb against the authorizer.
Handler WithImpersonation(Handler next, authz::Authorizer& authorizer);

// max_inflight.cpp: --max-requests-inflight / --max-mutating-requests-inflight; 429 with Retry-After
// when full; long-running requests and system:masters are exempt.
Handler WithMaxInFlight(Handler next, int max_read_only, int max_mutating, RequestMetrics& m);

// authorization.cpp: 403 unless the authorizer allows the request.
Handler WithAuthorization(Handler next, authz::Authorizer& authorizer);

}  // namespace capstan::server
