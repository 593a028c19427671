#include "flowcontrol/controller.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace capstan::flowcontrol {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;
using std::chrono::seconds;

json::value Limited(const std::string& name, int shares, int lendable, int queues = 0, int hand = 0, int qll = 0,
                    std::optional<int> borrowing = std::nullopt) {
  json::object limited{{"nominalConcurrencyShares", shares}, {"lendablePercent", lendable}};
  if (borrowing) limited["borrowingLimitPercent"] = *borrowing;
  if (queues > 0) {
    limited["limitResponse"] = {{"type", "Queue"}, {"queuing", {{"queues", queues}, {"handSize", hand}, {"queueLengthLimit", qll}}}};
  } else {
    limited["limitResponse"] = {{"type", "Reject"}};
  }
  return json::object{{"metadata", {{"name", name}, {"uid", "uid-" + name}}},
                      {"spec", {{"type", "Limited"}, {"limited", limited}}}};
}

json::value Exempt() {
  return json::parse(R"({"metadata":{"name":"exempt","uid":"uid-exempt"},"spec":{"type":"Exempt","exempt":{}}})");
}

json::value Schema(const std::string& name, const std::string& level, int precedence, const std::string& user,
                   const std::string& method = "") {
  json::object spec{{"priorityLevelConfiguration", {{"name", level}}}, {"matchingPrecedence", precedence}};
  if (!method.empty()) spec["distinguisherMethod"] = {{"type", method}};
  json::value subject = user.rfind("group:", 0) == 0
                            ? json::value{{"kind", "Group"}, {"group", {{"name", user.substr(6)}}}}
                            : json::value{{"kind", "User"}, {"user", {{"name", user}}}};
  spec["rules"] = json::array{json::object{
      {"subjects", json::array{subject}},
      {"resourceRules", json::array{json::parse(R"({"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,"namespaces":["*"]})")}},
      {"nonResourceRules", json::array{json::parse(R"({"verbs":["*"],"nonResourceURLs":["*"]})")}}}};
  return json::object{{"metadata", {{"name", name}, {"uid", "uid-" + name}}}, {"spec", spec}};
}

RequestDigest As(std::string user, std::vector<std::string> groups = {"system:authenticated"}) {
  RequestDigest d;
  d.is_resource_request = true;
  d.verb = "get";
  d.resource = "pods";
  d.namespace_ = "default";
  d.name = "p";
  d.user.name = std::move(user);
  d.user.groups = std::move(groups);
  return d;
}

WorkRequest Get() {
  WorkRequest w;
  w.verb = "get";
  w.name = "p";
  return w;
}

struct Fixture {
  explicit Fixture(int server = 600) {
    ControllerConfig cfg;
    cfg.server_concurrency_limit = server;
    cfg.run_after = [this](std::chrono::nanoseconds d, std::function<void()> fn) { later.emplace_back(d, std::move(fn)); };
    controller = std::make_shared<Controller>(clock, cfg, nullptr);
  }
  FakeClock clock;
  std::vector<std::pair<std::chrono::nanoseconds, std::function<void()>>> later;
  std::shared_ptr<Controller> controller;
};

// kube's suggested configuration at 600 seats (400 + 200): ceil(600 x shares / 245), lendable
// rounded half away from zero, borrowing up to the whole server; new levels start at nominal less
// half the lendable seats.
TEST(ControllerTest, SplitsTheServerLimitByShares) {
  Fixture f;
  f.controller->Apply({Exempt(), Limited("catch-all", 5, 0), Limited("global-default", 20, 50, 128, 6, 50),
                       Limited("leader-election", 10, 0, 16, 4, 50), Limited("node-high", 40, 25, 64, 6, 50),
                       Limited("system", 30, 33, 64, 6, 50), Limited("workload-high", 40, 50, 128, 6, 50),
                       Limited("workload-low", 100, 90, 128, 6, 50)},
                      {});
  struct Want {
    const char* name;
    int nominal, lower, upper;
  } wants[] = {{"exempt", 0, 0, 600},           {"catch-all", 13, 13, 613},   {"global-default", 49, 24, 649},
               {"leader-election", 25, 25, 625}, {"node-high", 98, 73, 698},   {"system", 74, 50, 674},
               {"workload-high", 98, 49, 698},   {"workload-low", 245, 24, 845}};
  for (const auto& w : wants) {
    auto l = f.controller->Limits(w.name);
    ASSERT_TRUE(l) << w.name;
    EXPECT_EQ(l->nominal, w.nominal) << w.name;
    EXPECT_EQ(l->lower, w.lower) << w.name;
    EXPECT_EQ(l->upper, w.upper) << w.name;
  }
  // Per-request seat caps: max(1, min(ceil(15% of nominal), nominal / handSize)).
  EXPECT_EQ(f.controller->Limits("workload-low")->max_seats, 37);
  EXPECT_EQ(f.controller->Limits("leader-election")->max_seats, 4);
  EXPECT_EQ(f.controller->Limits("catch-all")->max_seats, 0);  // Reject: only the global cap
}

TEST(ControllerTest, OrdersSchemasByPrecedenceThenNameAndImaginesTheMandatoryOnes) {
  Fixture f;
  f.controller->Apply({Limited("low", 10, 0)},
                      {Schema("b", "low", 500, "x"), Schema("a", "low", 500, "y"), Schema("c", "low", 100, "z"),
                       Schema("orphan", "missing", 50, "w")});
  EXPECT_EQ(f.controller->FlowSchemaOrder(), (std::vector<std::string>{"exempt", "c", "a", "b", "catch-all"}));
  EXPECT_EQ(f.controller->Dangling(), (std::vector<std::string>{"orphan"}));
  ASSERT_TRUE(f.controller->Limits("exempt"));
  ASSERT_TRUE(f.controller->Limits("catch-all"));
  EXPECT_TRUE(f.controller->Limits("exempt")->exempt);
}

TEST(ControllerTest, ClassifiesAndReportsUids) {
  Fixture f;
  f.controller->Apply({Exempt(), Limited("catch-all", 5, 0), Limited("low", 10, 0)},
                      {Schema("exempt", "exempt", 1, "group:system:masters"), Schema("low-users", "low", 500, "bob"),
                       Schema("catch-all", "catch-all", 10000, "group:system:authenticated", "ByUser")});
  Ticket admin = f.controller->Start(As("admin", {"system:masters", "system:authenticated"}), Get());
  EXPECT_EQ(admin.flow_schema, "exempt");
  EXPECT_EQ(admin.flow_schema_uid, "uid-exempt");
  EXPECT_EQ(admin.priority_level_uid, "uid-exempt");
  EXPECT_TRUE(admin.exempt);
  Ticket bob = f.controller->Start(As("bob"), Get());
  EXPECT_EQ(bob.flow_schema, "low-users");
  EXPECT_EQ(bob.priority_level, "low");
  EXPECT_EQ(bob.priority_level_uid, "uid-low");
  Ticket carol = f.controller->Start(As("carol"), Get());
  EXPECT_EQ(carol.flow_schema, "catch-all");
  // Unauthenticated and unmatched requests fall back to catch-all too.
  Ticket anon = f.controller->Start(As("system:anonymous", {"system:unauthenticated"}), Get());
  EXPECT_EQ(anon.flow_schema, "catch-all");
  for (Ticket* t : {&admin, &bob, &carol, &anon}) f.controller->Finish(*t);
  EXPECT_TRUE(f.controller->Counters("low").executing == 0);
}

// A level with one seat and Reject: the second concurrent request is refused, exempt requests are
// not limited, and a freed seat serves the next one.
TEST(ControllerTest, RejectsBeyondATinyLevelWhileExemptIsServed) {
  Fixture f(10);
  f.controller->Apply({Exempt(), Limited("catch-all", 0, 0), Limited("tiny", 1, 0, 0, 0, 0, 0)},
                      {Schema("tiny-users", "tiny", 500, "bob")});
  ASSERT_EQ(f.controller->Limits("tiny")->current, 10);
  Fixture g(10);
  g.controller->Apply({Exempt(), Limited("catch-all", 9, 0), Limited("tiny", 1, 0, 0, 0, 0, 0)},
                      {Schema("tiny-users", "tiny", 500, "bob")});
  ASSERT_EQ(g.controller->Limits("tiny")->nominal, 1);
  ASSERT_EQ(g.controller->Limits("tiny")->current, 1);
  Ticket first = g.controller->Start(As("bob"), Get());
  Ticket second = g.controller->Start(As("bob"), Get());
  EXPECT_EQ(first.request->decision, Decision::kExecute);
  EXPECT_EQ(second.request->decision, Decision::kReject);
  EXPECT_EQ(g.controller->RetryAfter("tiny"), 1);
  std::vector<Ticket> admins;
  for (int i = 0; i < 50; ++i) {
    admins.push_back(g.controller->Start(As("admin", {"system:masters"}), Get()));
    EXPECT_EQ(admins.back().request->decision, Decision::kExecute);
  }
  g.controller->Finish(first);
  Ticket third = g.controller->Start(As("bob"), Get());
  EXPECT_EQ(third.request->decision, Decision::kExecute);
  EXPECT_EQ(g.controller->Counters("tiny").rejected, 1u);
}

TEST(ControllerTest, CancelEndsAWaitAsATimeOut) {
  Fixture f(10);
  f.controller->Apply({Exempt(), Limited("catch-all", 9, 0), Limited("q", 1, 0, 4, 2, 5, 0)},
                      {Schema("q-users", "q", 500, "bob", "ByUser")});
  Ticket running = f.controller->Start(As("bob"), Get());
  Ticket waiting = f.controller->Start(As("bob"), Get());
  ASSERT_EQ(running.request->decision, Decision::kExecute);
  ASSERT_EQ(waiting.request->decision, Decision::kPending);
  EXPECT_TRUE(f.controller->Cancel(waiting));
  EXPECT_EQ(waiting.request->decision, Decision::kReject);
  EXPECT_EQ(waiting.request->reason, RejectReason::kTimeOut);
  EXPECT_TRUE(waiting.request->decided.is_set());
  EXPECT_FALSE(f.controller->Cancel(running));
  Ticket next = f.controller->Start(As("bob"), Get());
  ASSERT_EQ(next.request->decision, Decision::kPending);
  f.controller->Finish(running);
  EXPECT_EQ(next.request->decision, Decision::kExecute);
  EXPECT_TRUE(next.request->decided.is_set());
}

// Two equal levels of 10 seats lending half; one is saturated (10 executing, 10 waiting) for a
// period, the other idle. The adjustment gives the busy one 15 seats (the idle one keeps its 5),
// and 5 of the waiting requests start at once.
TEST(ControllerTest, BorrowingMovesIdleSeatsToTheBusyLevel) {
  Fixture f(20);
  f.controller->Apply({Exempt(), Limited("catch-all", 0, 0), Limited("busy", 10, 50, 1, 1, 100),
                       Limited("idle", 10, 50, 1, 1, 100)},
                      {Schema("busy-users", "busy", 500, "bob"), Schema("idle-users", "idle", 500, "alice")});
  ASSERT_EQ(f.controller->Limits("busy")->nominal, 10);
  ASSERT_EQ(f.controller->Limits("busy")->lower, 5);
  ASSERT_EQ(f.controller->Limits("busy")->current, 10);
  ASSERT_EQ(f.controller->Limits("idle")->current, 10);
  std::vector<Ticket> tickets;
  for (int i = 0; i < 20; ++i) tickets.push_back(f.controller->Start(As("bob"), Get()));
  ASSERT_EQ(f.controller->Counters("busy").executing, 10);
  ASSERT_EQ(f.controller->Counters("busy").waiting, 10);
  f.clock.Advance(seconds(10));
  f.controller->UpdateBorrowing();
  EXPECT_EQ(f.controller->Limits("busy")->current, 15);
  EXPECT_EQ(f.controller->Limits("idle")->current, 5);
  EXPECT_EQ(f.controller->Counters("busy").executing, 15);
  int executing = 0;
  for (auto& t : tickets) executing += t.request->decision == Decision::kExecute ? 1 : 0;
  EXPECT_EQ(executing, 15);
  // Demand gone: the smoothed demand (half-life 5 minutes) keeps the split for now, the sum stays.
  for (auto& t : tickets) f.controller->Finish(t);
  f.clock.Advance(seconds(10));
  f.controller->UpdateBorrowing();
  EXPECT_EQ(f.controller->Limits("busy")->current + f.controller->Limits("idle")->current, 20);
}

TEST(ControllerTest, RemovedLevelDrainsBeforeItGoes) {
  Fixture f(10);
  auto levels = std::vector<json::value>{Exempt(), Limited("catch-all", 5, 0), Limited("old", 5, 0)};
  f.controller->Apply(levels, {Schema("old-users", "old", 500, "bob")});
  Ticket t = f.controller->Start(As("bob"), Get());
  ASSERT_EQ(t.priority_level, "old");
  f.controller->Apply({Exempt(), Limited("catch-all", 5, 0)}, {Schema("old-users", "old", 500, "bob")});
  ASSERT_TRUE(f.controller->Limits("old"));
  EXPECT_TRUE(f.controller->Limits("old")->quiescing);
  EXPECT_EQ(f.controller->Dangling(), (std::vector<std::string>{"old-users"}));
  // New requests no longer go there.
  Ticket u = f.controller->Start(As("bob"), Get());
  EXPECT_EQ(u.priority_level, "catch-all");
  f.controller->Finish(t);
  EXPECT_FALSE(f.controller->Limits("old"));
  EXPECT_EQ(f.controller->Limits("catch-all")->nominal, 10);
  f.controller->Finish(u);
}

TEST(ControllerTest, LingeringSeatsAreReleasedLater) {
  Fixture f(10);
  ControllerConfig cfg;
  cfg.server_concurrency_limit = 10;
  cfg.watch_count = [](const WorkRequest&) { return 40; };  // 4 final seats for 5ms
  cfg.run_after = [&f](std::chrono::nanoseconds d, std::function<void()> fn) { f.later.emplace_back(d, std::move(fn)); };
  auto c = std::make_shared<Controller>(f.clock, cfg, nullptr);
  c->Apply({Exempt(), Limited("catch-all", 5, 0)}, {});
  WorkRequest create;
  create.verb = "create";
  create.resource = "configmaps";
  Ticket t = c->Start(As("bob"), create);
  ASSERT_EQ(t.request->decision, Decision::kExecute);
  EXPECT_EQ(t.request->work.final_seats, 4);
  c->Finish(t);
  ASSERT_EQ(f.later.size(), 1u);
  EXPECT_EQ(f.later[0].first, milliseconds(5));
  EXPECT_EQ(c->Counters("catch-all").seats_in_use, 4);
  f.later[0].second();
  EXPECT_EQ(c->Counters("catch-all").seats_in_use, 0);
}

TEST(ControllerTest, DumpsPriorityLevelsInKubesFormat) {
  Fixture f(10);
  f.controller->Apply({Exempt(), Limited("catch-all", 5, 0)}, {});
  EXPECT_EQ(f.controller->DumpPriorityLevels(),
            // Go's text/tabwriter (minwidth 8, padding 1) over kube's rows.
            "PriorityLevelName, ActiveQueues, IsIdle, IsQuiescing, WaitingRequests, ExecutingRequests, "
            "DispatchedRequests, RejectedRequests, TimedoutRequests, CancelledRequests\n"
            "catch-all,         0,            true,   false,       0,               0,                 "
            "0,                  0,                0,                0\n"
            "exempt,            0,            true,   false,       0,               0,                 "
            "0,                  0,                0,                0\n");
}

}  // namespace
}  // namespace capstan::flowcontrol
