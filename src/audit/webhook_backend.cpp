#include "audit/webhook_backend.h"

#include <boost/json.hpp>
#include <random>
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

Status WebhookBackend::Send(const std::vector<EventPtr>& events) {
  std::string body = EventListJson(events);
  thread_local std::mt19937_64 rng{std::random_device{}()};
  std::uniform_real_distribution<double> jitter(0, opts_.backoff_jitter);
  double backoff = static_cast<double>(opts_.initial_backoff.count());
  Status last;
  for (int attempt = 0; attempt < std::max(1, opts_.max_attempts); ++attempt) {
    if (attempt > 0) {
      // wait.Backoff.Step: the current duration with jitter, then the next one grows by the factor. On
      // the mode's own thread, never a request's.
      std::this_thread::sleep_for(std::chrono::nanoseconds(static_cast<int64_t>(backoff * (1 + jitter(rng)))));
      backoff *= opts_.backoff_factor;
    }
    http::ClientRequest req = http::JsonPost(opts_.url, body, opts_.bearer_token);
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

bool WebhookBackend::ProcessEvents(std::vector<EventPtr> events) {
  if (events.empty()) return true;
  Status st = Send(events);
  if (st.ok()) return true;
  HandlePluginError(metrics_, Name(), st.message(), events.size());
  return false;
}

}  // namespace capstan::audit
