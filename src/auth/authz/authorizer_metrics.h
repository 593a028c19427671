// auth/authz/authorizer_metrics.h: kube's authorization metric families, registered once per server
// and shared by every authorizer built from the configuration (also across reloads):
//   apiserver_authorization_decisions_total{type, name, decision}  (terminal decisions: allowed, denied)
//   apiserver_authorization_webhook_evaluations_total{name, result} (success, timeout, error, canceled)
//   apiserver_authorization_webhook_duration_seconds{name, result}
//   apiserver_authorization_webhook_evaluations_fail_open_total{name, result}
//   apiserver_authorization_match_condition_evaluation_errors_total{type, name}
//   apiserver_authorization_match_condition_exclusions_total{type, name}
//   apiserver_authorization_match_condition_evaluation_seconds{type, name}
// InstrumentedAuthorizer counts a delegate's decisions as kube's authorizationmetrics does.
// Thread-safe.
#pragma once

#include <memory>
#include <string>

#include "auth/authz/authorizer.h"
#include "util/metrics.h"

namespace capstan::authz {

struct AuthorizerMetrics {
  explicit AuthorizerMetrics(MetricsRegistry& r);
  CounterVec& decisions;
  CounterVec& webhook_evaluations;
  HistogramVec& webhook_duration;
  CounterVec& webhook_fail_open;
  CounterVec& match_errors;
  CounterVec& match_exclusions;
  HistogramVec& match_seconds;
};

class InstrumentedAuthorizer : public Authorizer {
 public:
  InstrumentedAuthorizer(std::string type, std::string name, std::shared_ptr<Authorizer> delegate,
                         const AuthorizerMetrics* metrics)
      : type_(std::move(type)), name_(std::move(name)), delegate_(std::move(delegate)), metrics_(metrics) {}
  Task<Result> Authorize(const Attributes& a) override;
  RulesResult RulesFor(const http::UserInfo& user, const std::string& namespace_) const override {
    return delegate_->RulesFor(user, namespace_);
  }

 private:
  std::string type_, name_;
  std::shared_ptr<Authorizer> delegate_;
  const AuthorizerMetrics* metrics_;  // null: not counted
};

}  // namespace capstan::authz
