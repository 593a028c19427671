// The resourcequota-controller in process, over the real registry and the embedded store in a temp
// dir (no HTTP, no admission): status.hard follows spec.hard, status.used is recomputed from the
// namespace's objects with the quota's scopes, and deletes, terminal pods and other counted
// resources (count/leases.coordination.k8s.io) are followed. Waits poll with a generous deadline.
#include "controllers/resource_quota_controller.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <thread>

#include "api/coordination/coordination.h"
#include "api/core/core.h"
#include "apimachinery/errors.h"
#include "controllers/controller_manager.h"
#include "endpoints/installer.h"
#include "storage/backend_object_store.h"
#include "storage/embedded/embedded_backend.h"

namespace capstan::controllers {
namespace {

namespace am = capstan::apimachinery;
namespace json = boost::json;

const Gvr kNamespaces{"", "v1", "namespaces"};
const Gvr kQuotas{"", "v1", "resourcequotas"};
const Gvr kPods{"", "v1", "pods"};
const Gvr kConfigMaps{"", "v1", "configmaps"};
const Gvr kLeases{"coordination.k8s.io", "v1", "leases"};

bool Eventually(const std::function<bool()>& cond, std::chrono::seconds timeout = std::chrono::seconds(60)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

class ResourceQuotaControllerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "capstan-rq-XXXXXX").string();
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
    for (const char* ns : {"default", "kube-system", "rq"}) {
      ASSERT_TRUE(Create(kNamespaces, "", std::string(R"({"metadata":{"name":")") + ns + R"("}})").ok());
    }
    ControllerManagerOptions o;
    o.controllers = {std::string(kResourceQuotaController)};
    o.leader_election.sole_replica = true;
    o.leader_election.retry_period = std::chrono::milliseconds(200);
    manager_ = std::make_unique<ControllerManager>(apis_, metrics_, o);
    ASSERT_TRUE(manager_->Start().ok());
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
  StatusOr<Object> Create(const Gvr& r, const std::string& ns, const std::string& body) {
    return SyncWait(client_->Create(r, ns, json::parse(body).as_object()));
  }
  void Delete(const Gvr& r, const std::string& name) {
    registry::DeleteOptions o;
    o.grace_period_seconds = 0;
    ASSERT_TRUE(SyncWait(client_->Delete(r, "rq", name, o)).ok());
  }
  std::string QuotaStatus(const std::string& name, const char* field) {
    auto q = SyncWait(client_->Get(kQuotas, "rq", name));
    if (!q.ok()) return "";
    const auto* v = JsonPath(*q, {"status", field});
    return v ? json::serialize(*v) : "";
  }
  bool UsedBecomes(const std::string& name, const std::string& want) {
    bool ok = Eventually([&] { return QuotaStatus(name, "used") == want; });
    EXPECT_TRUE(ok) << name << ": " << QuotaStatus(name, "used") << " want " << want;
    return ok;
  }
  void Pod(const std::string& name, const std::string& resources, const std::string& extra = "") {
    auto p = Create(kPods, "rq", R"({"metadata":{"name":")" + name + R"("},"spec":{)" + extra +
                                     R"("containers":[{"name":"app","image":"x","resources":)" + resources + "}]}}");
    ASSERT_TRUE(p.ok()) << p.status().message();
  }

  std::string dir_;
  std::unique_ptr<storage::Backend> backend_;
  std::unique_ptr<storage::ObjectStore> objects_;
  endpoints::ApiRegistry apis_;
  MetricsRegistry metrics_;
  std::unique_ptr<ApiClient> client_;
  std::unique_ptr<ControllerManager> manager_;
};

TEST_F(ResourceQuotaControllerTest, StatusFollowsSpecAndTheNamespacesObjects) {
  Pod("small", R"({"requests":{"cpu":"250m","memory":"64Mi"},"limits":{"cpu":"500m"}})");
  Pod("best", "{}");
  ASSERT_TRUE(Create(kConfigMaps, "rq", R"({"metadata":{"name":"c1"}})").ok());
  ASSERT_TRUE(Create(kQuotas, "rq", R"({"metadata":{"name":"all"},"spec":{"hard":
      {"pods":"10","requests.cpu":"2","limits.cpu":"4","requests.memory":"1Gi","count/configmaps":"5","configmaps":"5"}}})")
                  .ok());
  ASSERT_TRUE(Create(kQuotas, "rq", R"({"metadata":{"name":"besteffort"},"spec":{"hard":{"pods":"3"},
      "scopes":["BestEffort"]}})").ok());
  UsedBecomes("all", R"({"configmaps":"1","count/configmaps":"1","limits.cpu":"500m","pods":"2","requests.cpu":"250m","requests.memory":"64Mi"})");
  EXPECT_EQ(QuotaStatus("all", "hard"),
            R"({"configmaps":"5","count/configmaps":"5","limits.cpu":"4","pods":"10","requests.cpu":"2","requests.memory":"1Gi"})");
  UsedBecomes("besteffort", R"({"pods":"1"})");

  // Deletes give usage back.
  Delete(kPods, "small");
  Delete(kConfigMaps, "c1");
  UsedBecomes("all", R"({"configmaps":"0","count/configmaps":"0","limits.cpu":"0","pods":"1","requests.cpu":"0","requests.memory":"0"})");

  // A changed spec.hard is synced: new resources are measured, removed ones dropped.
  auto q = SyncWait(client_->Get(kQuotas, "rq", "besteffort"));
  ASSERT_TRUE(q.ok());
  (*q)["spec"].as_object()["hard"] = json::object{{"pods", "3"}, {"count/pods", "4"}};
  ASSERT_TRUE(SyncWait(client_->Update(kQuotas, "rq", *q)).ok());
  UsedBecomes("besteffort", R"({"count/pods":"1","pods":"1"})");
  EXPECT_EQ(QuotaStatus("besteffort", "hard"), R"({"count/pods":"4","pods":"3"})");
}

TEST_F(ResourceQuotaControllerTest, TerminalPodsAndOtherResourcesAreFollowed) {
  Pod("job", R"({"requests":{"cpu":"1"}})");
  ASSERT_TRUE(Create(kLeases, "rq", R"({"metadata":{"name":"l1"}})").ok());
  ASSERT_TRUE(Create(kQuotas, "rq", R"({"metadata":{"name":"q"},"spec":{"hard":
      {"pods":"5","count/pods":"5","requests.cpu":"4","count/leases.coordination.k8s.io":"3"}}})").ok());
  UsedBecomes("q", R"({"count/leases.coordination.k8s.io":"1","count/pods":"1","pods":"1","requests.cpu":"1"})");

  // A pod that finished keeps only its object count.
  auto pod = SyncWait(client_->Get(kPods, "rq", "job"));
  ASSERT_TRUE(pod.ok());
  (*pod)["status"] = json::object{{"phase", "Succeeded"}};
  ASSERT_TRUE(SyncWait(client_->Update(kPods, "rq", *pod, "status")).ok());
  UsedBecomes("q", R"({"count/leases.coordination.k8s.io":"1","count/pods":"1","pods":"0","requests.cpu":"0"})");

  // The leases are watched once a quota counts them: a delete is followed.
  Delete(kLeases, "l1");
  UsedBecomes("q", R"({"count/leases.coordination.k8s.io":"0","count/pods":"1","pods":"0","requests.cpu":"0"})");
}

}  // namespace
}  // namespace capstan::controllers
