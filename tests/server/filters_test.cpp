#include "server/filters/filters.h"

#include <gtest/gtest.h>

#include "fakes/fake_response_writer.h"
#include "server/http/responses.h"
#include "util/async.h"
#include "util/timer.h"

namespace capstan::server {
namespace {

using capstan::testing::FakeResponseWriter;
using capstan::testing::MakeContext;

http::Handler Ok() {
  return [](http::RequestContext& ctx) -> Task<void> { co_await http::RespondText(ctx, "ok"); };
}

TEST(TimeoutFilterTest, SlowRequestGets504AndHandlerLateWriteIsDropped) {
  bool handler_finished = false;
  http::Handler slow = [&](http::RequestContext& ctx) -> Task<void> {
    co_await SleepFor(std::chrono::milliseconds(300));
    handler_finished = true;
    co_await http::RespondText(ctx, "late");
  };
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/api/v1/pods", w);
  MetricsRegistry reg;
  RequestMetrics m(reg);
  SyncWait(WithTimeout(slow, std::chrono::milliseconds(50), &m)(*ctx));
  EXPECT_EQ(w.status(), 504);
  // Recorded as a termination, as kube's RecordRequestTermination.
  EXPECT_NE(reg.Expose().find("apiserver_request_terminations_total{code=\"504\",component=\"apiserver\",group=\"\","
                              "resource=\"pods\",scope=\"cluster\",subresource=\"\",verb=\"LIST\",version=\"v1\"} 1"),
            std::string::npos)
      << reg.Expose();
  EXPECT_NE(w.body.find("\"reason\":\"Timeout\""), std::string::npos) << w.body;
  EXPECT_TRUE(handler_finished);  // the filter waited for the handler before releasing the context
  EXPECT_TRUE(ctx->cancel.cancelled());
}

TEST(TimeoutFilterTest, ShorterTimeoutParameterApplies) {
  http::Handler slow = [](http::RequestContext& ctx) -> Task<void> {
    co_await SleepFor(std::chrono::milliseconds(300));
    co_await http::RespondText(ctx, "late");
  };
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/api/v1/pods?timeout=20ms", w);
  SyncWait(WithTimeout(slow, std::chrono::seconds(60))(*ctx));
  EXPECT_EQ(w.status(), 504);
}

TEST(TimeoutFilterTest, BadTimeoutParameterIs400) {
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/api/v1/pods?timeout=soon", w);
  SyncWait(WithTimeout(Ok(), std::chrono::seconds(60))(*ctx));
  EXPECT_EQ(w.status(), 400);
  EXPECT_NE(w.body.find("invalid timeout specified in the request URL"), std::string::npos);
}

TEST(TimeoutFilterTest, WatchesAreNotTimedOut) {
  http::Handler slow = [](http::RequestContext& ctx) -> Task<void> {
    co_await SleepFor(std::chrono::milliseconds(80));
    co_await http::RespondText(ctx, "done");
  };
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/api/v1/pods?watch=true", w);
  SyncWait(WithTimeout(slow, std::chrono::milliseconds(10))(*ctx));
  EXPECT_EQ(w.status(), 200);
}

TEST(MaxInFlightTest, ExcessRequestGets429WithRetryAfter) {
  MetricsRegistry reg;
  RequestMetrics m(reg);
  AsyncEvent release;
  http::Handler blocking = [&](http::RequestContext& ctx) -> Task<void> {
    co_await release.Wait();
    co_await http::RespondText(ctx, "ok");
  };
  http::Handler h = WithMaxInFlight(blocking, 1, 1, m);
  FakeResponseWriter w1, w2;
  auto c1 = MakeContext("GET", "/api/v1/pods", w1);
  auto c2 = MakeContext("GET", "/api/v1/pods", w2);
  auto loop = std::make_shared<LocalLoop>();
  ExecutorScope scope(loop);
  bool first_done = false;
  SpawnThen(h(*c1), [&] { first_done = true; });
  EXPECT_EQ(m.inflight.Find({"readOnly"})->Value(), 1);
  SyncWait(h(*c2));
  EXPECT_EQ(w2.status(), 429);
  EXPECT_EQ(w2.headers.Get("Retry-After"), "1");
  EXPECT_NE(reg.Expose().find("apiserver_request_terminations_total{code=\"429\""), std::string::npos) << reg.Expose();
  release.Set();
  while (!first_done) {
    loop->Post([&] { loop->Stop(); });
    loop->Run();
  }
  EXPECT_EQ(w1.status(), 200);
  EXPECT_EQ(m.inflight.Find({"readOnly"})->Value(), 0);
}

TEST(CorsTest, AllowedOriginGetsHeadersAndPreflightIs204) {
  http::Handler h = WithCors(Ok(), {"//example\\.com$"});
  FakeResponseWriter w;
  auto ctx = MakeContext("OPTIONS", "/api", w);
  ctx->request.headers.Add("Origin", "https://example.com");
  SyncWait(h(*ctx));
  EXPECT_EQ(w.status(), 204);
  EXPECT_EQ(w.headers.Get("Access-Control-Allow-Origin"), "https://example.com");
  EXPECT_EQ(w.headers.Get("Access-Control-Allow-Credentials"), "true");

  FakeResponseWriter w2;
  auto other = MakeContext("GET", "/api", w2);
  other->request.headers.Add("Origin", "https://evil.example.org");
  SyncWait(h(*other));
  EXPECT_EQ(w2.status(), 200);
  EXPECT_FALSE(w2.headers.Has("Access-Control-Allow-Origin"));
}

class RecordingAuthorizer : public authz::Authorizer {
 public:
  Task<authz::Result> Authorize(const authz::Attributes& a) override {
    seen.push_back(a);
    if (a.verb == "impersonate" && a.resource == "users" && a.name == "forbidden") {
      co_return authz::Result{authz::Decision::kNoOpinion, ""};
    }
    co_return authz::Result{authz::Decision::kAllow, ""};
  }
  std::vector<authz::Attributes> seen;
};

TEST(ImpersonationTest, ImpersonatesServiceAccountWithItsGroups) {
  RecordingAuthorizer az;
  std::optional<http::UserInfo> seen_user;
  http::Handler inner = [&](http::RequestContext& ctx) -> Task<void> {
    seen_user = ctx.user;
    co_await http::RespondText(ctx, "ok");
  };
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/api/v1/pods", w);
  ctx->user = http::UserInfo{"admin", "", {"system:masters", "system:authenticated"}, {}};
  ctx->request.headers.Add("Impersonate-User", "system:serviceaccount:ns1:robot");
  ctx->request.headers.Add("Impersonate-Extra-Scopes", "view");
  SyncWait(WithImpersonation(inner, az)(*ctx));
  ASSERT_TRUE(seen_user);
  EXPECT_EQ(seen_user->name, "system:serviceaccount:ns1:robot");
  EXPECT_EQ(seen_user->groups,
            (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:ns1", "system:authenticated"}));
  EXPECT_EQ(seen_user->extra.at("scopes"), std::vector<std::string>{"view"});
  ASSERT_EQ(az.seen.size(), 2u);
  EXPECT_EQ(az.seen[0].resource, "serviceaccounts");
  EXPECT_EQ(az.seen[0].namespace_, "ns1");
  EXPECT_EQ(az.seen[1].resource, "userextras");
  EXPECT_EQ(az.seen[1].subresource, "scopes");
  EXPECT_FALSE(ctx->request.headers.Has("Impersonate-User"));
  EXPECT_EQ(ctx->impersonator->name, "admin");
}

TEST(ImpersonationTest, DeniedImpersonationIs403WithKubesWording) {
  RecordingAuthorizer az;
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/api/v1/pods", w);
  ctx->user = http::UserInfo{"alice", "", {"system:authenticated"}, {}};
  ctx->request.headers.Add("Impersonate-User", "forbidden");
  SyncWait(WithImpersonation(Ok(), az)(*ctx));
  EXPECT_EQ(w.status(), 403);
  EXPECT_NE(w.body.find("users \\\"forbidden\\\" is forbidden: User \\\"alice\\\" cannot impersonate resource "
                        "\\\"users\\\" in API group \\\"\\\" at the cluster scope"),
            std::string::npos)
      << w.body;
}

TEST(ImpersonationTest, GroupWithoutUserIs400) {
  RecordingAuthorizer az;
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/api/v1/pods", w);
  ctx->user = http::UserInfo{"alice", "", {}, {}};
  ctx->request.headers.Add("Impersonate-Group", "g");
  SyncWait(WithImpersonation(Ok(), az)(*ctx));
  EXPECT_EQ(w.status(), 400);
}

TEST(AuthorizationTest, ForbiddenMessageMatchesKube) {
  authz::AlwaysDeny deny;
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/api/v1/namespaces/default/configmaps", w);
  ctx->user = http::UserInfo{"alice", "", {"system:authenticated"}, {}};
  SyncWait(WithAuthorization(Ok(), deny)(*ctx));
  EXPECT_EQ(w.status(), 403);
  EXPECT_NE(w.body.find("configmaps is forbidden: User \\\"alice\\\" cannot list resource \\\"configmaps\\\" in API "
                        "group \\\"\\\" in the namespace \\\"default\\\": Everything is forbidden."),
            std::string::npos)
      << w.body;
}

TEST(AuthenticationTest, AnonymousReachesOnlyHealthByDefault) {
  authn::TopLevelAuthenticator anon(std::make_unique<authn::UnionAuthenticator>(
                                        std::vector<std::unique_ptr<authn::RequestAuthenticator>>{}),
                                    true);
  authz::UnionAuthorizer az([] {
    std::vector<std::unique_ptr<authz::Authorizer>> m;
    m.push_back(std::make_unique<authz::AuthenticatedOnly>());
    return m;
  }());
  http::Handler h = WithAuthentication(WithAuthorization(Ok(), az), anon);
  FakeResponseWriter w1, w2;
  auto healthz = MakeContext("GET", "/healthz", w1);
  SyncWait(h(*healthz));
  EXPECT_EQ(w1.status(), 200);
  auto api = MakeContext("GET", "/api/v1/pods", w2);
  SyncWait(h(*api));
  EXPECT_EQ(w2.status(), 403);
  EXPECT_NE(w2.body.find("system:anonymous"), std::string::npos);
}

TEST(AuthenticationTest, NoAnonymousMeans401) {
  authn::TopLevelAuthenticator none(std::make_unique<authn::UnionAuthenticator>(
                                        std::vector<std::unique_ptr<authn::RequestAuthenticator>>{}),
                                    false);
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/healthz", w);
  SyncWait(WithAuthentication(Ok(), none)(*ctx));
  EXPECT_EQ(w.status(), 401);
  EXPECT_NE(w.body.find("\"reason\":\"Unauthorized\""), std::string::npos);
}

TEST(RequestMetricsTest, CountsByVerbResourceAndCode) {
  MetricsRegistry reg;
  RequestMetrics m(reg);
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/api/v1/namespaces/default/configmaps", w);
  SyncWait(WithRequestMetrics(Ok(), m)(*ctx));
  const Counter* c = m.requests.Find({"LIST", "", "", "v1", "configmaps", "", "namespace", "apiserver", "200"});
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->Value(), 1);
}

TEST(ProbabilisticGoawayTest, MarksHttp2ResponsesWithConnectionCloseAtTheChance) {
  double next = 0;
  auto handler = WithProbabilisticGoaway(Ok(), 0.02, [&next] { return next; });
  auto run = [&](int major, double draw) {
    next = draw;
    FakeResponseWriter w;
    auto ctx = MakeContext("GET", "/api/v1/pods", w);
    ctx->request.version_major = major;
    SyncWait(handler(*ctx));
    return std::string(w.headers.Get("Connection"));
  };
  EXPECT_EQ(run(2, 0.019), "close");
  EXPECT_EQ(run(2, 0.02), "");
  EXPECT_EQ(run(2, 0.5), "");
  EXPECT_EQ(run(1, 0.0), "");  // HTTP/1.1 requests are never marked
}

TEST(PanicRecoveryTest, ExceptionBecomes500) {
  http::Handler boom = [](http::RequestContext&) -> Task<void> {
    throw std::runtime_error("boom");
    co_return;
  };
  FakeResponseWriter w;
  auto ctx = MakeContext("GET", "/x", w);
  SyncWait(WithPanicRecovery(boom)(*ctx));
  EXPECT_EQ(w.status(), 500);
}

}  // namespace
}  // namespace capstan::server
