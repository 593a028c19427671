// Leases and restart persistence.
#include <thread>

#include "storage_conformance/backend_conformance.h"

namespace capstan::storage::conformance {
namespace {

using namespace std::chrono_literals;

TEST_P(BackendConformance, LeaseGrantAttachKeepAliveRevoke) {
  auto g = SyncWait(db().LeaseGrant(factory().lease_ttl));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_NE(g->id, 0);
  EXPECT_GE(g->ttl, factory().lease_ttl);
  Put(K("a"), "1", g->id);
  Put(K("b"), "1", g->id);
  Put(K("c"), "1");
  EXPECT_EQ(Get(K("a"))->lease, g->id);
  {
    TxnRequest t;
    Compare c;
    c.key = K("a");
    c.target = Compare::Target::kLease;
    c.result = Compare::Result::kEqual;
    c.number = g->id;
    t.compare.push_back(c);
    auto r = Txn(t);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->succeeded);
    t.compare[0].key = K("c");  // no lease: 0
    r = Txn(t);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->succeeded);
  }
  auto ka = SyncWait(db().LeaseKeepAlive(g->id));
  ASSERT_TRUE(ka.ok()) << ka.status().ToString();
  EXPECT_EQ(*ka, g->ttl);
  WatchCollector c;
  WatchRequest w;
  w.key = prefix();
  w.range_end = PrefixEnd(prefix());
  auto h = db().Watch(w, c.Callback());
  int64_t before = CurrentRevision();
  ASSERT_TRUE(SyncWait(db().LeaseRevoke(g->id)).ok());
  EXPECT_FALSE(Get(K("a")));
  EXPECT_FALSE(Get(K("b")));
  EXPECT_TRUE(Get(K("c")));
  EXPECT_GT(CurrentRevision(), before);
  ASSERT_TRUE(c.WaitForEvents(2));
  for (const auto& e : c.Events()) EXPECT_EQ(e.type, WatchEvent::Type::kDelete);
  auto gone = SyncWait(db().LeaseKeepAlive(g->id));
  ASSERT_FALSE(gone.ok());
  EXPECT_TRUE(gone.status().IsStorage(StorageCode::kKeyNotFound)) << gone.status().ToString();
  Status again = SyncWait(db().LeaseRevoke(g->id));
  EXPECT_TRUE(again.IsStorage(StorageCode::kKeyNotFound)) << again.ToString();
}

TEST_P(BackendConformance, PutWithUnknownLeaseFails) {
  auto r = SyncWait(db().Put(K("a"), "1", 987654321));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsStorage(StorageCode::kKeyNotFound)) << r.status().ToString();
  EXPECT_FALSE(Get(K("a")));
}

TEST_P(BackendConformance, PutWithoutLeaseDetachesKey) {
  auto g = SyncWait(db().LeaseGrant(factory().lease_ttl));
  ASSERT_TRUE(g.ok());
  Put(K("a"), "1", g->id);
  Put(K("a"), "2");  // no lease any more
  EXPECT_EQ(Get(K("a"))->lease, 0);
  ASSERT_TRUE(SyncWait(db().LeaseRevoke(g->id)).ok());
  EXPECT_TRUE(Get(K("a")));
}

TEST_P(BackendConformance, KeepAliveHoldsALeaseAndExpiryDeletesItsKeys) {
  const int64_t ttl = factory().lease_ttl;
  auto kept = SyncWait(db().LeaseGrant(ttl));
  auto dying = SyncWait(db().LeaseGrant(ttl));
  ASSERT_TRUE(kept.ok() && dying.ok());
  Put(K("kept"), "1", kept->id);
  Put(K("dying1"), "1", dying->id);
  Put(K("dying2"), "1", dying->id);
  WatchCollector c;
  WatchRequest w;
  w.key = K("dying");
  w.range_end = PrefixEnd(K("dying"));
  auto h = db().Watch(w, c.Callback());
  // Renew one lease at a third of its TTL for well past the TTL; let the other expire.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(ttl) * 2 + 1s;
  bool dying_gone = false;
  while (std::chrono::steady_clock::now() < deadline) {
    auto ka = SyncWait(db().LeaseKeepAlive(kept->id));
    ASSERT_TRUE(ka.ok()) << ka.status().ToString();
    if (!dying_gone && !Get(K("dying1")) && !Get(K("dying2"))) dying_gone = true;
    std::this_thread::sleep_for(std::chrono::milliseconds(ttl * 1000 / 3));
  }
  EXPECT_TRUE(Get(K("kept")));
  // Expiry is checked periodically; allow it a few more seconds.
  for (int i = 0; i < 50 && !dying_gone; ++i) {
    std::this_thread::sleep_for(100ms);
    dying_gone = !Get(K("dying1")) && !Get(K("dying2"));
  }
  EXPECT_TRUE(dying_gone);
  ASSERT_TRUE(c.WaitForEvents(2));
  for (const auto& e : c.Events()) EXPECT_EQ(e.type, WatchEvent::Type::kDelete);
  auto ka = SyncWait(db().LeaseKeepAlive(dying->id));
  EXPECT_TRUE(ka.status().IsStorage(StorageCode::kKeyNotFound)) << ka.status().ToString();
  ASSERT_TRUE(SyncWait(db().LeaseRevoke(kept->id)).ok());
}

TEST_P(BackendConformance, RestartKeepsDataRevisionsCompactionAndLeases) {
  if (!factory().can_restart) GTEST_SKIP() << "backend cannot be restarted by the suite";
  int64_t r1 = Put(K("a"), "1");
  int64_t r2 = Put(K("a"), "2");
  Put(K("b"), "1");
  int64_t r4 = Delete(K("b"));
  auto g = SyncWait(db().LeaseGrant(60));
  ASSERT_TRUE(g.ok());
  int64_t r5 = Put(K("leased"), "x", g->id);
  ASSERT_TRUE(SyncWait(db().Compact(r2)).ok());
  Restart();
  EXPECT_EQ(CurrentRevision(), r5);
  auto a = Get(K("a"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->value, "2");
  EXPECT_EQ(a->create_revision, r1);
  EXPECT_EQ(a->mod_revision, r2);
  EXPECT_EQ(a->version, 2);
  EXPECT_FALSE(Get(K("b")));
  EXPECT_EQ(Get(K("b"), r4 - 1)->value, "1");
  RangeRequest old;
  old.key = K("a");
  old.revision = r1;
  EXPECT_TRUE(Range(old).status().IsStorage(StorageCode::kCompacted));
  auto st = SyncWait(db().GetStatus());
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->compact_revision, r2);
  EXPECT_EQ(Get(K("leased"))->lease, g->id);
  EXPECT_TRUE(SyncWait(db().LeaseKeepAlive(g->id)).ok());
  // The next write continues the sequence, and a watch from before the restart replays it.
  EXPECT_EQ(Put(K("a"), "3"), r5 + 1);
  WatchCollector c;
  WatchRequest w;
  w.key = prefix();
  w.range_end = PrefixEnd(prefix());
  w.start_revision = r4;
  auto h = db().Watch(w, c.Callback());
  ASSERT_TRUE(c.WaitForEvents(3));
  EXPECT_EQ(c.Events()[0].kv.mod_revision, r4);
  ASSERT_TRUE(SyncWait(db().LeaseRevoke(g->id)).ok());
  EXPECT_FALSE(Get(K("leased")));
  // A second lease after the restart gets a fresh id.
  auto g2 = SyncWait(db().LeaseGrant(60));
  ASSERT_TRUE(g2.ok());
  EXPECT_NE(g2->id, g->id);
}

}  // namespace
}  // namespace capstan::storage::conformance
