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
  return o;
}

TEST(WebhookBackendTest, PostsAnEventListAndRetries) {
  auto client = std::make_unique<FakeClient>();
  FakeClient* c = client.get();
  c->failures = 4;
  WebhookBackend backend(std::move(client), Options(), nullptr);
  ASSERT_TRUE(backend.ProcessEvents({MakeEvent("a"), MakeEvent("b")}));
  ASSERT_EQ(c->requests.size(), 5u);  // kube's five tries
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

TEST(WebhookBackendTest, GivesUpAfterFiveTriesAndTheEventsAreCounted) {
  MetricsRegistry reg;
  AuditMetrics metrics(reg);
  auto client = std::make_unique<FakeClient>();
  FakeClient* c = client.get();
  c->status = 500;
  WebhookBackend backend(std::move(client), Options(), &metrics);
  EXPECT_FALSE(backend.ProcessEvents({MakeEvent("x"), MakeEvent("y")}));
  EXPECT_EQ(c->requests.size(), 5u);
  EXPECT_EQ(metrics.errors.Find({"webhook"})->Value(), 2.0);
}

}  // namespace
}  // namespace capstan::audit
