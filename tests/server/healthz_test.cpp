#include "server/healthz.h"

#include <gtest/gtest.h>

namespace capstan::server {
namespace {

HealthChecks MakeChecks(bool etcd_ok) {
  HealthChecks h;
  h.Add("ping", []() -> Task<Status> { co_return Status(); });
  h.Add("etcd", [etcd_ok]() -> Task<Status> {
    co_return etcd_ok ? Status() : Status(500, "InternalError", "connection refused");
  });
  h.Add("shutdown", []() -> Task<Status> { co_return Status(); }, HealthChecks::kReadyz);
  return h;
}

TEST(HealthzTest, PassingChecksSayOkOrVerboseList) {
  HealthChecks h = MakeChecks(true);
  EXPECT_EQ(SyncWait(h.Run("livez", http::Query())).body, "ok");
  auto verbose = SyncWait(h.Run("readyz", http::Query::Parse("verbose")));
  EXPECT_EQ(verbose.status, 200);
  EXPECT_EQ(verbose.body, "[+]ping ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n");
  EXPECT_EQ(SyncWait(h.Run("livez", http::Query::Parse("verbose"))).body, "[+]ping ok\n[+]etcd ok\nlivez check passed\n");
}

TEST(HealthzTest, FailingCheckWithholdsReasonAndIs500) {
  HealthChecks h = MakeChecks(false);
  auto r = SyncWait(h.Run("readyz", http::Query()));
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "[+]ping ok\n[-]etcd failed: reason withheld\n[+]shutdown ok\nreadyz check failed\n");
  auto one = SyncWait(h.RunOne("readyz", "etcd"));
  EXPECT_EQ(one.status, 500);
  EXPECT_EQ(one.body, "internal server error: connection refused\n");
}

TEST(HealthzTest, ExcludeSkipsChecksAndWarnsAboutUnknownOnes) {
  HealthChecks h = MakeChecks(false);
  auto r = SyncWait(h.Run("readyz", http::Query::Parse("verbose&exclude=etcd&exclude=nope")));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "[+]ping ok\n[+]etcd excluded: ok\n[+]shutdown ok\nwarn: some health checks cannot be excluded: no "
            "matches for \"nope\"\nreadyz check passed\n");
}

}  // namespace
}  // namespace capstan::server
