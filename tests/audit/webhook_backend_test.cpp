#include "audit/webhook_backend.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace capstan::audit {
namespace {

class FakeClient : public http::HttpClient {
 public:
  Task<StatusOr<http::ClientResponse>> Do(http::ClientRequest req) override {
    requests.push_back(req);
    if (failures > 0) {
      --failures;
      co_return Status(503, "ServiceUnavailable", "Post \"" + req.url + "\": connection refused");
    }
    http::ClientResponse r;
    r.status = status;
    co_return r;
  }
  std::vector<http::ClientRequest> requests;
  int failures = 0;
  int status = 200;
};

EventPtr MakeEvent(const std::string& id) {
  auto e = std::make_shared<Event>();
  e->level = Level::kMetadata;
  e->audit_id = id;
  e->stage = Stage::kResponseComplete;
  return e;
}

WebhookOptions Options() {
  WebhookOptions o;
  o.url = "https://audit.example/events";
  o.bearer_token = "t0ken";
  o.initial_backoff = std::chrono::milliseconds(1);
  o.max_attempts = 3;
  return o;
}

TEST(WebhookSinkTest, PostsAnEventListAndRetries) {
  auto client = std::make_unique<FakeClient>();
  FakeClient* c = client.get();
  c->failures = 2;
  WebhookSink sink(std::move(client), Options());
  ASSERT_TRUE(sink.Write({MakeEvent("a"), MakeEvent("b")}).ok());
  ASSERT_EQ(c->requests.size(), 3u);
  const auto& req = c->requests.back();
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.url, "https://audit.example/events");
  EXPECT_EQ(req.headers.Get("Authorization"), "Bearer t0ken");
  auto list = boost::json::parse(req.body).as_object();
  EXPECT_EQ(list["kind"].as_string(), "EventList");
  EXPECT_EQ(list["apiVersion"].as_string(), "audit.k8s.io/v1");
  ASSERT_EQ(list["items"].as_array().size(), 2u);
  EXPECT_EQ(list["items"].as_array()[1].as_object()["auditID"].as_string(), "b");
}

TEST(WebhookSinkTest, GivesUpAfterMaxAttemptsAndTheBatchIsCountedAsDropped) {
  MetricsRegistry reg;
  AuditMetrics metrics(reg);
  auto client = std::make_unique<FakeClient>();
  FakeClient* c = client.get();
  c->status = 500;
  auto opts = Options();
  opts.buffer = BufferedOptions{100, 10, std::chrono::milliseconds(1)};
  auto backend = MakeWebhookBackend(std::move(client), opts, &metrics);
  backend->ProcessEvents({MakeEvent("x")});
  backend->Shutdown();
  EXPECT_EQ(c->requests.size(), 3u);
  EXPECT_EQ(metrics.errors.Find({"webhook"})->Value(), 1.0);
}

}  // namespace
}  // namespace capstan::audit
