// server/handler_chain.h: kube-apiserver's filter chain around the router, assembled in one place
// (handler_chain.cpp lists the filters in execution order, outermost first).
#pragma once

#include <chrono>
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
  // API Priority and Fairness; null: the max-in-flight limits instead (--enable-priority-and-fairness=false).
  flowcontrol::Controller* apf = nullptr;
  double goaway_chance = 0;  // --goaway-chance; 0: no filter
  std::vector<std::string> hsts_directives;  // --strict-transport-security-directives; empty: no header
  AuditConfig audit;  // sink disabled: no audit events
};

// The root handler: the filters in execution order around `inner` (the router).
http::Handler BuildHandlerChain(http::Handler inner, const ChainConfig& config);

}  // namespace capstan::server
