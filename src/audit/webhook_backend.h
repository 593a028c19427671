// audit/webhook_backend.h: the audit webhook backend (--audit-webhook-config-file): batches of events
// POSTed as an audit.k8s.io/v1 EventList to the server the kubeconfig names.
//
// WebhookSink sends one batch per call, on the buffered backend's thread (MakeWebhookBackend puts it
// behind a BufferedBackend: --audit-webhook-batch-buffer-size, -batch-max-size, -batch-max-wait), and
// retries a failed POST (transport error or a non-2xx answer) with exponential backoff starting at
// --audit-webhook-initial-backoff, as kube's webhook backend does; a batch that still fails is
// dropped and counted. Requests never wait for it.
// Thread-safety: a sink is used by one thread at a time.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "audit/buffered_backend.h"
#include "server/http/http_client.h"

namespace capstan::audit {

struct WebhookOptions {
  std::string url;
  std::string bearer_token;
  std::chrono::milliseconds initial_backoff{10000};
  int max_attempts = 4;  // the first try and three retries
  std::chrono::seconds timeout{30};
  BufferedOptions buffer{10000, 400, std::chrono::milliseconds(30000)};
};

class WebhookSink : public EventSink {
 public:
  WebhookSink(std::unique_ptr<http::HttpClient> client, WebhookOptions opts)
      : client_(std::move(client)), opts_(std::move(opts)) {}
  Status Write(const std::vector<EventPtr>& batch) override;

 private:
  std::unique_ptr<http::HttpClient> client_;
  WebhookOptions opts_;
};

// The EventList body of a batch.
std::string EventListJson(const std::vector<EventPtr>& batch);

std::unique_ptr<Backend> MakeWebhookBackend(std::unique_ptr<http::HttpClient> client, WebhookOptions opts,
                                            AuditMetrics* metrics);

}  // namespace capstan::audit
