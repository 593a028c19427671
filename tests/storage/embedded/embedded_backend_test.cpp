#include "storage/embedded/embedded_backend.h"

#include <gtest/gtest.h>
#include <lmdb.h>

#include <atomic>
#include <fstream>
#include <future>
#include <thread>

#include "storage/embedded/test_dir.h"
#include "util/task.h"

namespace capstan::storage::embedded {
namespace {

using namespace std::chrono_literals;

std::unique_ptr<Backend> MustOpen(EmbeddedOptions o) {
  auto b = OpenEmbeddedBackend(std::move(o));
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? std::move(*b) : nullptr;
}

EmbeddedOptions Opts(const std::string& dir) {
  EmbeddedOptions o;
  o.dir = dir;
  o.quota_bytes = 64LL << 20;
  return o;
}

// Polls until pred holds (a deadlock guard, not a timing assertion).
template <class F>
bool Eventually(F pred, std::chrono::milliseconds limit = 20s) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

TEST(EmbeddedBackendTest, SecondOpenOfTheSameDirFails) {
  TestDir dir;
  auto first = MustOpen(Opts(dir.path()));
  auto second = OpenEmbeddedBackend(Opts(dir.path()));
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsStorage(StorageCode::kUnavailable));
  EXPECT_NE(second.status().message().find("in use"), std::string::npos) << second.status().message();
  first.reset();
  EXPECT_TRUE(OpenEmbeddedBackend(Opts(dir.path())).ok());
}

TEST(EmbeddedBackendTest, GarbageDataFileIsRefused) {
  TestDir dir;
  {
    std::ofstream f(dir.sub("data.mdb"), std::ios::binary);
    for (int i = 0; i < 5000; ++i) f << "this is not a database ";
  }
  auto b = OpenEmbeddedBackend(Opts(dir.path()));
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(b.status().IsStorage(StorageCode::kInternal));
  EXPECT_NE(b.status().message().find("data.mdb"), std::string::npos) << b.status().message();
}

TEST(EmbeddedBackendTest, TruncatedDataFileIsRefused) {
  TestDir dir;
  {
    auto b = MustOpen(Opts(dir.path()));
    ASSERT_TRUE(SyncWait(b->Put("/a", "1")).ok());
  }
  std::filesystem::resize_file(dir.sub("data.mdb"), 100);
  auto b = OpenEmbeddedBackend(Opts(dir.path()));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("data.mdb"), std::string::npos) << b.status().message();
}

TEST(EmbeddedBackendTest, LmdbFileOfAnotherProgramIsRefused) {
  TestDir dir;
  MDB_env* env;
  ASSERT_EQ(mdb_env_create(&env), 0);
  ASSERT_EQ(mdb_env_open(env, dir.path().c_str(), 0, 0600), 0);
  MDB_txn* txn;
  MDB_dbi dbi;
  ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
  ASSERT_EQ(mdb_dbi_open(txn, nullptr, 0, &dbi), 0);
  MDB_val k{3, const_cast<char*>("foo")}, v{3, const_cast<char*>("bar")};
  ASSERT_EQ(mdb_put(txn, dbi, &k, &v, 0), 0);
  ASSERT_EQ(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
  auto b = OpenEmbeddedBackend(Opts(dir.path()));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("another program"), std::string::npos) << b.status().message();
}

TEST(EmbeddedBackendTest, NewerFormatVersionIsRefused) {
  TestDir dir;
  MustOpen(Opts(dir.path())).reset();
  MDB_env* env;
  ASSERT_EQ(mdb_env_create(&env), 0);
  mdb_env_set_maxdbs(env, 4);
  ASSERT_EQ(mdb_env_open(env, dir.path().c_str(), 0, 0600), 0);
  MDB_txn* txn;
  MDB_dbi dbi;
  ASSERT_EQ(mdb_txn_begin(env, nullptr, 0, &txn), 0);
  ASSERT_EQ(mdb_dbi_open(txn, "meta", 0, &dbi), 0);
  char nine[8] = {0, 0, 0, 0, 0, 0, 0, 9};
  MDB_val k{14, const_cast<char*>("format_version")}, v{8, nine};
  ASSERT_EQ(mdb_put(txn, dbi, &k, &v, 0), 0);
  ASSERT_EQ(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
  auto b = OpenEmbeddedBackend(Opts(dir.path()));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("format version 9"), std::string::npos) << b.status().message();
}

// Flips one bit in every copy of `marker` in the data file (stale copies sit in free pages).
void FlipInDataFile(const TestDir& dir, const std::string& marker) {
  std::string bytes;
  {
    std::ifstream f(dir.sub("data.mdb"), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(f), {});
  }
  size_t at = bytes.find(marker);
  ASSERT_NE(at, std::string::npos);
  for (; at != std::string::npos; at = bytes.find(marker, at + 1)) bytes[at + 5] ^= 0x01;
  std::ofstream f(dir.sub("data.mdb"), std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

TEST(EmbeddedBackendTest, CorruptHistoryRecordIsRefusedAtOpen) {
  TestDir dir;
  const std::string marker = "/CAPSTAN-CORRUPTION-MARKER-0123456789";
  {
    auto b = MustOpen(Opts(dir.path()));
    ASSERT_TRUE(SyncWait(b->Put(marker, "value")).ok());
  }
  FlipInDataFile(dir, marker);
  auto b = OpenEmbeddedBackend(Opts(dir.path()));
  ASSERT_FALSE(b.ok());
  EXPECT_TRUE(b.status().IsStorage(StorageCode::kInternal));
  EXPECT_NE(b.status().message().find("corrupt"), std::string::npos) << b.status().message();
}

TEST(EmbeddedBackendTest, CorruptValueIsAnErrorWhenRead) {
  TestDir dir;
  const std::string marker = "CAPSTAN-CORRUPTION-MARKER-0123456789";
  {
    auto b = MustOpen(Opts(dir.path()));
    ASSERT_TRUE(SyncWait(b->Put("/k", marker)).ok());
    ASSERT_TRUE(SyncWait(b->Put("/ok", "fine")).ok());
  }
  FlipInDataFile(dir, marker);
  auto b = MustOpen(Opts(dir.path()));
  ASSERT_TRUE(b);
  auto r = SyncWait(b->Get("/k"));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsStorage(StorageCode::kInternal));
  EXPECT_NE(r.status().message().find("corrupt"), std::string::npos) << r.status().message();
  auto ok = SyncWait(b->Get("/ok"));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)->value, "fine");
}

TEST(EmbeddedBackendTest, QuotaExceededFailsWritesButReadsAndDeletesWork) {
  TestDir dir;
  EmbeddedOptions o = Opts(dir.path());
  o.quota_bytes = 1 << 20;
  auto b = MustOpen(o);
  std::string value(8192, 'v');
  Status last;
  int written = 0;
  for (int i = 0; i < 1000; ++i) {
    auto r = SyncWait(b->Put("/q/" + std::to_string(i), value));
    if (!r.ok()) {
      last = r.TakeStatus();
      break;
    }
    ++written;
  }
  ASSERT_FALSE(last.ok()) << "wrote " << written << " values without hitting the quota";
  EXPECT_TRUE(last.IsStorage(StorageCode::kQuotaExceeded)) << last.ToString();
  EXPECT_EQ(last.message(), "etcdserver: mvcc: database space exceeded");
  auto kv = SyncWait(b->Get("/q/0"));
  ASSERT_TRUE(kv.ok());
  EXPECT_TRUE(*kv);
  auto grant = SyncWait(b->LeaseGrant(10));
  EXPECT_TRUE(grant.status().IsStorage(StorageCode::kQuotaExceeded));
  // Deleting and compacting frees pages; once they are back on the free list writes work again.
  TxnRequest del;
  RequestOp op = RequestOp::Delete("/q/");
  op.delete_range.range_end = PrefixEnd("/q/");
  del.success.push_back(op);
  auto d = SyncWait(b->Txn(del));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_TRUE(SyncWait(b->Compact(d->revision)).ok());
  bool recovered = false;
  Status put_error;
  for (int i = 0; i < 5 && !recovered; ++i) {
    auto p = SyncWait(b->Put("/after", "small"));
    recovered = p.ok();
    put_error = p.TakeStatus();
  }
  EXPECT_TRUE(recovered) << put_error.ToString();
}

TEST(EmbeddedBackendTest, FreedPagesAreReusedUnderChurn) {
  TestDir dir;
  auto b = MustOpen(Opts(dir.path()));
  std::string value(2048, 'x');
  int64_t size_after_first = 0;
  for (int round = 0; round < 8; ++round) {
    int64_t rev = 0;
    for (int t = 0; t < 4; ++t) {
      TxnRequest txn;
      for (int i = t * 50; i < (t + 1) * 50; ++i) {
        txn.success.push_back(RequestOp::Put("/churn/" + std::to_string(i), value + std::to_string(round)));
      }
      auto r = SyncWait(b->Txn(std::move(txn)));
      ASSERT_TRUE(r.ok());
      rev = r->revision;
    }
    ASSERT_TRUE(SyncWait(b->Compact(rev)).ok());
    auto st = SyncWait(b->GetStatus());
    ASSERT_TRUE(st.ok());
    if (round == 1) size_after_first = st->db_size;
    if (round > 1) EXPECT_LE(st->db_size, size_after_first * 3 / 2) << "round " << round;
  }
}

TEST(EmbeddedBackendTest, AutomaticCompactionKeepsTheRetentionWindow) {
  TestDir dir;
  FakeClock clock;
  EmbeddedOptions o = Opts(dir.path());
  o.clock = &clock;
  o.tick = 5ms;
  auto b = MustOpen(o);  // revision 1 at t0
  auto compact_rev = [&] {
    auto s = SyncWait(b->GetStatus());
    return s.ok() ? s->compact_revision : -1;
  };
  ASSERT_TRUE(SyncWait(b->Put("/a", "1")).ok());  // 2
  ASSERT_TRUE(SyncWait(b->Put("/a", "2")).ok());  // 3
  clock.Advance(10s);
  ASSERT_TRUE(SyncWait(b->Put("/a", "3")).ok());  // 4: revision 3 was current until t0+10s
  clock.Advance(100s);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(compact_rev(), 0);  // the interval has not passed
  clock.Advance(195s);          // t0+305s: only what was current at t0 is past retention
  ASSERT_TRUE(Eventually([&] { return compact_rev() == 1; })) << compact_rev();
  EXPECT_EQ(SyncWait(b->Get("/a", 2))->value().value, "1");
  clock.Advance(300s);  // t0+605s: revision 4 has been current for longer than the retention
  ASSERT_TRUE(Eventually([&] { return compact_rev() == 4; })) << compact_rev();
  EXPECT_TRUE(SyncWait(b->Get("/a", 3)).status().IsStorage(StorageCode::kCompacted));
  EXPECT_EQ(SyncWait(b->Get("/a"))->value().value, "3");
}

TEST(EmbeddedBackendTest, LeaseExpiryFollowsTheClock) {
  TestDir dir;
  FakeClock clock;
  EmbeddedOptions o = Opts(dir.path());
  o.clock = &clock;
  o.tick = 5ms;
  auto b = MustOpen(o);
  auto g = SyncWait(b->LeaseGrant(30));
  ASSERT_TRUE(g.ok());
  ASSERT_TRUE(SyncWait(b->Put("/l/a", "1", g->id)).ok());
  ASSERT_TRUE(SyncWait(b->Put("/l/b", "1", g->id)).ok());
  int64_t before = SyncWait(b->GetStatus())->revision;
  clock.Advance(29s);
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(*SyncWait(b->Get("/l/a")));
  ASSERT_TRUE(SyncWait(b->LeaseKeepAlive(g->id)).ok());
  clock.Advance(29s);
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(*SyncWait(b->Get("/l/a")));
  clock.Advance(2s);
  ASSERT_TRUE(Eventually([&] { return !*SyncWait(b->Get("/l/a")); }));
  EXPECT_FALSE(*SyncWait(b->Get("/l/b")));
  // Both keys went in one revision, as etcd revokes a lease in one transaction.
  EXPECT_EQ(SyncWait(b->GetStatus())->revision, before + 1);
  EXPECT_TRUE(SyncWait(b->LeaseKeepAlive(g->id)).status().IsStorage(StorageCode::kKeyNotFound));
}

TEST(EmbeddedBackendTest, SlowWatcherIsEndedAndNeverBlocksWriters) {
  TestDir dir;
  EmbeddedOptions o = Opts(dir.path());
  o.watch_max_pending_events = 10;
  auto b = MustOpen(o);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::mutex mu;
  std::vector<WatchResponse> got;
  std::atomic<bool> first{true};
  WatchRequest w;
  w.key = "/s/";
  w.range_end = PrefixEnd("/s/");
  auto h = b->Watch(w, [&](WatchResponse r) {
    if (first.exchange(false)) released.wait();  // a stuck consumer
    std::lock_guard lock(mu);
    got.push_back(std::move(r));
  });
  // A healthy watcher on the same store keeps receiving meanwhile.
  std::atomic<int> healthy{0};
  auto h2 = b->Watch(w, [&](WatchResponse r) { healthy += static_cast<int>(r.events.size()); });
  // One write at a time, each seen by the healthy watcher before the next: on a loaded machine its
  // dispatch thread could otherwise fall more than 10 events behind too and be ended as well.
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(SyncWait(b->Put("/s/k" + std::to_string(i), "v")).ok());
    ASSERT_TRUE(Eventually([&] { return healthy.load() == i + 1; })) << "healthy watcher stopped at " << healthy.load();
  }
  release.set_value();
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard lock(mu);
    return !got.empty() && !got.back().error.ok();
  }));
  std::lock_guard lock(mu);
  EXPECT_TRUE(got.back().error.IsStorage(StorageCode::kUnavailable)) << got.back().error.ToString();
  EXPECT_NE(got.back().error.message().find("behind"), std::string::npos);
}

TEST(EmbeddedBackendTest, IdleWatchGetsPeriodicProgressNotifications) {
  TestDir dir;
  FakeClock clock;
  EmbeddedOptions o = Opts(dir.path());
  o.clock = &clock;
  o.tick = 5ms;
  o.watch_progress_interval = 10s;
  auto b = MustOpen(o);
  auto r = SyncWait(b->Put("/p/a", "1"));
  ASSERT_TRUE(r.ok());
  std::mutex mu;
  std::vector<WatchResponse> got;
  WatchRequest w;
  w.key = "/p/";
  w.range_end = PrefixEnd("/p/");
  w.progress_notify = true;
  auto h = b->Watch(w, [&](WatchResponse resp) {
    std::lock_guard lock(mu);
    got.push_back(std::move(resp));
  });
  WatchRequest quiet = w;
  quiet.progress_notify = false;
  std::atomic<int> quiet_responses{0};
  auto h2 = b->Watch(quiet, [&](WatchResponse) { ++quiet_responses; });
  std::this_thread::sleep_for(50ms);
  {
    std::lock_guard lock(mu);
    EXPECT_TRUE(got.empty());
  }
  clock.Advance(11s);
  ASSERT_TRUE(Eventually([&] {
    std::lock_guard lock(mu);
    return !got.empty();
  }));
  std::lock_guard lock(mu);
  EXPECT_TRUE(got[0].progress_notify);
  EXPECT_TRUE(got[0].events.empty());
  EXPECT_EQ(got[0].header_revision, r->revision);
  EXPECT_EQ(quiet_responses.load(), 0);
}

TEST(EmbeddedBackendTest, ClosingEndsWatchesWithUnavailable) {
  TestDir dir;
  auto b = MustOpen(Opts(dir.path()));
  std::promise<Status> ended;
  WatchRequest w;
  w.key = "/x";
  auto h = b->Watch(w, [&](WatchResponse r) {
    if (!r.error.ok()) ended.set_value(r.error);
  });
  b.reset();
  auto f = ended.get_future();
  ASSERT_EQ(f.wait_for(10s), std::future_status::ready);
  EXPECT_TRUE(f.get().IsStorage(StorageCode::kUnavailable));
}

TEST(EmbeddedBackendTest, ConcurrentWritersShareCommits) {
  TestDir dir;
  MetricsRegistry registry;
  EmbeddedOptions o = Opts(dir.path());
  o.metrics = &registry;
  auto b = MustOpen(o);
  constexpr int kThreads = 32, kEach = 20;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) EXPECT_TRUE(SyncWait(b->Put("/c/" + std::to_string(t), "v")).ok());
    });
  }
  for (auto& t : threads) t.join();
  std::string text = registry.Expose();
  // Fewer durable commits than writes: concurrent writes were grouped.
  auto pos = text.find("etcd_disk_backend_commit_duration_seconds_count ");
  ASSERT_NE(pos, std::string::npos) << text;
  double commits = std::stod(text.substr(pos + strlen("etcd_disk_backend_commit_duration_seconds_count ")));
  EXPECT_GT(commits, 0);
  EXPECT_LT(commits, kThreads * kEach);
  EXPECT_NE(text.find("etcd_mvcc_db_total_size_in_bytes"), std::string::npos);
  // The gauge follows each commit right after its writers were completed.
  std::string want = "etcd_debugging_mvcc_current_revision " + std::to_string(1 + kThreads * kEach);
  EXPECT_TRUE(Eventually([&] { return registry.Expose().find(want) != std::string::npos; })) << registry.Expose();
}

}  // namespace
}  // namespace capstan::storage::embedded
