// audit/webhook_backend.h: kube's audit webhook backend (--audit-webhook-config-file): each call POSTs
// its events as one audit.k8s.io/v1 EventList to the server the kubeconfig names.
//
// A failed POST (a transport error or a non-2xx answer) is retried as kube's GenericWebhook does with
// --audit-webhook-initial-backoff: up to five tries, waiting initial_backoff × 1.5^n, each wait up to
// 20% longer at random. When every try fails the events are counted in
// apiserver_audit_error_total{plugin="webhook"} and the outcome is false. ProcessEvents blocks the
// calling thread for the whole exchange: the modes (batch, blocking) call it on their own threads.
// Thread-safety: ProcessEvents from any thread, concurrently.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "audit/backend.h"
#include "server/http/http_client.h"

namespace capstan::audit {

struct WebhookOptions {
  std::string url;
  std::string bearer_token;
  std::chrono::nanoseconds initial_backoff = std::chrono::seconds(10);
  int max_attempts = 5;  // kube's DefaultRetryBackoffWithInitialDelay: Steps 5
  double backoff_factor = 1.5;
  double backoff_jitter = 0.2;
  std::chrono::seconds timeout{30};
};

class WebhookBackend : public Backend {
 public:
  WebhookBackend(std::unique_ptr<http::HttpClient> client, WebhookOptions opts, AuditMetrics* metrics)
      : client_(std::move(client)), opts_(std::move(opts)), metrics_(metrics) {}
  bool ProcessEvents(std::vector<EventPtr> events) override;
  void Shutdown() override {}
  std::string Name() const override { return "webhook"; }
  // One POST with its retries; the last failure when none succeeded.
  Status Send(const std::vector<EventPtr>& events);

 private:
  std::unique_ptr<http::HttpClient> client_;
  const WebhookOptions opts_;
  AuditMetrics* metrics_;
};

// The EventList body of a batch.
std::string EventListJson(const std::vector<EventPtr>& batch);

}  // namespace capstan::audit
