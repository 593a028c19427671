// The etcd3 backend against real etcd clusters that misbehave: members that die, come back, hang or
// refuse; TLS with client certificates; quota and size limits; shutdown with watches open.
#include <gtest/gtest.h>
#include <unistd.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "storage/etcd3/etcd3_backend.h"
#include "storage/etcd3/health_check.h"
#include "storage/etcd3/etcd_test_cluster.h"

namespace capstan::storage::etcd3 {
namespace {

using namespace std::chrono_literals;
using capstan::testing::EtcdCluster;
using capstan::testing::EtcdClusterOptions;

class Collector {
 public:
  WatchCallback Callback() {
    return [this](WatchResponse r) {
      std::lock_guard lock(mu_);
      responses_.push_back(std::move(r));
      cv_.notify_all();
    };
  }
  bool WaitFor(const std::function<bool(const std::vector<WatchResponse>&)>& pred,
               std::chrono::milliseconds timeout = 30s) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return pred(responses_); });
  }
  bool WaitForEvents(size_t n, std::chrono::milliseconds timeout = 30s) {
    return WaitFor([n](const auto& rs) { return Count(rs) >= n; }, timeout);
  }
  std::vector<WatchEvent> Events() {
    std::lock_guard lock(mu_);
    std::vector<WatchEvent> out;
    for (const auto& r : responses_) out.insert(out.end(), r.events.begin(), r.events.end());
    return out;
  }
  Status Error() {
    std::lock_guard lock(mu_);
    for (const auto& r : responses_) {
      if (!r.error.ok()) return r.error;
    }
    return Status();
  }
  std::vector<WatchResponse> Responses() {
    std::lock_guard lock(mu_);
    return responses_;
  }

 private:
  static size_t Count(const std::vector<WatchResponse>& rs) {
    size_t n = 0;
    for (const auto& r : rs) n += r.events.size();
    return n;
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<WatchResponse> responses_;
};

class EtcdClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/capstan-etcd3-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    cluster_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void StartCluster(int members, std::vector<std::string> extra = {}) {
    EtcdClusterOptions o;
    o.members = members;
    o.dir = dir_ + "/etcd";
    o.extra_flags = std::move(extra);
    std::string error;
    cluster_ = EtcdCluster::Start(o, &error);
    ASSERT_TRUE(cluster_) << error;
  }

  std::unique_ptr<Etcd3Backend> Open(EtcdOptions o = {}) {
    if (o.endpoints.empty()) o.endpoints = cluster_->ClientUrls();
    auto b = OpenEtcd3Backend(o);
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    if (!b.ok()) return nullptr;
    return std::move(*b);
  }

  // Retries a put until it succeeds (a member may be electing a leader); returns its revision.
  int64_t PutEventually(Backend& b, const std::string& key, const std::string& value) {
    auto deadline = std::chrono::steady_clock::now() + 30s;
    for (;;) {
      auto r = SyncWait(b.Put(key, value));
      if (r.ok()) return r->revision;
      EXPECT_TRUE(r.status().IsStorage(StorageCode::kUnavailable)) << r.status().ToString();
      if (std::chrono::steady_clock::now() > deadline) {
        ADD_FAILURE() << "put never succeeded: " << r.status().ToString();
        return -1;
      }
      std::this_thread::sleep_for(50ms);
    }
  }

  std::string dir_;
  std::unique_ptr<EtcdCluster> cluster_;
};

TEST_F(EtcdClusterTest, WatchResumesAfterTheMemberRestartsWithNoGapAndNoRepeat) {
  StartCluster(1);
  auto b = Open();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->WaitForConnected(20s).ok());
  int64_t first = SyncWait(b->Put("/w/seed", "x"))->revision;
  Collector c;
  WatchRequest w;
  w.key = "/w/";
  w.range_end = PrefixEnd("/w/");
  w.start_revision = first + 1;
  w.prev_kv = true;
  auto h = b->Watch(w, c.Callback());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(SyncWait(b->Put("/w/k" + std::to_string(i % 3), std::to_string(i))).ok());
  ASSERT_TRUE(c.WaitForEvents(20));
  cluster_->Kill(0);
  // While etcd is down, calls fail promptly with kUnavailable.
  auto down = SyncWait(b->Get("/w/k0"));
  ASSERT_FALSE(down.ok());
  EXPECT_TRUE(down.status().IsStorage(StorageCode::kUnavailable)) << down.status().ToString();
  std::string error;
  ASSERT_TRUE(cluster_->Restart(0, &error)) << error;
  for (int i = 20; i < 40; ++i) PutEventually(*b, "/w/k" + std::to_string(i % 3), std::to_string(i));
  ASSERT_TRUE(c.WaitForEvents(40)) << c.Error().ToString();
  auto ev = c.Events();
  ASSERT_EQ(ev.size(), 40u);
  for (size_t i = 0; i < ev.size(); ++i) {
    EXPECT_EQ(ev[i].kv.value, std::to_string(i));
    if (i > 0) EXPECT_LT(ev[i - 1].kv.mod_revision, ev[i].kv.mod_revision);
    if (i >= 3) {
      ASSERT_TRUE(ev[i].prev_kv);
      EXPECT_EQ(ev[i].prev_kv->value, std::to_string(i - 3));
    }
  }
  EXPECT_TRUE(c.Error().ok());
}

TEST_F(EtcdClusterTest, FailsOverToAnotherMemberForReadsWritesAndWatches) {
  StartCluster(3);
  auto b = Open();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->WaitForConnected(20s).ok());
  Collector c;
  WatchRequest w;
  w.key = "/f/";
  w.range_end = PrefixEnd("/f/");
  w.start_revision = SyncWait(b->Put("/f/start", "0"))->revision + 1;
  auto h = b->Watch(w, c.Callback());
  for (int i = 0; i < 10; ++i) PutEventually(*b, "/f/k", std::to_string(i));
  // The client prefers the first member: take it away, and the next one later.
  cluster_->Kill(0);
  for (int i = 10; i < 20; ++i) PutEventually(*b, "/f/k", std::to_string(i));
  auto got = SyncWait(b->Get("/f/k"));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)->value, "19");
  std::string error;
  ASSERT_TRUE(cluster_->Restart(0, &error)) << error;
  cluster_->Kill(1);
  for (int i = 20; i < 30; ++i) PutEventually(*b, "/f/k", std::to_string(i));
  ASSERT_TRUE(c.WaitForEvents(30)) << c.Error().ToString();
  auto ev = c.Events();
  ASSERT_EQ(ev.size(), 30u);
  for (size_t i = 0; i < ev.size(); ++i) EXPECT_EQ(ev[i].kv.value, std::to_string(i));
}

TEST_F(EtcdClusterTest, AHungMemberTimesOutInsteadOfHanging) {
  StartCluster(1);
  EtcdOptions o;
  o.request_timeout = 1s;
  auto b = Open(o);
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->WaitForConnected(20s).ok());
  cluster_->Pause(0);
  auto start = std::chrono::steady_clock::now();
  auto r = SyncWait(b->Put("/h/k", "v"));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsStorage(StorageCode::kUnavailable)) << r.status().ToString();
  EXPECT_FALSE(SyncWait(b->Check()).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  cluster_->Resume(0);
  PutEventually(*b, "/h/k", "v");
}

TEST_F(EtcdClusterTest, StartsWhileEtcdIsDownAndAnswersOnceItIsUp) {
  EtcdOptions o;
  o.endpoints = {"http://127.0.0.1:" + std::to_string(capstan::testing::FreeLoopbackPort())};
  o.request_timeout = 2s;
  auto b = Open(o);
  ASSERT_TRUE(b);
  Status st = b->WaitForConnected(300ms);
  EXPECT_TRUE(st.IsStorage(StorageCode::kUnavailable)) << st.ToString();
  auto r = SyncWait(b->Range(RangeRequest{"/x"}));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsStorage(StorageCode::kUnavailable)) << r.status().ToString();
}

TEST_F(EtcdClusterTest, TlsWithClientCertificates) {
  capstan::testing::EtcdTlsFiles server;
  std::string client_cert, client_key, error;
  ASSERT_TRUE(capstan::testing::MakeEtcdTestPki(dir_ + "/pki", &server, &client_cert, &client_key, &error)) << error;
  EtcdClusterOptions co;
  co.dir = dir_ + "/etcd";
  co.tls = true;
  co.tls_files = server;
  cluster_ = EtcdCluster::Start(co, &error);
  ASSERT_TRUE(cluster_) << error;
  EtcdOptions o;
  o.ca_file = server.ca_file;
  o.cert_file = client_cert;
  o.key_file = client_key;
  o.request_timeout = 5s;
  auto b = Open(o);
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->WaitForConnected(20s).ok());
  ASSERT_TRUE(SyncWait(b->Put("/tls/k", "v")).ok());
  EXPECT_EQ(SyncWait(b->Get("/tls/k"))->value().value, "v");
  // Without a client certificate etcd refuses the connection.
  EtcdOptions anon = o;
  anon.cert_file.clear();
  anon.key_file.clear();
  auto a = Open(anon);
  ASSERT_TRUE(a);
  auto r = SyncWait(a->Get("/tls/k"));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsStorage(StorageCode::kUnavailable)) << r.status().ToString();
  // A client that does not trust etcd's CA refuses etcd.
  EtcdOptions wrong = o;
  wrong.ca_file = client_cert;  // not a CA of the server's chain
  auto w = Open(wrong);
  ASSERT_TRUE(w);
  EXPECT_FALSE(SyncWait(w->Get("/tls/k")).ok());
  // Plain http to a TLS member fails too, and clearly.
  EtcdOptions plain;
  plain.endpoints = {"http://" + cluster_->ClientUrl(0).substr(8)};
  plain.request_timeout = 2s;
  auto p = Open(plain);
  ASSERT_TRUE(p);
  EXPECT_FALSE(SyncWait(p->Get("/tls/k")).ok());
}

TEST_F(EtcdClusterTest, QuotaAndSizeLimitsMapToTheirCodes) {
  StartCluster(1, {"--quota-backend-bytes=" + std::to_string(4 << 20)});
  auto b = Open();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->WaitForConnected(20s).ok());
  auto big = SyncWait(b->Put("/q/big", std::string(2 << 20, 'x')));
  ASSERT_FALSE(big.ok());
  EXPECT_TRUE(big.status().IsStorage(StorageCode::kTooLarge)) << big.status().ToString();
  Status last;
  for (int i = 0; i < 200 && last.ok(); ++i) {
    auto r = SyncWait(b->Put("/q/k" + std::to_string(i), std::string(512 << 10, 'y')));
    last = r.TakeStatus();
  }
  EXPECT_TRUE(last.IsStorage(StorageCode::kQuotaExceeded)) << last.ToString();
  // Reads still work.
  EXPECT_TRUE(SyncWait(b->Get("/q/k0")).ok());
}

TEST_F(EtcdClusterTest, DestroyingTheBackendEndsWatchesWithUnavailable) {
  StartCluster(1);
  auto b = Open();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->WaitForConnected(20s).ok());
  Collector c;
  WatchRequest w;
  w.key = "/d/";
  w.range_end = PrefixEnd("/d/");
  auto h = b->Watch(w, c.Callback());
  ASSERT_TRUE(SyncWait(b->Put("/d/a", "1")).ok());
  ASSERT_TRUE(c.WaitForEvents(1));
  b.reset();
  ASSERT_TRUE(c.WaitFor([](const auto& rs) { return !rs.empty() && !rs.back().error.ok(); }));
  EXPECT_TRUE(c.Error().IsStorage(StorageCode::kUnavailable)) << c.Error().ToString();
  h->RequestProgress();  // harmless after the end
  h.reset();
}

TEST_F(EtcdClusterTest, ProgressNotificationsNeverRunAheadOfDeliveredEvents) {
  StartCluster(1, {"--experimental-watch-progress-notify-interval=500ms"});
  auto b = Open();
  ASSERT_TRUE(b);
  ASSERT_TRUE(b->WaitForConnected(20s).ok());
  Collector c;
  WatchRequest w;
  w.key = "/p/";
  w.range_end = PrefixEnd("/p/");
  w.progress_notify = true;
  w.start_revision = SyncWait(b->Put("/other", "0"))->revision + 1;
  auto h = b->Watch(w, c.Callback());
  int64_t last = 0;
  for (int i = 0; i < 30; ++i) {
    last = SyncWait(b->Put(i % 2 ? "/p/k" : "/other", std::to_string(i)))->revision;
    h->RequestProgress();
  }
  // Periodic notifications (ordered by etcd) eventually report the last revision.
  ASSERT_TRUE(c.WaitFor([&](const auto& rs) {
    for (const auto& r : rs) {
      if (r.progress_notify && r.header_revision >= last) return true;
    }
    return false;
  }));
  // No notification ever claims a revision whose events for this prefix came after it.
  int64_t delivered = w.start_revision - 1;
  for (const auto& r : c.Responses()) {
    if (r.progress_notify) {
      EXPECT_TRUE(r.events.empty());
      delivered = std::max(delivered, r.header_revision);
    }
    for (const auto& e : r.events) EXPECT_GT(e.kv.mod_revision, delivered) << "event after a progress notification";
    if (!r.events.empty()) delivered = std::max(delivered, r.events.back().kv.mod_revision);
  }
  EXPECT_EQ(c.Events().size(), 15u);
}

TEST_F(EtcdClusterTest, HealthChecksFollowEtcdFromStartThroughAnOutageAndBack) {
  int port = capstan::testing::FreeLoopbackPort();
  EtcdOptions o;
  o.endpoints = {"http://127.0.0.1:" + std::to_string(port)};
  o.health_key = "/registry/health";
  EtcdHealth health(o, 200ms);
  auto check = health.MakeCheck(1s);
  Status before = SyncWait(check());
  ASSERT_FALSE(before.ok());
  EXPECT_EQ(before.code(), 500);
  EXPECT_FALSE(health.WaitForClient(300ms).ok());

  EtcdClusterOptions co;
  co.dir = dir_ + "/etcd";
  co.client_ports = {port};
  std::string error;
  cluster_ = EtcdCluster::Start(co, &error);
  ASSERT_TRUE(cluster_) << error;
  ASSERT_TRUE(health.WaitForClient(20s).ok());
  // The first probe after the client is published answers; probes are rate limited to one per
  // half timeout, so wait that long between the checks that must see a change.
  Status up = SyncWait(check());
  EXPECT_TRUE(up.ok()) << up.ToString();

  cluster_->Pause(0);
  std::this_thread::sleep_for(600ms);
  auto start = std::chrono::steady_clock::now();
  Status hung = SyncWait(check());
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  ASSERT_FALSE(hung.ok());
  EXPECT_EQ(hung.message().rfind("error getting data from etcd: ", 0), 0u) << hung.message();
  // A check right after gets the last result without probing again.
  EXPECT_FALSE(SyncWait(check()).ok());

  cluster_->Resume(0);
  bool recovered = false;
  for (int i = 0; i < 100 && !recovered; ++i) {
    std::this_thread::sleep_for(100ms);
    recovered = SyncWait(check()).ok();
  }
  EXPECT_TRUE(recovered);
}

}  // namespace
}  // namespace capstan::storage::etcd3
