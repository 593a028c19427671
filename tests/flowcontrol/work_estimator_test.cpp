#include "flowcontrol/work_estimator.h"

#include <gtest/gtest.h>

namespace capstan::flowcontrol {
namespace {

using std::chrono::milliseconds;

WorkRequest Req(std::string verb, std::string resource = "pods") {
  WorkRequest r;
  r.verb = std::move(verb);
  r.resource = std::move(resource);
  return r;
}

TEST(WorkEstimatorTest, ListSeatsFollowTheObjectCount) {
  int64_t stored = 799;
  WorkEstimator e({}, [&](const std::string&, const std::string& res) -> std::optional<int64_t> {
    if (res == "unknown") return std::nullopt;
    return stored;
  }, nullptr);
  EXPECT_EQ(e.Estimate(Req("list"), 0).initial_seats, 8);  // ceil(799/100), served from the cache
  WorkRequest limited = Req("list");
  limited.limit = 100;
  limited.continue_token = "x";  // from storage: 2 x limit
  EXPECT_EQ(e.Estimate(limited, 0).initial_seats, 2);
  limited.has_selector = true;  // count + limit
  EXPECT_EQ(e.Estimate(limited, 0).initial_seats, 9);
  WorkRequest exact = Req("list");
  exact.limit = 50;
  exact.resource_version = "123";  // legacy exact match: storage
  EXPECT_EQ(e.Estimate(exact, 0).initial_seats, 1);
  stored = 100000;
  EXPECT_EQ(e.Estimate(Req("list"), 0).initial_seats, 10);  // the global cap
  EXPECT_EQ(e.Estimate(Req("list"), 4).initial_seats, 4);   // the level's cap
  EXPECT_EQ(e.Estimate(Req("list", "unknown"), 0).initial_seats, 1);
  WorkRequest named = Req("list");
  named.name = "one";
  EXPECT_EQ(e.Estimate(named, 0).initial_seats, 1);
  EXPECT_EQ(e.Estimate(Req("watch"), 0).initial_seats, 1);
  WorkRequest watch_list = Req("watch");
  watch_list.send_initial_events = true;
  EXPECT_EQ(e.Estimate(watch_list, 0).initial_seats, 10);
  EXPECT_EQ(e.Estimate(Req("get"), 0).initial_seats, 1);
}

TEST(WorkEstimatorTest, MutationsHoldSeatsForTheirWatchers) {
  int watches = 0;
  WorkEstimator e({}, nullptr, [&](const WorkRequest&) { return watches; });
  WorkEstimate none = e.Estimate(Req("create"), 0);
  EXPECT_EQ(none.initial_seats, 1);
  EXPECT_EQ(none.final_seats, 0);
  EXPECT_EQ(none.additional_latency.count(), 0);
  watches = 25;
  WorkEstimate some = e.Estimate(Req("update"), 0);
  EXPECT_EQ(some.final_seats, 3);
  EXPECT_EQ(some.additional_latency, milliseconds(5));
  watches = 500;  // 50 seats x 5ms, capped at 10 seats: 25ms
  WorkEstimate capped = e.Estimate(Req("delete"), 0);
  EXPECT_EQ(capped.final_seats, 10);
  EXPECT_EQ(capped.additional_latency, milliseconds(25));
  EXPECT_EQ(capped.MaxSeats(), 10);
  WorkRequest token = Req("create", "serviceaccounts");
  token.subresource = "token";
  EXPECT_EQ(e.Estimate(token, 0).final_seats, 0);
}

}  // namespace
}  // namespace capstan::flowcontrol
