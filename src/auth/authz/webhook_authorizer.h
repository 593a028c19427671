// auth/authz/webhook_authorizer.h: the Webhook authorizer (kube's webhook.WebhookAuthorizer): each
// decision not answered from the cache is POSTed as an authorization.k8s.io SubjectAccessReview
// (--authorization-webhook-version v1, or v1beta1 whose spec names groups "group") to the server
// of its kubeconfig (--authorization-webhook-config-file, or connectionInfo in --authorization-config);
// status.allowed is Allow, status.denied Deny (both: Deny with kube's error), anything else no
// opinion, with status.reason. Answers are cached by the review's spec: allowed ones for the
// authorized TTL (5m), others for the unauthorized TTL (30s). A webhook with matchConditions is asked
// only when they all hold (webhook_match_conditions.h); an evaluation error, or a failed call
// (transport error, timeout, non-2xx after a retry), is the failurePolicy's decision (NoOpinion, or
// Deny: later authorizers are not asked) with the error, as kube's decisionOnError.
// Thread-safe.
#pragma once

#include <chrono>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "auth/authz/authorizer.h"
#include "auth/authz/authorizer_metrics.h"
#include "auth/authz/webhook_match_conditions.h"
#include "server/http/http_client.h"

namespace capstan::authz {

struct WebhookAuthzConfig {
  std::string name = "webhook";  // the authorizer's name in metrics
  std::string server;            // https URL
  std::string bearer_token;
  std::string version = "v1";
  std::chrono::milliseconds authorized_ttl{5 * 60 * 1000};
  std::chrono::milliseconds unauthorized_ttl{30 * 1000};
  std::chrono::milliseconds request_timeout{30000};
  int attempts = 5;  // kube's DefaultAuthWebhookRetryBackoff
  std::chrono::milliseconds initial_backoff{500};
  Decision decision_on_error = Decision::kNoOpinion;  // failurePolicy
  std::shared_ptr<const WebhookMatchConditions> match_conditions;  // null: every request
  const AuthorizerMetrics* metrics = nullptr;
};

class WebhookAuthorizer : public Authorizer {
 public:
  WebhookAuthorizer(WebhookAuthzConfig config, std::unique_ptr<http::HttpClient> client)
      : config_(std::move(config)), client_(std::move(client)) {}

  Task<Result> Authorize(const Attributes& a) override;
  // Webhooks cannot list rules (kube answers incomplete, no error).
  RulesResult RulesFor(const http::UserInfo&, const std::string&) const override {
    RulesResult r;
    r.incomplete = true;
    return r;
  }

  // The SubjectAccessReview sent for `a` (JSON text), exposed for tests.
  static std::string ReviewBody(const Attributes& a, const std::string& version);
  int64_t calls() const { return calls_.load(); }

 private:
  struct Cached {
    Result result;
    std::chrono::steady_clock::time_point expires;
  };
  WebhookAuthzConfig config_;
  std::unique_ptr<http::HttpClient> client_;
  std::mutex mu_;
  std::map<std::string, Cached> cache_;  // guarded by mu_; review body → answer
  std::atomic<int64_t> calls_{0};
};

}  // namespace capstan::authz
