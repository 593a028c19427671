#include "auth/authz/authorizer_metrics.h"

namespace capstan::authz {

namespace {

const std::vector<double> kDefBuckets = {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10};

}  // namespace

AuthorizerMetrics::AuthorizerMetrics(MetricsRegistry& r)
    : decisions(r.NewCounterVec("apiserver_authorization_decisions_total",
                                "Total number of terminal decisions made by an authorizer split by authorizer type, "
                                "name, and decision.",
                                {"type", "name", "decision"})),
      webhook_evaluations(r.NewCounterVec("apiserver_authorization_webhook_evaluations_total",
                                          "Round-trips to authorization webhooks.", {"name", "result"})),
      webhook_duration(r.NewHistogramVec("apiserver_authorization_webhook_duration_seconds", "Request latency in seconds.",
                                         {"name", "result"}, kDefBuckets)),
      webhook_fail_open(r.NewCounterVec("apiserver_authorization_webhook_evaluations_fail_open_total",
                                        "NoOpinion results due to webhook timeout or error.", {"name", "result"})),
      match_errors(r.NewCounterVec("apiserver_authorization_match_condition_evaluation_errors_total",
                                   "Total number of errors when an authorization webhook encounters a match condition "
                                   "error split by authorizer type and name.",
                                   {"type", "name"})),
      match_exclusions(r.NewCounterVec("apiserver_authorization_match_condition_exclusions_total",
                                       "Total number of exclusions when an authorization webhook is skipped because match "
                                       "conditions exclude it.",
                                       {"type", "name"})),
      match_seconds(r.NewHistogramVec("apiserver_authorization_match_condition_evaluation_seconds",
                                      "Authorization match condition evaluation time in seconds, split by authorizer "
                                      "type and name.",
                                      {"type", "name"}, {0.001, 0.005, 0.01, 0.025, 0.1, 0.2, 0.25})) {}

Task<Result> InstrumentedAuthorizer::Authorize(const Attributes& a) {
  Result r = co_await delegate_->Authorize(a);
  if (metrics_ && r.decision != Decision::kNoOpinion) {
    metrics_->decisions.With({type_, name_, r.decision == Decision::kAllow ? "allowed" : "denied"})->Inc();
  }
  co_return r;
}

}  // namespace capstan::authz
