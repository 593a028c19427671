#include "audit/webhook_backend.h"

#include <boost/json.hpp>
#include <thread>

#include "apimachinery/json_write.h"
#include "util/task.h"

namespace capstan::audit {

std::string EventListJson(const std::vector<EventPtr>& batch) {
  std::string out = R"({"kind":"EventList","apiVersion":"audit.k8s.io/v1","metadata":{},"items":[)";
  for (size_t i = 0; i < batch.size(); ++i) {
    if (i) out.push_back(',');
    apimachinery::AppendJson(out, EventToJson(*batch[i]));
  }
  out += "]}";
  return out;
}

Status WebhookSink::Write(const std::vector<EventPtr>& batch) {
  std::string body = EventListJson(batch);
  auto backoff = opts_.initial_backoff;
  Status last;
  for (int attempt = 0; attempt < std::max(1, opts_.max_attempts); ++attempt) {
    if (attempt > 0) {
      std::this_thread::sleep_for(backoff);  // the backend's own thread, never a request's
      backoff *= 2;
    }
    http::ClientRequest req;
    req.method = "POST";
    req.url = opts_.url;
    req.headers.Set("Content-Type", "application/json");
    req.headers.Set("Accept", "application/json, */*");
    if (!opts_.bearer_token.empty()) req.headers.Set("Authorization", "Bearer " + opts_.bearer_token);
    req.body = body;
    req.timeout = opts_.timeout;
    auto resp = SyncWait(client_->Do(std::move(req)));
    if (!resp.ok()) {
      last = resp.status();
      continue;
    }
    if (resp->status >= 200 && resp->status <= 299) return Status();
    last = Status(resp->status, "InternalError",
                  "the server responded with the status code " + std::to_string(resp->status));
  }
  return last;
}

std::unique_ptr<Backend> MakeWebhookBackend(std::unique_ptr<http::HttpClient> client, WebhookOptions opts,
                                            AuditMetrics* metrics) {
  BufferedOptions buffer = opts.buffer;
  return std::make_unique<BufferedBackend>("webhook", std::make_unique<WebhookSink>(std::move(client), std::move(opts)),
                                           buffer, metrics);
}

}  // namespace capstan::audit
