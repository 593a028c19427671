// End-to-end: two Capstan replicas on one 3-member etcd cluster (the machine's etcd-server), all on
// loopback. The replicas share the cluster's key material (the second starts with a copy of the
// first's pki/), as kube-apiserver replicas share their CA and service-account keys.
//  - a write through one replica is seen by a watch on the other (and how long that takes);
//  - resourceVersions agree across replicas (GET, LIST, optimistic concurrency);
//  - ClusterIPs never double when both replicas allocate at once;
//  - only one replica compacts per interval (etcd's compact_rev_key);
//  - killing an etcd member under write load loses no acknowledged write; killing a replica leaves the
//    other serving; stopping everything (replicas and every etcd member, SIGKILL) and starting it again
//    preserves every object.
// The tests share one cluster and run in the order written (the last ones kill things).
// A last test runs its own cluster (one etcd member, two replicas with short leader-election timings):
// the Lease holder is SIGKILLed, the other replica takes the Lease and runs the control loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "e2e_util.h"
#include "etcd_e2e_helpers.h"
#include "storage/etcd3/etcd_test_cluster.h"

namespace capstan::e2e {
namespace {

using namespace etcd_e2e;
using capstan::testing::EtcdCluster;
using capstan::testing::EtcdClusterOptions;
using Clock = std::chrono::steady_clock;
namespace json = boost::json;

long long MsSince(Clock::time_point t) {
  return static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count());
}

struct Cluster {
  std::string dir;
  std::unique_ptr<EtcdCluster> etcd;
  std::unique_ptr<ServerProcess> replica[2];
  Clock::time_point started;
  std::string error;
};
Cluster* g = nullptr;

constexpr int kCompactionSeconds = 1;

class ReplicasE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    g = new Cluster;
    g->dir = MakeTempDir("capstan-replicas-e2e");
    EtcdClusterOptions eo;
    eo.members = 3;
    eo.dir = g->dir + "/etcd";
    g->etcd = EtcdCluster::Start(eo, &g->error);
    if (!g->etcd) return;
    std::vector<std::string> flags = {"--etcd-servers", g->etcd->Endpoints(), "--etcd-compaction-interval",
                                      std::to_string(kCompactionSeconds) + "s"};
    g->started = Clock::now();  // compaction rounds start with the first replica
    for (int i = 0; i < 2; ++i) {
      std::string d = g->dir + "/replica" + std::to_string(i);
      std::filesystem::create_directories(d);
      if (i == 1) {
        std::filesystem::copy(g->dir + "/replica0/pki", d + "/pki", std::filesystem::copy_options::recursive);
      }
      g->replica[i] = std::make_unique<ServerProcess>(flags, d);
      if (!g->replica[i]->ok()) {
        g->error = "replica " + std::to_string(i) + ": " + g->replica[i]->error() + "\n" + g->replica[i]->log();
        return;
      }
    }
  }
  static void TearDownTestSuite() {
    for (auto& r : g->replica) r.reset();
    g->etcd.reset();
    std::filesystem::remove_all(g->dir);
    delete g;
    g = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(g->error.empty()) << g->error; }

  static ServerProcess& R(int i) { return *g->replica[i]; }
  static std::string Req(int i, const std::string& method, const std::string& path, const std::string& body = "",
                         const std::string& type = "application/json") {
    return Raw(R(i).port(), R(i).data_dir(), method, path, body, type);
  }
  static void EnsureNamespace(const std::string& ns) {
    std::string r = Req(0, "POST", "/api/v1/namespaces", R"({"metadata":{"name":")" + ns + R"("}})");
    ASSERT_TRUE(HttpStatusOf(r) == 201 || HttpStatusOf(r) == 409) << r;
  }
};

TEST_F(ReplicasE2E, AWriteThroughOneReplicaIsSeenByAWatchOnTheOther) {
  ASSERT_NO_FATAL_FAILURE(EnsureNamespace("watched"));
  std::string out = g->dir + "/watch-b.out";
  Background watch({KubectlPath(), "--kubeconfig", R(1).kubeconfig(), "get", "configmaps", "-n", "watched", "-w",
                    "--output-watch-events", "-o", "name"},
                   out);
  // The watch is open once it has printed the namespace's root CA configmap.
  for (int i = 0; i < 200 && ReadFile(out).find("kube-root-ca.crt") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(ReadFile(out).find("kube-root-ca.crt"), std::string::npos) << ReadFile(out + ".err");
  std::vector<long long> latency;
  for (int n = 0; n < 20; ++n) {
    std::string name = "w" + std::to_string(n);
    auto t = Clock::now();
    std::string r = Req(0, "POST", "/api/v1/namespaces/watched/configmaps", R"({"metadata":{"name":")" + name + R"("}})");
    ASSERT_EQ(HttpStatusOf(r), 201) << r;
    bool seen = false;
    while (!seen && MsSince(t) < 20000) {
      seen = ReadFile(out).find("configmap/" + name + "\n") != std::string::npos;
      if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_TRUE(seen) << name << " not seen on the other replica: " << ReadFile(out) << ReadFile(out + ".err");
    latency.push_back(MsSince(t));
  }
  std::sort(latency.begin(), latency.end());
  std::printf("write on replica 0 -> kubectl watch on replica 1 (create + delivery + kubectl print): p50 %lld ms, "
              "max %lld ms over %zu writes\n",
              latency[latency.size() / 2], latency.back(), latency.size());
}

TEST_F(ReplicasE2E, ResourceVersionsAgreeAcrossReplicas) {
  ASSERT_NO_FATAL_FAILURE(EnsureNamespace("rv"));
  std::string created = Req(0, "POST", "/api/v1/namespaces/rv/configmaps", R"({"metadata":{"name":"c"},"data":{"k":"1"}})");
  ASSERT_EQ(HttpStatusOf(created), 201) << created;
  json::object a = JsonOf(created);
  std::string rv = StringAt(a, {"metadata", "resourceVersion"});
  std::string uid = StringAt(a, {"metadata", "uid"});
  ASSERT_FALSE(rv.empty());
  // The other replica: the same object at the same resourceVersion, at once (consistent reads).
  json::object b = JsonOf(Req(1, "GET", "/api/v1/namespaces/rv/configmaps/c"));
  EXPECT_EQ(StringAt(b, {"metadata", "resourceVersion"}), rv);
  EXPECT_EQ(StringAt(b, {"metadata", "uid"}), uid);
  json::object list = JsonOf(Req(1, "GET", "/api/v1/namespaces/rv/configmaps"));
  bool found = false;
  for (const auto& item : list["items"].as_array()) {
    if (StringAt(item.as_object(), {"metadata", "name"}) == "c") {
      found = true;
      EXPECT_EQ(StringAt(item.as_object(), {"metadata", "resourceVersion"}), rv);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_GE(std::stoll(StringAt(list, {"metadata", "resourceVersion"})), std::stoll(rv));
  // resourceVersion=<rv> (not older than) on the other replica is served too.
  EXPECT_EQ(HttpStatusOf(Req(1, "GET", "/api/v1/namespaces/rv/configmaps?resourceVersion=" + rv)), 200);
  // Optimistic concurrency spans replicas: an update on 1 with 0's version wins, then 0's stale one is 409.
  std::string put = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","resourceVersion":")" + rv +
                    R"("},"data":{"k":"2"}})";
  std::string u1 = Req(1, "PUT", "/api/v1/namespaces/rv/configmaps/c", put);
  ASSERT_EQ(HttpStatusOf(u1), 200) << u1;
  std::string rv2 = StringAt(JsonOf(u1), {"metadata", "resourceVersion"});
  EXPECT_GT(std::stoll(rv2), std::stoll(rv));
  std::string u0 = Req(0, "PUT", "/api/v1/namespaces/rv/configmaps/c", put);
  EXPECT_EQ(HttpStatusOf(u0), 409) << u0;
  EXPECT_NE(StringAt(JsonOf(u0), {"message"}).find("the object has been modified"), std::string::npos) << u0;
  EXPECT_EQ(StringAt(JsonOf(Req(0, "GET", "/api/v1/namespaces/rv/configmaps/c")), {"metadata", "resourceVersion"}), rv2);
}

TEST_F(ReplicasE2E, ClusterIpsNeverDoubleAcrossReplicas) {
  ASSERT_NO_FATAL_FAILURE(EnsureNamespace("svc"));
  std::mutex mu;
  std::vector<std::string> ips;
  std::vector<std::string> failures;
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      for (int n = 0; n < 10; ++n) {
        std::string name = "s" + std::to_string(t) + "-" + std::to_string(n);
        std::string r = Req(t % 2, "POST", "/api/v1/namespaces/svc/services",
                            R"({"metadata":{"name":")" + name + R"("},"spec":{"ports":[{"port":80}]}})");
        std::lock_guard lock(mu);
        if (HttpStatusOf(r) != 201) {
          failures.push_back(name + ": " + BodyOf(r));
          continue;
        }
        ips.push_back(StringAt(JsonOf(r), {"spec", "clusterIP"}));
      }
    });
  }
  for (auto& t : ts) t.join();
  EXPECT_TRUE(failures.empty()) << failures.front();
  std::set<std::string> distinct(ips.begin(), ips.end());
  EXPECT_EQ(distinct.size(), ips.size()) << "a ClusterIP was handed out twice";
  EXPECT_EQ(ips.size(), 40u);
  // Both replicas asking for one specific free address at once: exactly one gets it.
  std::string want;
  for (int last = 200; last < 250 && want.empty(); ++last) {
    std::string ip = "10.0.0." + std::to_string(last);
    if (!distinct.count(ip)) want = ip;
  }
  std::string r0, r1;
  std::thread a([&] {
    r0 = Req(0, "POST", "/api/v1/namespaces/svc/services",
             R"({"metadata":{"name":"fixed-0"},"spec":{"clusterIP":")" + want + R"(","ports":[{"port":80}]}})");
  });
  std::thread b([&] {
    r1 = Req(1, "POST", "/api/v1/namespaces/svc/services",
             R"({"metadata":{"name":"fixed-1"},"spec":{"clusterIP":")" + want + R"(","ports":[{"port":80}]}})");
  });
  a.join();
  b.join();
  int ok = (HttpStatusOf(r0) == 201) + (HttpStatusOf(r1) == 201);
  EXPECT_EQ(ok, 1) << r0 << "\n" << r1;
  std::string loser = HttpStatusOf(r0) == 201 ? r1 : r0;
  EXPECT_EQ(HttpStatusOf(loser), 422) << loser;
  EXPECT_NE(StringAt(JsonOf(loser), {"message"}).find("provided IP is already allocated"), std::string::npos) << loser;
  // The allocations live in etcd (kube's key), shared by the replicas.
  bool etcd_ok = true;
  std::string keys = g->etcd->Etcdctl({"get", "/registry/ranges/", "--prefix", "--keys-only"}, &etcd_ok);
  EXPECT_NE(keys.find("/registry/ranges/serviceips"), std::string::npos) << keys;
}

TEST_F(ReplicasE2E, OnlyOneReplicaCompactsPerInterval) {
  // Writes so that there is history to compact; then let a few intervals pass.
  ASSERT_NO_FATAL_FAILURE(EnsureNamespace("compact"));
  for (int n = 0; n < 5; ++n) {
    Req(n % 2, "POST", "/api/v1/namespaces/compact/configmaps", R"({"metadata":{"name":"c)" + std::to_string(n) + R"("}})");
    std::this_thread::sleep_for(std::chrono::milliseconds(kCompactionSeconds * 1000));
  }
  double elapsed = static_cast<double>(MsSince(g->started)) / 1000.0;
  auto count = [](const std::string& log) {
    size_t c = 0;
    for (size_t p = 0; (p = log.find("\"etcd compacted\"", p)) != std::string::npos; ++p) ++c;
    return c;
  };
  size_t c0 = count(R(0).log()), c1 = count(R(1).log());
  // compact_rev_key's version counts the rounds some replica won (one per interval at most).
  bool ok = true;
  std::string kv = g->etcd->Etcdctl({"get", "compact_rev_key", "-w", "json"}, &ok);
  ASSERT_TRUE(ok);
  json::object resp = json::parse(kv).as_object();
  ASSERT_TRUE(resp.contains("kvs")) << kv;
  int64_t version = resp["kvs"].as_array()[0].as_object()["version"].to_number<int64_t>();
  std::printf("after %.1f s with --etcd-compaction-interval=%ds: replica 0 compacted %zu times, replica 1 %zu times; "
              "compact_rev_key version %lld\n",
              elapsed, kCompactionSeconds, c0, c1, static_cast<long long>(version));
  EXPECT_GT(c0 + c1, 0u);
  // Two replicas compacting independently would make about two rounds per interval.
  EXPECT_LE(static_cast<double>(version), elapsed / kCompactionSeconds + 2);
  EXPECT_LE(static_cast<double>(c0 + c1), static_cast<double>(version));
}

TEST_F(ReplicasE2E, KillingAnEtcdMemberUnderWriteLoadLosesNoAcknowledgedWrite) {
  ASSERT_NO_FATAL_FAILURE(EnsureNamespace("load"));
  std::atomic<bool> stop{false};
  std::mutex mu;
  std::vector<std::string> acked;
  int failed = 0;
  std::string first_failure;
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t) {
    ts.emplace_back([&, t] {
      for (int n = 0; !stop; ++n) {
        std::string name = "l" + std::to_string(t) + "-" + std::to_string(n);
        auto start = Clock::now();
        std::string r = Req(t % 2, "POST", "/api/v1/namespaces/load/configmaps", R"({"metadata":{"name":")" + name + R"("}})");
        std::lock_guard lock(mu);
        if (HttpStatusOf(r) == 201) {
          acked.push_back(name);
        } else {
          if (failed++ == 0) first_failure = std::to_string(HttpStatusOf(r)) + " " + StringAt(JsonOf(r), {"message"});
          EXPECT_GE(HttpStatusOf(r), 500) << r;  // a 5xx Status, never a hang (the client gives up after 20 s)
          EXPECT_LT(MsSince(start), 19000);
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  g->etcd->Kill(0);
  auto killed = Clock::now();
  std::this_thread::sleep_for(std::chrono::seconds(4));
  stop = true;
  for (auto& t : ts) t.join();
  std::printf("%zu writes acknowledged, %d failed (first: %s), across an etcd member kill (%lld ms of load after it)\n",
              acked.size(), failed, first_failure.c_str(), MsSince(killed));
  ASSERT_GT(acked.size(), 0u);
  // Every acknowledged write is there, through either replica.
  for (int i = 0; i < 2; ++i) {
    json::object list = JsonOf(Req(i, "GET", "/api/v1/namespaces/load/configmaps"));
    std::set<std::string> names;
    for (const auto& item : list["items"].as_array()) names.insert(StringAt(item.as_object(), {"metadata", "name"}));
    size_t missing = 0;
    for (const auto& n : acked) missing += !names.count(n);
    EXPECT_EQ(missing, 0u) << "replica " << i;
  }
  // componentstatuses probes each member alone: etcd-0 (the killed one) is Unhealthy, the others Healthy.
  auto etcd_statuses = [](int i) {
    json::object list = JsonOf(Req(i, "GET", "/api/v1/componentstatuses"));
    std::string out;
    if (!list.contains("items")) return out;
    for (const auto& item : list["items"].as_array()) {
      const auto& o = item.as_object();
      std::string name = StringAt(o, {"metadata", "name"});
      if (name.rfind("etcd-", 0) != 0) continue;
      out += name + "=" + std::string(o.at("conditions").as_array()[0].as_object().at("status").as_string()) + " ";
    }
    return out;
  };
  std::string seen;
  for (int n = 0; n < 100 && seen != "etcd-0=False etcd-1=True etcd-2=True "; ++n) {
    seen = etcd_statuses(1);
    if (seen != "etcd-0=False etcd-1=True etcd-2=True ") std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(seen, "etcd-0=False etcd-1=True etcd-2=True ") << BodyOf(Req(1, "GET", "/api/v1/componentstatuses"));
  std::string err;
  EXPECT_TRUE(g->etcd->Restart(0, &err)) << err;
  for (int n = 0; n < 200 && seen != "etcd-0=True etcd-1=True etcd-2=True "; ++n) {
    seen = etcd_statuses(1);
    if (seen != "etcd-0=True etcd-1=True etcd-2=True ") std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(seen, "etcd-0=True etcd-1=True etcd-2=True ") << BodyOf(Req(1, "GET", "/api/v1/componentstatuses"));
}

TEST_F(ReplicasE2E, KillingOneReplicaLeavesTheOtherServing) {
  ASSERT_NO_FATAL_FAILURE(EnsureNamespace("survivor"));
  R(0).Stop(SIGKILL);
  std::string r = Req(1, "POST", "/api/v1/namespaces/survivor/configmaps", R"({"metadata":{"name":"after-kill"}})");
  EXPECT_EQ(HttpStatusOf(r), 201) << r;
  EXPECT_EQ(HttpStatusOf(Req(1, "GET", "/api/v1/namespaces/survivor/configmaps/after-kill")), 200);
  auto ready = RawHttps(R(1).port(), {"GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"});
  EXPECT_EQ(HttpStatusOf(ready.response), 200) << ready.response;
  auto k = R(1).Kubectl({"get", "configmaps", "-n", "survivor", "-o", "name"});
  EXPECT_EQ(k.exit_code, 0) << k.err;
  EXPECT_NE(k.out.find("configmap/after-kill"), std::string::npos);
}

// Every configmap and service, as "namespace/name@resourceVersion", through replica i.
std::set<std::string> Inventory(int port, const std::string& data_dir) {
  std::set<std::string> out;
  for (const char* path : {"/api/v1/configmaps", "/api/v1/services"}) {
    json::object list = JsonOf(Raw(port, data_dir, "GET", path));
    if (!list.contains("items")) return {};
    for (const auto& item : list["items"].as_array()) {
      const auto& o = item.as_object();
      std::string id = std::string(path) + ":" + StringAt(o, {"metadata", "namespace"}) + "/" + StringAt(o, {"metadata", "name"});
      // The default/kubernetes Service is reconciled by every start (as kube's is): its version moves.
      if (id != "/api/v1/services:default/kubernetes") id += "@" + StringAt(o, {"metadata", "resourceVersion"});
      out.insert(id);
    }
  }
  return out;
}

TEST_F(ReplicasE2E, RestartingEverythingPreservesEveryObject) {
  std::set<std::string> before = Inventory(R(1).port(), R(1).data_dir());
  ASSERT_GT(before.size(), 300u);
  for (auto& r : g->replica) r->Stop(SIGKILL);
  for (int i = 0; i < g->etcd->size(); ++i) g->etcd->Kill(i, SIGKILL);
  // Two members must come up together to have a quorum (a member is healthy only with one).
  std::string err0, err1, err2;
  bool ok0 = false;
  std::thread first([&] { ok0 = g->etcd->Restart(0, &err0); });
  bool ok1 = g->etcd->Restart(1, &err1);
  first.join();
  ASSERT_TRUE(ok0) << err0;
  ASSERT_TRUE(ok1) << err1;
  ASSERT_TRUE(g->etcd->Restart(2, &err2)) << err2;
  std::vector<std::string> flags = {"--etcd-servers", g->etcd->Endpoints(), "--etcd-compaction-interval",
                                    std::to_string(kCompactionSeconds) + "s"};
  for (int i = 0; i < 2; ++i) {
    std::string d = g->replica[i]->data_dir();
    g->replica[i].reset();
    g->replica[i] = std::make_unique<ServerProcess>(flags, d);
    ASSERT_TRUE(g->replica[i]->ok()) << g->replica[i]->error() << "\n" << g->replica[i]->log();
  }
  for (int i = 0; i < 2; ++i) {
    std::set<std::string> after = Inventory(R(i).port(), R(i).data_dir());
    std::vector<std::string> lost;
    std::set_difference(before.begin(), before.end(), after.begin(), after.end(), std::back_inserter(lost));
    EXPECT_TRUE(lost.empty()) << "replica " << i << " lost " << lost.size() << ", e.g. " << lost.front();
  }
}

// Leader handover, on its own cluster (one etcd member) with short leader-election timings: two
// replicas campaign for kube-system/capstan-controller-manager (their own Lease); the holder is SIGKILLed; the other takes
// the Lease once it expires and its control loops run (a namespace created after the kill gets its
// `default` ServiceAccount and `kube-root-ca.crt` ConfigMap).
constexpr int kLeaseSeconds = 4;

// The Lease as seen through the replica on `port` ({} when it cannot be read).
json::object LeaseOf(int port, const std::string& data_dir) {
  json::object lease = JsonOf(
      Raw(port, data_dir, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/capstan-controller-manager"));
  if (!lease.contains("spec")) return {};
  return lease;
}

int64_t IntAt(const json::object& o, std::initializer_list<const char*> path) {
  const json::object* cur = &o;
  const json::value* v = nullptr;
  for (const char* k : path) {
    if (!cur) return -1;
    v = cur->if_contains(k);
    if (!v) return -1;
    cur = v->if_object();
  }
  return v && v->is_int64() ? v->as_int64() : -1;
}

TEST(ReplicasLeaderHandoverE2E, TheOtherReplicaTakesTheLeaseAndRunsTheControlLoops) {
  std::string dir = MakeTempDir("capstan-handover-e2e");
  std::string error;
  EtcdClusterOptions eo;
  eo.members = 1;
  eo.dir = dir + "/etcd";
  auto etcd = EtcdCluster::Start(eo, &error);
  ASSERT_TRUE(etcd) << error;
  std::vector<std::string> flags = {"--etcd-servers", etcd->Endpoints(),
                                    "--leader-elect-lease-duration", std::to_string(kLeaseSeconds) + "s",
                                    "--leader-elect-renew-deadline", "3s",
                                    "--leader-elect-retry-period", "500ms"};
  std::unique_ptr<ServerProcess> replica[2];
  for (int i = 0; i < 2; ++i) {
    std::string d = dir + "/replica" + std::to_string(i);
    std::filesystem::create_directories(d);
    if (i == 1) std::filesystem::copy(dir + "/replica0/pki", d + "/pki", std::filesystem::copy_options::recursive);
    replica[i] = std::make_unique<ServerProcess>(flags, d);
    ASSERT_TRUE(replica[i]->ok()) << "replica " << i << ": " << replica[i]->error() << "\n" << replica[i]->log();
  }
  auto lease_of = [&](int i) { return LeaseOf(replica[i]->port(), replica[i]->data_dir()); };
  // The replica whose log says it acquired the lease as `identity` (-1: neither, yet).
  auto holder_index = [&](const std::string& identity) {
    for (int i = 0; i < 2; ++i) {
      if (!replica[i]) continue;
      std::string log = replica[i]->log();
      if (log.find("successfully acquired lease") != std::string::npos && log.find(identity) != std::string::npos) {
        return i;
      }
    }
    return -1;
  };

  // One replica holds the Lease, with the configured duration.
  auto t = Clock::now();
  json::object lease;
  std::string holder;
  int leader = -1;
  while (MsSince(t) < 30000 && leader < 0) {
    lease = lease_of(0);
    holder = StringAt(lease, {"spec", "holderIdentity"});
    if (!holder.empty()) leader = holder_index(holder);
    if (leader < 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(leader, 0) << "no replica leads: " << json::serialize(lease) << "\n" << replica[0]->log() << "\n"
                       << replica[1]->log();
  EXPECT_EQ(IntAt(lease, {"spec", "leaseDurationSeconds"}), kLeaseSeconds) << json::serialize(lease);
  int64_t transitions_before = std::max<int64_t>(IntAt(lease, {"spec", "leaseTransitions"}), 0);
  int other = 1 - leader;
  // The other replica sees the same holder and does not lead.
  EXPECT_EQ(StringAt(lease_of(other), {"spec", "holderIdentity"}), holder);
  EXPECT_EQ(replica[other]->log().find("successfully acquired lease"), std::string::npos) << replica[other]->log();
  std::printf("replica %d leads as %s\n", leader, holder.c_str());
  // componentstatuses on the replica that does not lead: the control loops run (on the other one).
  auto component = [&](int i, const std::string& name) {
    json::object cs = JsonOf(Raw(replica[i]->port(), replica[i]->data_dir(), "GET", "/api/v1/componentstatuses/" + name));
    const auto* conditions = cs.if_contains("conditions");
    if (!conditions || !conditions->is_array() || conditions->as_array().empty()) return std::string("none");
    return StringAt(conditions->as_array()[0].as_object(), {"status"});
  };
  EXPECT_EQ(component(other, "controller-manager"), "True");
  EXPECT_EQ(component(other, "etcd-0"), "True");

  // SIGKILL the holder: it does not release the Lease; the other must wait for it to expire.
  std::string last_renew = StringAt(lease_of(other), {"spec", "renewTime"});
  replica[leader]->Stop(SIGKILL);
  auto killed = Clock::now();
  std::string new_holder;
  json::object after;
  while (MsSince(killed) < 60000) {
    after = lease_of(other);
    new_holder = StringAt(after, {"spec", "holderIdentity"});
    if (!new_holder.empty() && new_holder != holder) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  long long takeover_ms = MsSince(killed);
  ASSERT_NE(new_holder, holder) << "the Lease was not taken over: " << json::serialize(after);
  ASSERT_FALSE(new_holder.empty());
  std::printf("after SIGKILL of the holder, replica %d took the Lease after %lld ms (lease duration %d s, last renew "
              "%s, new acquireTime %s)\n",
              other, takeover_ms, kLeaseSeconds, last_renew.c_str(),
              StringAt(after, {"spec", "acquireTime"}).c_str());
  // Generous: the lease duration plus retry periods, on a loaded 2-core machine.
  EXPECT_LT(takeover_ms, (kLeaseSeconds + 20) * 1000LL);
  EXPECT_EQ(IntAt(after, {"spec", "leaseTransitions"}), transitions_before + 1) << json::serialize(after);
  for (int n = 0; n < 50 && holder_index(new_holder) != other; ++n) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(holder_index(new_holder), other) << "the new holder is not the surviving replica: " << new_holder;
  EXPECT_EQ(component(other, "controller-manager"), "True");

  // The control loops run on the survivor: a namespace created now gets its ServiceAccount and root CA.
  auto req = [&](const std::string& method, const std::string& path, const std::string& body = "") {
    return Raw(replica[other]->port(), replica[other]->data_dir(), method, path, body);
  };
  auto created = Clock::now();
  std::string ns = req("POST", "/api/v1/namespaces", R"({"metadata":{"name":"after-handover"}})");
  ASSERT_EQ(HttpStatusOf(ns), 201) << ns;
  bool sa = false, cm = false;
  long long sa_ms = -1, cm_ms = -1;
  while (MsSince(created) < 30000 && !(sa && cm)) {
    if (!sa && HttpStatusOf(req("GET", "/api/v1/namespaces/after-handover/serviceaccounts/default")) == 200) {
      sa = true;
      sa_ms = MsSince(created);
    }
    if (!cm && HttpStatusOf(req("GET", "/api/v1/namespaces/after-handover/configmaps/kube-root-ca.crt")) == 200) {
      cm = true;
      cm_ms = MsSince(created);
    }
    if (!(sa && cm)) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(sa) << "no default ServiceAccount after the handover\n" << replica[other]->log();
  EXPECT_TRUE(cm) << "no kube-root-ca.crt ConfigMap after the handover\n" << replica[other]->log();
  std::printf("namespace created on the new leader: default ServiceAccount after %lld ms, kube-root-ca.crt after %lld ms\n",
              sa_ms, cm_ms);

  for (auto& r : replica) r.reset();
  etcd.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace capstan::e2e
