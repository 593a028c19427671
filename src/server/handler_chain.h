// server/handler_chain.h: assembles kube-apiserver's filter chain around the router, in one place.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "server/filters/filters.h"

namespace capstan::server {

struct ChainConfig {
  authn::RequestAuthenticator* authenticator = nullptr;
  authz::Authorizer* authorizer = nullptr;
  RequestMetrics* metrics = nullptr;
  RequestWaitGroup* wait_group = nullptr;
  std::chrono::nanoseconds request_timeout = std::chrono::seconds(60);
  std::vector<std::string> cors_allowed_origins;
  int max_requests_inflight = 400;
  int max_mutating_requests_inflight = 200;
  // The audit events filter (audit/filter.h), installed right after the audit-ID filter; none: no
  // events. A function so the server does not depend on the audit library.
  std::function<http::Handler(http::Handler)> audit;
  // Wraps the 401 handler of authentication to audit failed attempts (kube's
  // WithFailedAuthenticationAudit); none: not audited.
  std::function<http::Handler(http::Handler)> failed_authentication_audit;
};

// The root handler: the filters in execution order around `inner` (the router).
http::Handler BuildHandlerChain(http::Handler inner, const ChainConfig& config);

}  // namespace capstan::server
