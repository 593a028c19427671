#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "fakes/fake_response_writer.h"
#include "flowcontrol/controller.h"
#include "server/filters/filters.h"
#include "server/http/responses.h"
#include "util/async.h"

namespace capstan::server {
namespace {

using capstan::testing::FakeResponseWriter;
using capstan::testing::MakeContext;
namespace json = boost::json;

// Server limit 10: "one" (1 share, Reject, no borrowing) gets one seat; bob's requests go there.
std::shared_ptr<flowcontrol::Controller> OneSeatForBob() {
  flowcontrol::ControllerConfig cfg;
  cfg.server_concurrency_limit = 10;
  auto c = std::make_shared<flowcontrol::Controller>(RealClock::Get(), cfg, nullptr);
  c->Apply({json::parse(R"({"metadata":{"name":"exempt","uid":"pl-exempt"},"spec":{"type":"Exempt","exempt":{}}})"),
            json::parse(R"({"metadata":{"name":"catch-all","uid":"pl-catch-all"},"spec":{"type":"Limited","limited":{
                "nominalConcurrencyShares":9,"limitResponse":{"type":"Reject"}}}})"),
            json::parse(R"({"metadata":{"name":"one","uid":"pl-one"},"spec":{"type":"Limited","limited":{
                "nominalConcurrencyShares":1,"borrowingLimitPercent":0,"limitResponse":{"type":"Reject"}}}})")},
           {json::parse(R"({"metadata":{"name":"bobs","uid":"fs-bobs"},"spec":{"priorityLevelConfiguration":{"name":"one"},
                "matchingPrecedence":100,"rules":[{"subjects":[{"kind":"User","user":{"name":"bob"}}],
                "resourceRules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"namespaces":["*"],"clusterScope":true}]}]}})")});
  return c;
}

std::unique_ptr<http::RequestContext> BobContext(const std::string& target, FakeResponseWriter& w) {
  auto ctx = MakeContext("GET", target, w);
  ctx->user = UserInfo{"bob", "", {"system:authenticated"}, {}};
  return ctx;
}

RequestMetrics& Metrics() {
  static MetricsRegistry reg;
  static RequestMetrics m(reg);
  return m;
}

// Runs the loop until `done`.
void RunUntil(LocalLoop& loop, const bool& done) {
  while (!done) {
    loop.Post([&] { loop.Stop(); });
    loop.Run();
  }
}

TEST(PriorityAndFairnessFilterTest, SecondRequestOnAFullLevelGetsKubes429) {
  auto apf = OneSeatForBob();
  AsyncEvent release;
  http::Handler blocking = [&](http::RequestContext& ctx) -> Task<void> {
    co_await release.Wait();
    co_await http::RespondText(ctx, "ok");
  };
  http::Handler h = WithPriorityAndFairness(blocking, *apf, std::chrono::seconds(60), Metrics());
  FakeResponseWriter w1, w2;
  auto c1 = BobContext("/api/v1/namespaces/default/pods", w1);
  auto c2 = BobContext("/api/v1/namespaces/default/pods", w2);
  auto loop = std::make_shared<LocalLoop>();
  ExecutorScope scope(loop);
  bool first_done = false;
  SpawnThen(h(*c1), [&] { first_done = true; });
  SyncWait(h(*c2));
  EXPECT_EQ(w2.status(), 429);
  EXPECT_EQ(w2.body, "Too many requests, please try again later.\n");
  EXPECT_EQ(w2.headers.Get("Retry-After"), "1");
  EXPECT_EQ(w2.headers.Get("Content-Type"), "text/plain; charset=utf-8");
  EXPECT_EQ(w2.headers.Get("X-Kubernetes-PF-FlowSchema-UID"), "fs-bobs");
  EXPECT_EQ(w2.headers.Get("X-Kubernetes-PF-PriorityLevel-UID"), "pl-one");
  release.Set();
  RunUntil(*loop, first_done);
  EXPECT_EQ(w1.status(), 200);
  EXPECT_EQ(w1.headers.Get("X-Kubernetes-PF-FlowSchema-UID"), "fs-bobs");
  EXPECT_EQ(apf->Counters("one").executing, 0);
  EXPECT_EQ(apf->Counters("one").rejected, 1u);
}

// A watch gives its seat back once its response starts, though it keeps streaming.
TEST(PriorityAndFairnessFilterTest, WatchHoldsItsSeatOnlyUntilItStarts) {
  auto apf = OneSeatForBob();
  AsyncEvent end_watch;
  http::Handler handler = [&](http::RequestContext& ctx) -> Task<void> {
    if (ctx.info.verb == "watch") {
      co_await ctx.writer->StartStream(200, {});
      co_await end_watch.Wait();
      co_await ctx.writer->EndStream();
      co_return;
    }
    co_await http::RespondText(ctx, "ok");
  };
  http::Handler h = WithPriorityAndFairness(handler, *apf, std::chrono::seconds(60), Metrics());
  FakeResponseWriter w1, w2;
  auto watch = BobContext("/api/v1/namespaces/default/pods?watch=true", w1);
  ASSERT_TRUE(watch->info.long_running);
  auto get = BobContext("/api/v1/namespaces/default/pods/p", w2);
  auto loop = std::make_shared<LocalLoop>();
  ExecutorScope scope(loop);
  bool watch_done = false;
  SpawnThen(h(*watch), [&] { watch_done = true; });
  EXPECT_EQ(apf->Counters("one").executing, 0);
  SyncWait(h(*get));
  EXPECT_EQ(w2.status(), 200);
  // While open, the watch counts for the writes it will see.
  flowcontrol::WorkRequest create;
  create.verb = "create";
  create.resource = "pods";
  create.namespace_ = "default";
  EXPECT_EQ(apf->watch_tracker().InterestedCount(create), 1);
  end_watch.Set();
  RunUntil(*loop, watch_done);
  EXPECT_EQ(apf->watch_tracker().InterestedCount(create), 0);
  EXPECT_EQ(apf->Counters("one").dispatched, 2u);
  EXPECT_EQ(apf->Counters("one").rejected, 0u);
}

TEST(PriorityAndFairnessFilterTest, OtherLongRunningRequestsPassUnclassified) {
  auto apf = OneSeatForBob();
  FakeResponseWriter w;
  auto exec = BobContext("/api/v1/namespaces/default/pods/p/exec?command=ls", w);
  ASSERT_TRUE(exec->info.long_running);
  SyncWait(WithPriorityAndFairness(
      [](http::RequestContext& ctx) -> Task<void> { co_await http::RespondText(ctx, "ok"); }, *apf,
      std::chrono::seconds(60), Metrics())(*exec));
  EXPECT_EQ(w.status(), 200);
  EXPECT_FALSE(w.headers.Has("X-Kubernetes-PF-FlowSchema-UID"));
  EXPECT_EQ(apf->Counters("one").dispatched, 0u);
}

}  // namespace
}  // namespace capstan::server
