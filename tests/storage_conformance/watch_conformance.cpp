// Watches, compaction and pagination at a fixed revision.
#include <atomic>
#include <set>
#include <thread>

#include "storage_conformance/backend_conformance.h"

namespace capstan::storage::conformance {
namespace {

WatchRequest PrefixWatch(const std::string& prefix, int64_t start = 0, bool prev_kv = false) {
  WatchRequest w;
  w.key = prefix;
  w.range_end = PrefixEnd(prefix);
  w.start_revision = start;
  w.prev_kv = prev_kv;
  return w;
}

TEST_P(BackendConformance, WatchDeliversPutsAndDeletesInOrderWithPrevKv) {
  WatchCollector c;
  auto h = db().Watch(PrefixWatch(prefix(), 0, true), c.Callback());
  int64_t r1 = Put(K("a"), "1");
  int64_t r2 = Put(K("a"), "2");
  int64_t r3 = Delete(K("a"));
  ASSERT_TRUE(c.WaitForEvents(3)) << c.Error().ToString();
  auto ev = c.Events();
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].type, WatchEvent::Type::kPut);
  EXPECT_EQ(ev[0].kv.key, K("a"));
  EXPECT_EQ(ev[0].kv.value, "1");
  EXPECT_EQ(ev[0].kv.mod_revision, r1);
  EXPECT_EQ(ev[0].kv.create_revision, r1);
  EXPECT_EQ(ev[0].kv.version, 1);
  EXPECT_FALSE(ev[0].prev_kv);
  EXPECT_EQ(ev[1].kv.value, "2");
  EXPECT_EQ(ev[1].kv.mod_revision, r2);
  ASSERT_TRUE(ev[1].prev_kv);
  EXPECT_EQ(ev[1].prev_kv->value, "1");
  EXPECT_EQ(ev[2].type, WatchEvent::Type::kDelete);
  EXPECT_EQ(ev[2].kv.key, K("a"));
  EXPECT_EQ(ev[2].kv.mod_revision, r3);
  ASSERT_TRUE(ev[2].prev_kv);
  EXPECT_EQ(ev[2].prev_kv->value, "2");
  for (const auto& r : c.Responses()) EXPECT_TRUE(r.error.ok());
}

TEST_P(BackendConformance, WatchWithoutPrevKvOmitsIt) {
  WatchCollector c;
  auto h = db().Watch(PrefixWatch(prefix()), c.Callback());
  Put(K("a"), "1");
  Put(K("a"), "2");
  ASSERT_TRUE(c.WaitForEvents(2));
  for (const auto& e : c.Events()) EXPECT_FALSE(e.prev_kv);
}

TEST_P(BackendConformance, WatchOfOneKeySeesOnlyThatKey) {
  WatchCollector c;
  WatchRequest w;
  w.key = K("b");
  auto h = db().Watch(w, c.Callback());
  Put(K("a"), "1");
  Put(K("b"), "1");
  Put(K("bb"), "1");
  Put(K("b"), "2");
  ASSERT_TRUE(c.WaitForEvents(2));
  // Give a stray event a chance to show up before checking there was none.
  Put(K("b"), "3");
  ASSERT_TRUE(c.WaitForEvents(3));
  for (const auto& e : c.Events()) EXPECT_EQ(e.kv.key, K("b"));
  EXPECT_EQ(c.Events().size(), 3u);
}

TEST_P(BackendConformance, WatchOrderingUnderConcurrentWriters) {
  WatchCollector c;
  auto h = db().Watch(PrefixWatch(prefix()), c.Callback());
  constexpr int kWriters = 8, kEach = 40;
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kEach; ++i) {
        auto r = SyncWait(db().Put(K("w" + std::to_string(w)), std::to_string(i)));
        EXPECT_TRUE(r.ok());
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(c.WaitForEvents(kWriters * kEach));
  auto ev = c.Events();
  ASSERT_EQ(ev.size(), static_cast<size_t>(kWriters * kEach));
  std::map<std::string, int> last_value;
  for (size_t i = 1; i < ev.size(); ++i) EXPECT_LT(ev[i - 1].kv.mod_revision, ev[i].kv.mod_revision);
  for (const auto& e : ev) {
    int v = std::stoi(e.kv.value);
    auto it = last_value.find(e.kv.key);
    if (it != last_value.end()) EXPECT_EQ(v, it->second + 1) << e.kv.key;
    last_value[e.kv.key] = v;
    EXPECT_EQ(e.kv.version, v + 1);
  }
  // Every response's header revision covers its events.
  for (const auto& r : c.Responses()) {
    if (!r.events.empty()) EXPECT_GE(r.header_revision, r.events.back().kv.mod_revision);
  }
}

TEST_P(BackendConformance, WatchFromPastRevisionReplaysHistory) {
  int64_t r1 = Put(K("a"), "1");
  Put(K("b"), "1");
  Put(K("a"), "2");
  Delete(K("b"));
  WatchCollector c;
  auto h = db().Watch(PrefixWatch(prefix(), r1 + 1, true), c.Callback());
  ASSERT_TRUE(c.WaitForEvents(3));
  int64_t r5 = Put(K("c"), "1");
  ASSERT_TRUE(c.WaitForEvents(4));
  auto ev = c.Events();
  ASSERT_EQ(ev.size(), 4u);
  EXPECT_EQ(ev[0].kv.key, K("b"));
  EXPECT_EQ(ev[0].kv.mod_revision, r1 + 1);
  EXPECT_EQ(ev[1].kv.key, K("a"));
  ASSERT_TRUE(ev[1].prev_kv);
  EXPECT_EQ(ev[1].prev_kv->value, "1");
  EXPECT_EQ(ev[2].type, WatchEvent::Type::kDelete);
  ASSERT_TRUE(ev[2].prev_kv);
  EXPECT_EQ(ev[2].prev_kv->key, K("b"));
  EXPECT_EQ(ev[3].kv.mod_revision, r5);
}

TEST_P(BackendConformance, WatchFromOldRevisionCatchesUpAcrossManyRevisions) {
  int64_t first = 0;
  for (int i = 0; i < 300; ++i) {
    int64_t r = Put(K("k" + std::to_string(i % 7)), std::to_string(i));
    if (i == 0) first = r;
  }
  WatchCollector c;
  auto h = db().Watch(PrefixWatch(prefix(), first), c.Callback());
  // Writes while it catches up must be neither lost nor repeated.
  std::thread writer([&] {
    for (int i = 300; i < 400; ++i) (void)SyncWait(db().Put(K("k" + std::to_string(i % 7)), std::to_string(i)));
  });
  writer.join();
  ASSERT_TRUE(c.WaitForEvents(400));
  auto ev = c.Events();
  ASSERT_EQ(ev.size(), 400u);
  for (size_t i = 0; i < ev.size(); ++i) EXPECT_EQ(ev[i].kv.value, std::to_string(i));
}

TEST_P(BackendConformance, WatchFromFutureRevisionWaitsForIt) {
  int64_t r0 = Put(K("a"), "0");
  WatchCollector c;
  auto h = db().Watch(PrefixWatch(prefix(), r0 + 3), c.Callback());
  Put(K("a"), "1");
  Put(K("a"), "2");
  int64_t r3 = Put(K("a"), "3");
  Put(K("a"), "4");
  ASSERT_TRUE(c.WaitForEvents(2));
  auto ev = c.Events();
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].kv.mod_revision, r3);
  EXPECT_EQ(ev[0].kv.value, "3");
  EXPECT_EQ(ev[1].kv.value, "4");
}

TEST_P(BackendConformance, WatchFromCompactedRevisionFailsWithCompactRevision) {
  int64_t r1 = Put(K("a"), "1");
  Put(K("a"), "2");
  int64_t r3 = Put(K("a"), "3");
  ASSERT_TRUE(SyncWait(db().Compact(r3)).ok());
  WatchCollector c;
  auto h = db().Watch(PrefixWatch(prefix(), r1), c.Callback());
  ASSERT_TRUE(c.WaitForError());
  Status err = c.Error();
  EXPECT_TRUE(err.IsStorage(StorageCode::kCompacted)) << err.ToString();
  EXPECT_EQ(err.revision(), r3);
  EXPECT_TRUE(c.Events().empty());
  // Watching from the compact revision itself works.
  WatchCollector ok;
  auto h2 = db().Watch(PrefixWatch(prefix(), r3), ok.Callback());
  ASSERT_TRUE(ok.WaitForEvents(1));
  EXPECT_EQ(ok.Events()[0].kv.mod_revision, r3);
}

TEST_P(BackendConformance, NoCallbackAfterWatchHandleIsDestroyed) {
  std::atomic<bool> destroyed{false};
  std::atomic<int> late{0};
  WatchCollector c;
  auto inner = c.Callback();
  auto h = db().Watch(PrefixWatch(prefix()), [&, inner](WatchResponse r) {
    if (destroyed.load()) ++late;
    inner(std::move(r));
  });
  Put(K("a"), "1");
  ASSERT_TRUE(c.WaitForEvents(1));
  std::thread writer([&] {
    for (int i = 0; i < 50; ++i) (void)SyncWait(db().Put(K("a"), std::to_string(i)));
  });
  h.reset();
  destroyed = true;
  writer.join();
  Put(K("a"), "after");
  // A later watch that sees the last write proves the store delivered past it.
  WatchCollector probe;
  int64_t r = CurrentRevision();
  auto h2 = db().Watch(PrefixWatch(prefix(), r), probe.Callback());
  ASSERT_TRUE(probe.WaitForEvents(1));
  EXPECT_EQ(late.load(), 0);
}

TEST_P(BackendConformance, RequestProgressReportsTheRevision) {
  WatchCollector c;
  auto h = db().Watch(PrefixWatch(prefix()), c.Callback());
  int64_t r = Put(K("a"), "1");
  ASSERT_TRUE(c.WaitForEvents(1));
  h->RequestProgress();
  ASSERT_TRUE(c.WaitFor([&](const std::vector<WatchResponse>& rs) {
    for (const auto& x : rs) {
      if (x.progress_notify) return true;
    }
    return false;
  }));
  for (const auto& x : c.Responses()) {
    if (x.progress_notify) {
      EXPECT_TRUE(x.events.empty());
      EXPECT_GE(x.header_revision, r);
    }
  }
}

TEST_P(BackendConformance, CompactionMakesOlderRevisionsUnreadable) {
  int64_t r1 = Put(K("a"), "1");
  int64_t r2 = Put(K("a"), "2");
  int64_t r3 = Put(K("b"), "1");
  int64_t r4 = Delete(K("b"));
  int64_t r5 = Put(K("c"), "1");
  ASSERT_TRUE(SyncWait(db().Compact(r4)).ok());
  RangeRequest req;
  req.key = K("a");
  req.revision = r3;
  auto old = Range(req);
  ASSERT_FALSE(old.ok());
  EXPECT_TRUE(old.status().IsStorage(StorageCode::kCompacted)) << old.status().ToString();
  EXPECT_EQ(old.status().revision(), r4);
  // At and above the compact revision every read still answers as before.
  EXPECT_EQ(Get(K("a"), r4)->value, "2");
  EXPECT_EQ(Get(K("a"), r4)->mod_revision, r2);
  EXPECT_FALSE(Get(K("b"), r4));
  EXPECT_EQ(Prefix(prefix(), r4).kvs.size(), 1u);
  EXPECT_EQ(Prefix(prefix(), r5).kvs.size(), 2u);
  auto a = Get(K("a"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->create_revision, r1);
  EXPECT_EQ(a->version, 2);
  auto st = SyncWait(db().GetStatus());
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->compact_revision, r4);
}

TEST_P(BackendConformance, CompactionErrors) {
  Put(K("a"), "1");
  int64_t r2 = Put(K("a"), "2");
  Status future = SyncWait(db().Compact(r2 + 100));
  EXPECT_TRUE(future.IsStorage(StorageCode::kFutureRevision)) << future.ToString();
  ASSERT_TRUE(SyncWait(db().Compact(r2)).ok());
  Status again = SyncWait(db().Compact(r2));
  EXPECT_TRUE(again.IsStorage(StorageCode::kCompacted)) << again.ToString();
  Status lower = SyncWait(db().Compact(r2 - 1));
  EXPECT_TRUE(lower.IsStorage(StorageCode::kCompacted)) << lower.ToString();
}

TEST_P(BackendConformance, PaginationAtFixedRevisionIgnoresConcurrentWrites) {
  constexpr int kKeys = 60;
  for (int i = 0; i < kKeys; ++i) {
    char name[16];
    snprintf(name, sizeof(name), "p%03d", i);
    Put(K(name), "v0");
  }
  auto first = Prefix(prefix(), 0, 10);
  ASSERT_EQ(first.kvs.size(), 10u);
  ASSERT_TRUE(first.more);
  int64_t at = first.revision;
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    for (int i = 0; !stop.load() && i < 200; ++i) {
      char name[16];
      snprintf(name, sizeof(name), "p%03d", (i * 7) % (kKeys + 20));
      (void)SyncWait(db().Put(K(name), "v1"));
      if (i % 5 == 0) (void)SyncWait(db().Delete(K(name)));
    }
  });
  std::vector<KeyValue> all = first.kvs;
  std::string next = all.back().key + std::string(1, '\0');
  for (;;) {
    RangeRequest req;
    req.key = next;
    req.range_end = PrefixEnd(prefix());
    req.revision = at;
    req.limit = 10;
    auto page = Range(req);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    all.insert(all.end(), page->kvs.begin(), page->kvs.end());
    if (!page->more) break;
    next = page->kvs.back().key + std::string(1, '\0');
  }
  stop = true;
  writer.join();
  ASSERT_EQ(all.size(), static_cast<size_t>(kKeys));
  for (const auto& kv : all) {
    EXPECT_EQ(kv.value, "v0");
    EXPECT_LE(kv.mod_revision, at);
  }
  // A full read at the same revision agrees with the pages.
  EXPECT_EQ(Prefix(prefix(), at).kvs, all);
}

}  // namespace
}  // namespace capstan::storage::conformance
