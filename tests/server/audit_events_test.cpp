#include "server/filters/filters.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "fakes/fake_response_writer.h"
#include "util/task.h"

namespace capstan::server {
namespace {

using audit::Backend;
using audit::Event;
using audit::EventPtr;
using audit::Level;
using audit::Policy;
using audit::Stage;

using capstan::testing::FakeResponseWriter;
using capstan::testing::MakeContext;

class RecordingBackend : public Backend {
 public:
  bool ProcessEvents(std::vector<EventPtr> events) override {
    for (auto& e : events) this->events.push_back(e);
    return !fail;
  }
  bool fail = false;
  void Shutdown() override {}
  std::string Name() const override { return "recording"; }
  std::vector<EventPtr> events;
};

struct Fixture {
  explicit Fixture(Level level, std::string policy_text = "")
      : policy(policy_text.empty() ? Policy::AllAt(level) : *Policy::Load(policy_text)), metrics(reg) {
    cfg.sink.policy = &policy;
    cfg.sink.backend = &backend;
    cfg.sink.metrics = &metrics;
  }
  Policy policy;
  MetricsRegistry reg;
  audit::AuditMetrics metrics;
  RecordingBackend backend;
  AuditConfig cfg;
};

http::Handler Json(int status, std::string body) {
  return [status, body](http::RequestContext& ctx) -> Task<void> {
    http::HttpResponse r;
    r.status = status;
    r.headers.Set("Content-Type", "application/json");
    r.body = body;
    co_await ctx.writer->Respond(std::move(r));
  };
}

std::unique_ptr<http::RequestContext> Ctx(const std::string& method, const std::string& target, http::ResponseWriter& w) {
  auto ctx = MakeContext(method, target, w);
  ctx->user = UserInfo{"alice", "", {"devs", "system:authenticated"}, {}};
  ctx->audit_id = "audit-1";
  ctx->request.remote_addr = "127.0.0.1:40000";
  ctx->request.headers.Set("User-Agent", "kubectl/v1.31.0 (linux/amd64)");
  return ctx;
}

TEST(AuditFilterTest, MetadataLevelRecordsReceivedAndCompleteWithoutObjects) {
  Fixture f(Level::kMetadata);
  FakeResponseWriter w;
  auto ctx = Ctx("POST", "/api/v1/namespaces/default/configmaps", w);
  ctx->request.headers.Set("Content-Type", "application/json");
  ctx->request.body = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm1"}})";
  ctx->authorization_decision = "allow";
  auto h = WithAuditEvents(Json(201, R"({"kind":"ConfigMap","metadata":{"name":"cm1"}})"), f.cfg);
  SyncWait(h(*ctx));
  EXPECT_EQ(w.status(), 201);
  ASSERT_EQ(f.backend.events.size(), 2u);
  const Event& rr = *f.backend.events[0];
  const Event& rc = *f.backend.events[1];
  EXPECT_EQ(rr.stage, Stage::kRequestReceived);
  EXPECT_FALSE(rr.response_status);
  EXPECT_EQ(rc.stage, Stage::kResponseComplete);
  EXPECT_EQ(rc.audit_id, "audit-1");
  EXPECT_EQ(rc.verb, "create");
  EXPECT_EQ(rc.user.name, "alice");
  EXPECT_EQ(rc.source_ips, std::vector<std::string>({"127.0.0.1"}));
  EXPECT_EQ(rc.user_agent, "kubectl/v1.31.0 (linux/amd64)");
  ASSERT_TRUE(rc.object_ref);
  EXPECT_EQ(rc.object_ref->resource, "configmaps");
  EXPECT_EQ(rc.object_ref->namespace_, "default");
  EXPECT_EQ(rc.object_ref->name, "cm1");  // from the body, as kube's LogRequestObject
  EXPECT_EQ(rc.object_ref->api_version, "v1");
  EXPECT_EQ(boost::json::serialize(*rc.response_status), R"({"metadata":{},"code":201})");
  EXPECT_FALSE(rc.request_object);
  EXPECT_FALSE(rc.response_object);
  EXPECT_EQ(rc.annotations.at("authorization.k8s.io/decision"), "allow");
  EXPECT_EQ(f.metrics.events.Value(), 2.0);
  EXPECT_EQ(f.metrics.levels.Find({"Metadata"})->Value(), 1.0);
}

TEST(AuditFilterTest, RequestResponseLevelRecordsBothObjectsWithoutManagedFields) {
  Fixture f(Level::kNone, R"(
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: RequestResponse
  omitManagedFields: true
)");
  FakeResponseWriter w;
  auto ctx = Ctx("PUT", "/api/v1/namespaces/default/configmaps/cm1", w);
  ctx->request.headers.Set("Content-Type", "application/json");
  ctx->request.body = R"({"kind":"ConfigMap","metadata":{"name":"cm1","managedFields":[{"manager":"x"}]}})";
  auto h = WithAuditEvents(Json(200, R"({"kind":"ConfigMap","metadata":{"name":"cm1","managedFields":[]},"data":{"a":"b"}})"),
                           f.cfg);
  SyncWait(h(*ctx));
  ASSERT_EQ(f.backend.events.size(), 1u);
  const Event& e = *f.backend.events[0];
  EXPECT_EQ(e.level, Level::kRequestResponse);
  ASSERT_TRUE(e.request_object);
  EXPECT_EQ(boost::json::serialize(*e.request_object), R"({"kind":"ConfigMap","metadata":{"name":"cm1"}})");
  ASSERT_TRUE(e.response_object);
  EXPECT_EQ(boost::json::serialize(*e.response_object), R"({"kind":"ConfigMap","metadata":{"name":"cm1"},"data":{"a":"b"}})");
}

TEST(AuditFilterTest, StatusResponsesAreCopiedIntoResponseStatus) {
  Fixture f(Level::kMetadata);
  FakeResponseWriter w;
  auto ctx = Ctx("GET", "/api/v1/namespaces/default/configmaps/nope", w);
  auto h = WithAuditEvents(Json(404, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404})"),
                           f.cfg);
  SyncWait(h(*ctx));
  ASSERT_EQ(f.backend.events.size(), 2u);
  EXPECT_EQ(boost::json::serialize(*f.backend.events[1]->response_status),
            R"({"metadata":{},"status":"Failure","message":"configmaps \"nope\" not found","reason":"NotFound","details":{"name":"nope","kind":"configmaps"},"code":404})");
}

// blocking-strict: a RequestReceived event the backend could not store fails the request before the
// handler runs, with kube's plain-text InternalError; the other stages' failures do not matter.
TEST(AuditFilterTest, AFailedRequestReceivedWriteFailsTheRequest) {
  Fixture f(Level::kMetadata);
  f.backend.fail = true;
  FakeResponseWriter w;
  auto ctx = Ctx("GET", "/api/v1/namespaces/default/configmaps?a=<b>&c", w);
  bool called = false;
  http::Handler next = [&called](http::RequestContext& ctx) -> Task<void> {
    called = true;
    co_await ctx.writer->Respond(http::HttpResponse{});
  };
  SyncWait(WithAuditEvents(next, f.cfg)(*ctx));
  EXPECT_FALSE(called);
  EXPECT_EQ(w.status(), 500);
  EXPECT_EQ(w.body,
            "Internal Server Error: \"/api/v1/namespaces/default/configmaps?a=&lt;b&gt;&amp;c\": failed to store audit "
            "event\n");
  EXPECT_EQ(f.metrics.rejected.Value(), 1.0);
  ASSERT_EQ(f.backend.events.size(), 1u);  // the RequestReceived attempt only

  Fixture omitted(Level::kNone, "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\n"
                                "rules:\n- level: Metadata\n");
  omitted.backend.fail = true;
  FakeResponseWriter w2;
  auto ctx2 = Ctx("GET", "/api/v1/namespaces", w2);
  SyncWait(WithAuditEvents(Json(200, "{}"), omitted.cfg)(*ctx2));
  EXPECT_EQ(w2.status(), 200);  // nothing at RequestReceived to fail; ResponseComplete failures are only counted
  EXPECT_EQ(omitted.metrics.rejected.Value(), 0.0);
}

TEST(AuditFilterTest, NoneLevelRecordsNothing) {
  Fixture f(Level::kNone);
  FakeResponseWriter w;
  auto ctx = Ctx("POST", "/api/v1/namespaces/default/configmaps", w);
  SyncWait(WithAuditEvents(Json(201, "{}"), f.cfg)(*ctx));
  EXPECT_EQ(w.status(), 201);
  EXPECT_TRUE(f.backend.events.empty());
  EXPECT_EQ(f.metrics.levels.Find({"None"})->Value(), 1.0);
}

TEST(WarningRecorderTest, TheScopesWarningsBecomeWarningHeadersOnce) {
  FakeResponseWriter w;
  auto ctx = Ctx("POST", "/api/v1/namespaces/default/configmaps", w);
  http::Handler h = [](http::RequestContext& ctx) -> Task<void> {
    ctx.scope.AddWarning("the \"x\" label is deprecated");
    ctx.scope.AddWarning("the \"x\" label is deprecated");
    ctx.scope.AddWarning("second");
    co_await Json(201, "{}")(ctx);
  };
  SyncWait(WithWarningRecorder(h)(*ctx));
  auto all = w.headers.GetAll("Warning");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0], "299 - \"the \\\"x\\\" label is deprecated\"");
  EXPECT_EQ(all[1], "299 - \"second\"");
  EXPECT_EQ(ctx->writer, &w);  // the writer is the connection's again
}

TEST(WarningRecorderTest, TheWriterIsRestoredWhenTheHandlerThrows) {
  FakeResponseWriter w;
  auto ctx = Ctx("GET", "/api/v1/pods", w);
  http::Handler h = [](http::RequestContext&) -> Task<void> {
    throw std::runtime_error("boom");
    co_return;
  };
  EXPECT_THROW(SyncWait(WithWarningRecorder(h)(*ctx)), std::runtime_error);
  EXPECT_EQ(ctx->writer, &w);
}

TEST(AuditFilterTest, AdmissionAnnotationsRespectTheirLevel) {
  Fixture f(Level::kMetadata);
  FakeResponseWriter w;
  auto ctx = Ctx("POST", "/api/v1/namespaces/default/configmaps", w);
  http::Handler h = [](http::RequestContext& ctx) -> Task<void> {
    ctx.scope.AddAnnotation("mutation.webhook.admission.k8s.io/round_0_index_0", "{}", Level::kMetadata);
    ctx.scope.AddAnnotation("patch.webhook.admission.k8s.io/round_0_index_0", "{}", Level::kRequest);
    co_await Json(201, "{}")(ctx);
  };
  SyncWait(WithAuditEvents(h, f.cfg)(*ctx));
  ASSERT_EQ(f.backend.events.size(), 2u);
  const auto& an = f.backend.events[1]->annotations;
  EXPECT_TRUE(an.count("mutation.webhook.admission.k8s.io/round_0_index_0"));
  EXPECT_FALSE(an.count("patch.webhook.admission.k8s.io/round_0_index_0"));
}

TEST(AuditFilterTest, WatchesGetResponseStartedAndImpersonationIsRecorded) {
  Fixture f(Level::kMetadata);
  FakeResponseWriter w;
  auto ctx = Ctx("GET", "/api/v1/namespaces/default/configmaps?watch=true", w);
  http::Handler h = [](http::RequestContext& ctx) -> Task<void> {
    ctx.impersonator = ctx.user;
    ctx.user = UserInfo{"bob", "", {"system:authenticated"}, {}};
    co_await ctx.writer->StartStream(200, {});
    co_await ctx.writer->WriteChunk("{}");
    co_await ctx.writer->EndStream();
  };
  SyncWait(WithAuditEvents(h, f.cfg)(*ctx));
  ASSERT_EQ(f.backend.events.size(), 3u);
  EXPECT_EQ(f.backend.events[1]->stage, Stage::kResponseStarted);
  EXPECT_EQ(f.backend.events[2]->stage, Stage::kResponseComplete);
  EXPECT_EQ(f.backend.events[2]->verb, "watch");
  EXPECT_EQ(f.backend.events[2]->user.name, "alice");
  ASSERT_TRUE(f.backend.events[2]->impersonated_user);
  EXPECT_EQ(f.backend.events[2]->impersonated_user->name, "bob");
}

TEST(AuditFilterTest, PanicStageThenRethrow) {
  Fixture f(Level::kMetadata);
  FakeResponseWriter w;
  auto ctx = Ctx("GET", "/api/v1/pods", w);
  http::Handler h = [](http::RequestContext&) -> Task<void> {
    throw std::runtime_error("boom");
    co_return;
  };
  EXPECT_THROW(SyncWait(WithAuditEvents(h, f.cfg)(*ctx)), std::runtime_error);
  EXPECT_EQ(ctx->writer, &w);
  ASSERT_EQ(f.backend.events.size(), 2u);
  EXPECT_EQ(f.backend.events[1]->stage, Stage::kPanic);
  EXPECT_EQ(f.backend.events[1]->response_status->at("message").as_string(), "APIServer panic'd: boom");
}

TEST(AuditFilterTest, FailedAuthenticationIsOneResponseStartedEventNamingTheCredentials) {
  Fixture f(Level::kRequestResponse);
  FakeResponseWriter w;
  auto ctx = Ctx("GET", "/api/v1/namespaces/default/configmaps", w);
  ctx->user.reset();
  ctx->request.headers.Set("Authorization", "Bearer not-a-token");
  auto h = WithFailedAuthenticationAudit(Json(401, R"({"kind":"Status","code":401})"), f.cfg);
  SyncWait(h(*ctx));
  EXPECT_EQ(w.status(), 401);
  ASSERT_EQ(f.backend.events.size(), 1u);
  const Event& e = *f.backend.events[0];
  EXPECT_EQ(e.stage, Stage::kResponseStarted);
  EXPECT_EQ(e.level, Level::kRequestResponse);
  EXPECT_EQ(e.audit_id, "audit-1");
  EXPECT_EQ(e.verb, "list");
  EXPECT_TRUE(e.user.name.empty());
  EXPECT_EQ(boost::json::serialize(*e.response_status),
            R"({"metadata":{},"message":"Authentication failed, attempted: bearer","code":401})");
  EXPECT_FALSE(e.request_object);
  EXPECT_FALSE(e.response_object);
}

TEST(AuditFilterTest, FailedAuthenticationFollowsThePolicyMatchedWithNoUser) {
  // A rule for a user never matches a request that did not authenticate; the catch-all None wins.
  Fixture f(Level::kNone, R"(apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  users: ["alice"]
- level: None
)");
  FakeResponseWriter w;
  auto ctx = Ctx("GET", "/api/v1/namespaces", w);
  ctx->user.reset();
  SyncWait(WithFailedAuthenticationAudit(Json(401, "{}"), f.cfg)(*ctx));
  EXPECT_EQ(w.status(), 401);
  EXPECT_TRUE(f.backend.events.empty());
}

TEST(AuditFilterTest, FailedAuthenticationMessagesAsKubeWritesThem) {
  http::HttpRequest r;
  EXPECT_EQ(FailedAuthenticationMessage(r), "Authentication failed, no credentials provided");
  r.headers.Set("Authorization", "Basic " + std::string("dXNlcjpwYXNz"));  // user:pass
  EXPECT_EQ(FailedAuthenticationMessage(r), "Authentication failed, attempted: basic");
  r.headers.Set("Authorization", "bearer  abc");
  r.peer_certs_der.push_back("der");
  EXPECT_EQ(FailedAuthenticationMessage(r), "Authentication failed, attempted: bearer, x509");
  r.headers.Set("Authorization", "Bearer");  // no token after the scheme: not a bearer attempt
  EXPECT_EQ(FailedAuthenticationMessage(r), "Authentication failed, attempted: x509");
}

}  // namespace
}  // namespace capstan::server
