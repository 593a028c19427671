// The control loops in process, over the real registry and the embedded store in a temp dir (no
// HTTP): namespace deletion, garbage collection under each propagation policy, service accounts,
// the root CA ConfigMap, the token cleaner, leader election and the work-queue metrics.
// Waits poll for an outcome with a generous deadline; nothing asserts how fast it happens.
#include "controllers/controller_manager.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <thread>

#include "api/coordination/coordination.h"
#include "api/core/core.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/time_util.h"
#include "endpoints/installer.h"
#include "storage/backend_object_store.h"
#include "storage/embedded/embedded_backend.h"
#include "util/strings.h"

namespace capstan::controllers {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;

const Gvr kNamespaces{"", "v1", "namespaces"};
const Gvr kConfigMaps{"", "v1", "configmaps"};
const Gvr kSecrets{"", "v1", "secrets"};
const Gvr kServiceAccounts{"", "v1", "serviceaccounts"};
const Gvr kEvents{"", "v1", "events"};
const Gvr kLeases{"coordination.k8s.io", "v1", "leases"};

bool Eventually(const std::function<bool()>& cond, std::chrono::seconds timeout = std::chrono::seconds(60)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

Object Parse(const std::string& s) { return json::parse(s).as_object(); }

class ControllersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "capstan-ctrl-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    storage::EmbeddedOptions eo;
    eo.dir = dir_ + "/store";
    auto backend = storage::OpenEmbeddedBackend(eo);
    ASSERT_TRUE(backend.ok()) << backend.status().message();
    backend_ = std::move(*backend);
    objects_ = std::make_unique<storage::BackendObjectStore>(*backend_);
    registry::GroupDeps deps;
    deps.store = objects_.get();
    endpoints::InstallResources(apis_, api::core::Install(deps));
    endpoints::InstallResources(apis_, api::coordination::Install(deps));
    client_ = std::make_unique<ApiClient>(apis_, ControllerManagerUser());
    for (const char* ns : {"default", "kube-system"}) CreateNamespace(ns);
  }
  void TearDown() override {
    if (manager_) manager_->Stop();
    manager_.reset();
    client_.reset();
    objects_.reset();
    backend_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  void StartManager(std::vector<std::string> controllers = DefaultControllerSelection()) {
    ControllerManagerOptions o;
    o.controllers = std::move(controllers);
    o.root_ca_pem = "-----BEGIN CERTIFICATE-----\nTEST\n-----END CERTIFICATE-----\n";
    o.leader_election.sole_replica = true;
    o.leader_election.retry_period = std::chrono::milliseconds(200);
    manager_ = std::make_unique<ControllerManager>(apis_, metrics_, o);
    ASSERT_TRUE(manager_->Start().ok());
    ASSERT_TRUE(Eventually([&] { return manager_->IsLeader(); }));
  }

  StatusOr<Object> Create(const Gvr& r, const std::string& ns, const std::string& body) {
    return SyncWait(client_->Create(r, ns, Parse(body)));
  }
  void CreateNamespace(const std::string& name) {
    auto r = Create(kNamespaces, "", R"({"metadata":{"name":")" + name + R"("}})");
    ASSERT_TRUE(r.ok() || am::IsAlreadyExists(r.status())) << r.status().message();
  }
  StatusOr<Object> Get(const Gvr& r, const std::string& ns, const std::string& name) {
    return SyncWait(client_->Get(r, ns, name));
  }
  bool Gone(const Gvr& r, const std::string& ns, const std::string& name) {
    auto g = Get(r, ns, name);
    return !g.ok() && am::IsNotFound(g.status());
  }
  size_t Count(const Gvr& r, const std::string& ns) {
    auto l = SyncWait(client_->List(r, ns, {}));
    return l.ok() ? l->items.size() : 0;
  }
  StatusOr<registry::DeleteOutcome> Delete(const Gvr& r, const std::string& ns, const std::string& name,
                                           std::optional<std::string> policy = std::nullopt) {
    registry::DeleteOptions o;
    o.propagation_policy = std::move(policy);
    return SyncWait(client_->Delete(r, ns, name, o));
  }
  std::string OwnerRef(const Object& owner, bool block) {
    json::object r;
    r["apiVersion"] = "v1";
    r["kind"] = std::string(am::GetKind(owner));
    r["name"] = std::string(am::GetName(owner));
    r["uid"] = std::string(am::GetUid(owner));
    if (block) r["blockOwnerDeletion"] = true;
    return json::serialize(r);
  }
  // A ConfigMap owner with `n` ConfigMap and Secret dependents.
  Object MakeFamily(const std::string& ns, const std::string& owner_name, int n, bool block) {
    auto owner = Create(kConfigMaps, ns, R"({"metadata":{"name":")" + owner_name + R"("}})");
    EXPECT_TRUE(owner.ok()) << owner.status().message();
    std::string ref = OwnerRef(*owner, block);
    for (int i = 0; i < n; ++i) {
      auto d = Create(kConfigMaps, ns,
                      R"({"metadata":{"name":")" + owner_name + "-cm-" + std::to_string(i) +
                          R"(","ownerReferences":[)" + ref + "]}}");
      EXPECT_TRUE(d.ok()) << d.status().message();
      auto s = Create(kSecrets, ns,
                      R"({"metadata":{"name":")" + owner_name + "-secret-" + std::to_string(i) +
                          R"(","ownerReferences":[)" + ref + "]}}");
      EXPECT_TRUE(s.ok()) << s.status().message();
    }
    return *owner;
  }
  std::string Condition(const std::string& ns, const std::string& type, const char* field) {
    auto o = Get(kNamespaces, "", ns);
    if (!o.ok()) return "";
    const auto* conds = JsonPath(*o, {"status", "conditions"});
    if (!conds || !conds->is_array()) return "";
    for (const auto& c : conds->get_array()) {
      if (c.is_object() && JsonString(c.get_object(), {"type"}) == type) return JsonString(c.get_object(), {field});
    }
    return "";
  }

  std::string dir_;
  std::unique_ptr<storage::Backend> backend_;
  std::unique_ptr<storage::ObjectStore> objects_;
  endpoints::ApiRegistry apis_;
  MetricsRegistry metrics_;
  std::unique_ptr<ApiClient> client_;
  std::unique_ptr<ControllerManager> manager_;
};

TEST_F(ControllersTest, DeletingANamespaceRemovesItsContentAndThenIt) {
  StartManager();
  CreateNamespace("doomed");
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(Create(kConfigMaps, "doomed", R"({"metadata":{"name":"cm-)" + std::to_string(i) + R"("}})").ok());
  }
  ASSERT_TRUE(Create(kSecrets, "doomed", R"({"metadata":{"name":"s"}})").ok());
  ASSERT_TRUE(Create(kServiceAccounts, "doomed", R"({"metadata":{"name":"builder"}})").ok());
  ASSERT_TRUE(Delete(kNamespaces, "", "doomed").ok());
  EXPECT_TRUE(Eventually([&] { return Gone(kNamespaces, "", "doomed"); }));
  EXPECT_EQ(Count(kConfigMaps, "doomed"), 0u);
  EXPECT_EQ(Count(kSecrets, "doomed"), 0u);
  EXPECT_EQ(Count(kServiceAccounts, "doomed"), 0u);
}

TEST_F(ControllersTest, FinalizerHoldsNamespaceInTerminatingUntilRemoved) {
  StartManager();
  CreateNamespace("held");
  ASSERT_TRUE(Create(kConfigMaps, "held", R"({"metadata":{"name":"pinned","finalizers":["example.com/hold"]}})").ok());
  ASSERT_TRUE(Create(kConfigMaps, "held", R"({"metadata":{"name":"free"}})").ok());
  ASSERT_TRUE(Delete(kNamespaces, "", "held").ok());
  ASSERT_TRUE(Eventually([&] { return Condition("held", "NamespaceFinalizersRemaining", "status") == "True"; }));
  EXPECT_EQ(Condition("held", "NamespaceFinalizersRemaining", "message"),
            "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances");
  EXPECT_EQ(Condition("held", "NamespaceFinalizersRemaining", "reason"), "SomeFinalizersRemain");
  EXPECT_EQ(Condition("held", "NamespaceContentRemaining", "message"),
            "Some resources are remaining: configmaps. has 1 resource instances");
  EXPECT_EQ(Condition("held", "NamespaceDeletionDiscoveryFailure", "status"), "False");
  auto ns = Get(kNamespaces, "", "held");
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(JsonString(*ns, {"status", "phase"}), "Terminating");
  EXPECT_TRUE(Gone(kConfigMaps, "held", "free"));
  auto pinned = Get(kConfigMaps, "held", "pinned");
  ASSERT_TRUE(pinned.ok());
  EXPECT_TRUE(am::GetDeletionTimestamp(*pinned).has_value());

  auto cleared = SyncWait(client_->Mutate(kConfigMaps, "held", "pinned", [](Object& o) -> StatusOr<bool> {
    am::SetFinalizers(o, {});
    return true;
  }));
  ASSERT_TRUE(cleared.ok()) << cleared.status().message();
  EXPECT_TRUE(Eventually([&] { return Gone(kNamespaces, "", "held"); }));
}

TEST_F(ControllersTest, BackgroundDeletionCollectsDependents) {
  StartManager();
  Object owner = MakeFamily("default", "bg", 5, false);
  ASSERT_TRUE(Delete(kConfigMaps, "default", "bg").ok());
  EXPECT_TRUE(Eventually([&] {
    for (int i = 0; i < 5; ++i) {
      if (!Gone(kConfigMaps, "default", "bg-cm-" + std::to_string(i))) return false;
      if (!Gone(kSecrets, "default", "bg-secret-" + std::to_string(i))) return false;
    }
    return true;
  }));
}

TEST_F(ControllersTest, ForegroundDeletionRemovesBlockingDependentsFirst) {
  StartManager();
  MakeFamily("default", "fg", 3, true);
  auto r = Delete(kConfigMaps, "default", "fg", "Foreground");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->deleted);
  auto pending = Get(kConfigMaps, "default", "fg");
  ASSERT_TRUE(pending.ok());
  auto f = am::GetFinalizers(*pending);
  EXPECT_NE(std::find(f.begin(), f.end(), "foregroundDeletion"), f.end());
  ASSERT_TRUE(Eventually([&] { return Gone(kConfigMaps, "default", "fg"); }));
  // The owner went last: its blocking dependents were gone before.
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(Gone(kConfigMaps, "default", "fg-cm-" + std::to_string(i)));
    EXPECT_TRUE(Gone(kSecrets, "default", "fg-secret-" + std::to_string(i)));
  }
}

TEST_F(ControllersTest, OrphanDeletionLeavesDependentsWithoutTheReference) {
  StartManager();
  MakeFamily("default", "orph", 3, true);
  auto r = Delete(kConfigMaps, "default", "orph", "Orphan");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(Eventually([&] { return Gone(kConfigMaps, "default", "orph"); }));
  for (int i = 0; i < 3; ++i) {
    auto d = Get(kConfigMaps, "default", "orph-cm-" + std::to_string(i));
    ASSERT_TRUE(d.ok());
    EXPECT_TRUE(am::GetOwnerReferences(*d).empty());
    auto s = Get(kSecrets, "default", "orph-secret-" + std::to_string(i));
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE(am::GetOwnerReferences(*s).empty());
  }
}

TEST_F(ControllersTest, DependentOfAMissingOwnerIsCollected) {
  StartManager();
  ASSERT_TRUE(Create(kConfigMaps, "default",
                     R"({"metadata":{"name":"stray","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap",
                       "name":"nobody","uid":"00000000-0000-0000-0000-000000000001"}]}})")
                  .ok());
  EXPECT_TRUE(Eventually([&] { return Gone(kConfigMaps, "default", "stray"); }));
}

TEST_F(ControllersTest, OwnerWithOtherUidIsDanglingAndSolidOwnerKeepsDependent) {
  StartManager();
  auto owner = Create(kConfigMaps, "default", R"({"metadata":{"name":"real"}})");
  ASSERT_TRUE(owner.ok());
  // Two owners: one real, one with the real one's name but another UID (dangling): the dangling
  // reference is removed and the object stays.
  std::string body = R"({"metadata":{"name":"two-owners","ownerReferences":[)" + OwnerRef(*owner, false) +
                     R"(,{"apiVersion":"v1","kind":"ConfigMap","name":"real","uid":"00000000-0000-0000-0000-0000000000ff"}]}})";
  ASSERT_TRUE(Create(kConfigMaps, "default", body).ok());
  ASSERT_TRUE(Eventually([&] {
    auto d = Get(kConfigMaps, "default", "two-owners");
    return d.ok() && am::GetOwnerReferences(*d).size() == 1;
  }));
  auto d = Get(kConfigMaps, "default", "two-owners");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(am::GetOwnerReferences(*d)[0].uid, am::GetUid(*owner));
}

TEST_F(ControllersTest, OwnerInAnotherNamespaceIsReportedAndTheDependentCollected) {
  StartManager();
  CreateNamespace("ns-a");
  CreateNamespace("ns-b");
  auto owner = Create(kConfigMaps, "ns-a", R"({"metadata":{"name":"owner"}})");
  ASSERT_TRUE(owner.ok());
  ASSERT_TRUE(Eventually([&] { return manager_->runs() > 0; }));
  ASSERT_TRUE(Create(kConfigMaps, "ns-b",
                     R"({"metadata":{"name":"wrong-ns","ownerReferences":[)" + OwnerRef(*owner, false) + "]}}")
                  .ok());
  // The owner does not exist in the dependent's namespace: the dependent is garbage.
  EXPECT_TRUE(Eventually([&] { return Gone(kConfigMaps, "ns-b", "wrong-ns"); }));
  EXPECT_TRUE(Get(kConfigMaps, "ns-a", "owner").ok());
  EXPECT_TRUE(Eventually([&] {
    auto evs = SyncWait(client_->List(kEvents, "ns-b", {}));
    if (!evs.ok()) return false;
    for (const auto& e : evs->items) {
      if (JsonString(e, {"reason"}) == "OwnerRefInvalidNamespace") {
        return JsonString(e, {"type"}) == "Warning" &&
               JsonString(e, {"message"}) == "ownerRef [v1/ConfigMap, namespace: ns-b, name: owner, uid: " +
                                                 std::string(am::GetUid(*owner)) +
                                                 "] does not exist in namespace \"ns-b\"" &&
               JsonString(e, {"involvedObject", "name"}) == "wrong-ns";
      }
    }
    return false;
  }));
}

TEST_F(ControllersTest, NewNamespaceGetsDefaultServiceAccountAndRootCA) {
  StartManager();
  CreateNamespace("fresh");
  ASSERT_TRUE(Eventually([&] { return Get(kServiceAccounts, "fresh", "default").ok(); }));
  ASSERT_TRUE(Eventually([&] { return Get(kConfigMaps, "fresh", "kube-root-ca.crt").ok(); }));
  auto cm = Get(kConfigMaps, "fresh", "kube-root-ca.crt");
  EXPECT_EQ(JsonString(*cm, {"data", "ca.crt"}), "-----BEGIN CERTIFICATE-----\nTEST\n-----END CERTIFICATE-----\n");
  EXPECT_FALSE(JsonString(*cm, {"metadata", "annotations", "kubernetes.io/description"}).empty());

  // Deleted: recreated. Edited: restored.
  ASSERT_TRUE(Delete(kServiceAccounts, "fresh", "default").ok());
  EXPECT_TRUE(Eventually([&] { return Get(kServiceAccounts, "fresh", "default").ok(); }));
  auto edited = SyncWait(client_->Mutate(kConfigMaps, "fresh", "kube-root-ca.crt", [](Object& o) -> StatusOr<bool> {
    o["data"] = Parse(R"({"ca.crt":"tampered"})");
    return true;
  }));
  ASSERT_TRUE(edited.ok());
  EXPECT_TRUE(Eventually([&] {
    auto c = Get(kConfigMaps, "fresh", "kube-root-ca.crt");
    return c.ok() && JsonString(*c, {"data", "ca.crt"}).find("TEST") != std::string::npos;
  }));
}

TEST_F(ControllersTest, ExistingNamespacesAreFilledAtStart) {
  CreateNamespace("before");
  StartManager();
  EXPECT_TRUE(Eventually([&] { return Get(kServiceAccounts, "before", "default").ok(); }));
  EXPECT_TRUE(Eventually([&] { return Get(kConfigMaps, "before", "kube-root-ca.crt").ok(); }));
}

TEST_F(ControllersTest, DisabledControllersDoNotRun) {
  StartManager({"*", "-serviceaccount", "-root-ca-cert-publisher"});
  CreateNamespace("quiet");
  // The namespace and garbage collector loops run; give them a moment to prove the others don't.
  ASSERT_TRUE(Create(kConfigMaps, "quiet", R"({"metadata":{"name":"stray","ownerReferences":[{"apiVersion":"v1",
                       "kind":"ConfigMap","name":"nobody","uid":"00000000-0000-0000-0000-000000000002"}]}})")
                  .ok());
  ASSERT_TRUE(Eventually([&] { return Gone(kConfigMaps, "quiet", "stray"); }));
  EXPECT_TRUE(Gone(kServiceAccounts, "quiet", "default"));
  EXPECT_TRUE(Gone(kConfigMaps, "quiet", "kube-root-ca.crt"));
}

TEST_F(ControllersTest, ExpiredBootstrapTokensAreDeleted) {
  StartManager();
  auto b64 = [](const std::string& s) { return Base64Encode(s); };
  std::string past = am::FormatRfc3339(am::Timestamp::FromTimePoint(std::chrono::system_clock::now() - std::chrono::hours(1)));
  std::string future = am::FormatRfc3339(am::Timestamp::FromTimePoint(std::chrono::system_clock::now() + std::chrono::hours(1)));
  ASSERT_TRUE(Create(kSecrets, "kube-system",
                     R"({"metadata":{"name":"bootstrap-token-abcdef"},"type":"bootstrap.kubernetes.io/token",
                       "data":{"token-id":")" + b64("abcdef") + R"(","expiration":")" + b64(past) + R"("}})")
                  .ok());
  ASSERT_TRUE(Create(kSecrets, "kube-system",
                     R"({"metadata":{"name":"bootstrap-token-ghijkl"},"type":"bootstrap.kubernetes.io/token",
                       "data":{"token-id":")" + b64("ghijkl") + R"(","expiration":")" + b64(future) + R"("}})")
                  .ok());
  ASSERT_TRUE(Create(kSecrets, "kube-system",
                     R"({"metadata":{"name":"not-a-token"},"data":{"expiration":")" + b64(past) + R"("}})")
                  .ok());
  EXPECT_TRUE(Eventually([&] { return Gone(kSecrets, "kube-system", "bootstrap-token-abcdef"); }));
  EXPECT_TRUE(Get(kSecrets, "kube-system", "bootstrap-token-ghijkl").ok());
  EXPECT_TRUE(Get(kSecrets, "kube-system", "not-a-token").ok());
}

TEST_F(ControllersTest, LeaseRecordsTheLeaderAndWorkQueueMetricsAreExposed) {
  StartManager();
  auto lease = Get(kLeases, "kube-system", "capstan-controller-manager");
  ASSERT_TRUE(lease.ok()) << lease.status().message();
  EXPECT_FALSE(JsonString(*lease, {"spec", "holderIdentity"}).empty());
  EXPECT_EQ(JsonPath(*lease, {"spec", "leaseDurationSeconds"})->as_int64(), 15);
  CreateNamespace("metrics");
  ASSERT_TRUE(Eventually([&] { return Get(kServiceAccounts, "metrics", "default").ok(); }));
  std::string text = metrics_.Expose();
  for (const char* s : {"workqueue_adds_total{name=\"serviceaccount\"}", "workqueue_depth{name=\"namespace\"}",
                        "workqueue_queue_duration_seconds_bucket{name=\"root_ca_cert_publisher\"",
                        "workqueue_work_duration_seconds_count{name=\"serviceaccount\"}",
                        "workqueue_retries_total{name=\"garbage_collector_attempt_to_delete\"}",
                        "leader_election_master_status{name=\"capstan-controller-manager\"} 1"}) {
    EXPECT_NE(text.find(s), std::string::npos) << s;
  }
}

TEST_F(ControllersTest, RestartTakesOverTheLeaseAtOnceAndReleasesOnStop) {
  StartManager();
  manager_->Stop();
  auto lease = Get(kLeases, "kube-system", "capstan-controller-manager");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(JsonString(*lease, {"spec", "holderIdentity"}), "") << "released on stop";
  // A new process (new identity) leads at once.
  manager_.reset();
  StartManager();
  lease = Get(kLeases, "kube-system", "capstan-controller-manager");
  ASSERT_TRUE(lease.ok());
  EXPECT_FALSE(JsonString(*lease, {"spec", "holderIdentity"}).empty());
  EXPECT_GE(JsonPath(*lease, {"spec", "leaseTransitions"})->as_int64(), 1);
}

TEST_F(ControllersTest, SecondCandidateWaitsWhileTheLeaseIsHeld) {
  // A lease held by someone else, renewed just now: a non-sole replica does not take it.
  std::string now = am::FormatRfc3339Micro(am::Timestamp::Now());
  ASSERT_TRUE(Create(kLeases, "kube-system",
                     R"({"metadata":{"name":"capstan-controller-manager"},"spec":{"holderIdentity":"other",
                       "leaseDurationSeconds":3600,"acquireTime":")" + now + R"(","renewTime":")" + now +
                         R"(","leaseTransitions":0}})")
                  .ok());
  ControllerManagerOptions o;
  o.leader_election.sole_replica = false;
  o.leader_election.retry_period = std::chrono::milliseconds(50);
  manager_ = std::make_unique<ControllerManager>(apis_, metrics_, o);
  ASSERT_TRUE(manager_->Start().ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(manager_->IsLeader());
  EXPECT_EQ(manager_->runs(), 0);
  // The holder lets go: the candidate takes over.
  auto released = SyncWait(client_->Mutate(kLeases, "kube-system", "capstan-controller-manager", [](Object& l) -> StatusOr<bool> {
    l["spec"].as_object()["holderIdentity"] = "";
    return true;
  }));
  ASSERT_TRUE(released.ok());
  EXPECT_TRUE(Eventually([&] { return manager_->IsLeader(); }));
}

TEST_F(ControllersTest, LoopsStandDownWhileAKubeControllerManagerRenewsItsLeaseAndTakeOverWhenItLapses) {
  StartManager();  // sole replica, leading on its own Lease
  EXPECT_TRUE(Get(kLeases, "kube-system", "capstan-controller-manager").ok());
  EXPECT_FALSE(Get(kLeases, "kube-system", "kube-controller-manager").ok()) << "the real one's Lease is left alone";
  const int runs_before = manager_->runs();
  // A real kube-controller-manager starts: it creates its Lease (2 s) and renews it every 200 ms.
  auto lease_body = [](const std::string& holder) {
    std::string now = am::FormatRfc3339Micro(am::Timestamp::Now());
    return R"({"metadata":{"name":"kube-controller-manager"},"spec":{"holderIdentity":")" + holder +
           R"(","leaseDurationSeconds":2,"acquireTime":")" + now + R"(","renewTime":")" + now +
           R"(","leaseTransitions":0}})";
  };
  ASSERT_TRUE(Create(kLeases, "kube-system", lease_body("kcm-host_1234")).ok());
  std::atomic<bool> renewing{true};
  std::thread holder([&] {
    while (renewing.load()) {
      (void)SyncWait(client_->Mutate(kLeases, "kube-system", "kube-controller-manager", [](Object& l) -> StatusOr<bool> {
        l["spec"].as_object()["renewTime"] = am::FormatRfc3339Micro(am::Timestamp::Now());
        return true;
      }));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  });
  EXPECT_TRUE(Eventually([&] { return !manager_->IsLeader(); })) << "stands down while the other leads";
  // While the other keeps renewing, no loop runs and our Lease is released.
  for (int i = 0; i < 10; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(manager_->IsLeader());
  }
  auto own = Get(kLeases, "kube-system", "capstan-controller-manager");
  ASSERT_TRUE(own.ok());
  EXPECT_EQ(JsonString(*own, {"spec", "holderIdentity"}), "");
  // The other goes away without releasing: once its renewTime is older than its duration, we lead again.
  renewing = false;
  holder.join();
  EXPECT_TRUE(Eventually([&] { return manager_->IsLeader(); }, std::chrono::seconds(30)));
  EXPECT_TRUE(Eventually([&] { return manager_->runs() > runs_before; }));
  // A Lease released by its holder (empty holderIdentity) does not hold the loops back either.
  auto released = SyncWait(client_->Mutate(kLeases, "kube-system", "kube-controller-manager", [](Object& l) -> StatusOr<bool> {
    l["spec"].as_object()["holderIdentity"] = "";
    l["spec"].as_object()["renewTime"] = am::FormatRfc3339Micro(am::Timestamp::Now());
    return true;
  }));
  ASSERT_TRUE(released.ok());
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_TRUE(manager_->IsLeader());
  }
}

}  // namespace
}  // namespace capstan::controllers
