// The default/kubernetes Service and Endpoints (kube's bootstrap controller with the lease reconciler).
#include <gtest/gtest.h>

#include "api/core/kubernetes_service.h"
#include "core_test_util.h"

namespace capstan::api::core::testing {
namespace {

class KubernetesServiceTest : public ::testing::Test {
 protected:
  KubernetesServiceTest() : store_(::testing::UnitTest::GetInstance()->current_test_info()->name()), api_(store_.objects()) {}
  KubernetesServiceController::Config Config(const std::string& ip, int port) {
    KubernetesServiceController::Config c;
    c.services = api_.Get("services");
    c.endpoints = api_.Get("endpoints");
    c.store = &store_.objects();
    c.cluster_ip = "10.0.0.1";
    c.public_ip = ip;
    c.port = port;
    return c;
  }
  std::vector<std::string> Addresses() {
    auto ep = api_.GetObj("endpoints", "kubernetes");
    std::vector<std::string> out;
    if (!ep.ok()) return out;
    const auto* subsets = At(*ep, {"subsets"});
    if (!subsets) return out;
    for (const auto& a : subsets->as_array()[0].as_object().at("addresses").as_array()) out.emplace_back(a.as_object().at("ip").as_string());
    return out;
  }
  TestStore store_;
  CoreApi api_;
};

TEST_F(KubernetesServiceTest, CreatesTheServiceAndEndpoints) {
  KubernetesServiceController c(Config("192.0.2.2", 6443));
  Status st = SyncWait(c.ReconcileOnce());
  ASSERT_TRUE(st.ok()) << st.message();
  auto svc = api_.GetObj("services", "kubernetes");
  ASSERT_TRUE(svc.ok()) << svc.status().message();
  EXPECT_EQ(Str(*svc, {"spec", "clusterIP"}), "10.0.0.1");
  EXPECT_EQ(At(*svc, {"spec", "ports"})->as_array()[0], Parse(R"({"name":"https","protocol":"TCP","port":443,"targetPort":6443})"));
  EXPECT_EQ(*At(*svc, {"metadata", "labels"}), Parse(R"({"component":"apiserver","provider":"kubernetes"})"));
  EXPECT_EQ(Str(*svc, {"spec", "type"}), "ClusterIP");
  auto ep = api_.GetObj("endpoints", "kubernetes");
  ASSERT_TRUE(ep.ok());
  EXPECT_EQ(*At(*ep, {"subsets"}),
            ParseArray(R"([{"addresses":[{"ip":"192.0.2.2"}],"ports":[{"name":"https","port":6443,"protocol":"TCP"}]}])"));
  EXPECT_EQ(Str(*ep, {"metadata", "labels", "endpointslice.kubernetes.io/skip-mirror"}), "true");
  // The range's first address is taken: nobody else gets it.
  auto clash = api_.Create("services", Parse(R"({"metadata":{"name":"x"},"spec":{"clusterIP":"10.0.0.1","ports":[{"port":1}]}})"));
  EXPECT_FALSE(clash.ok());
}

TEST_F(KubernetesServiceTest, KeepsPortsCurrentAndListsEveryServer) {
  KubernetesServiceController a(Config("192.0.2.2", 6443));
  ASSERT_TRUE(SyncWait(a.ReconcileOnce()).ok());
  // Someone edits the service; the next pass puts it back.
  ASSERT_TRUE(api_.Modify("services", "kubernetes", [](Object& s) {
    s["spec"].as_object()["ports"] = ParseArray(R"([{"name":"https","port":443,"targetPort":1234}])");
  }).ok());
  ASSERT_TRUE(SyncWait(a.ReconcileOnce()).ok());
  EXPECT_EQ(At(*api_.GetObj("services", "kubernetes"), {"spec", "ports"})->as_array()[0].as_object().at("targetPort"), 6443);
  // A second server on the same store.
  KubernetesServiceController b(Config("192.0.2.3", 6443));
  ASSERT_TRUE(SyncWait(b.ReconcileOnce()).ok());
  EXPECT_EQ(Addresses(), (std::vector<std::string>{"192.0.2.2", "192.0.2.3"}));
  // One stops: its address goes.
  ASSERT_TRUE(SyncWait(b.RemoveSelf()).ok());
  EXPECT_EQ(Addresses(), (std::vector<std::string>{"192.0.2.2"}));
}

TEST_F(KubernetesServiceTest, EndpointSliceHookSeesTheEndpoints) {
  auto cfg = Config("192.0.2.2", 6443);
  int calls = 0;
  cfg.endpoint_slices = [&calls](const Object& ep) -> Task<Status> {
    ++calls;
    EXPECT_EQ(Str(ep, {"metadata", "name"}), "kubernetes");
    co_return Status();
  };
  KubernetesServiceController c(cfg);
  ASSERT_TRUE(SyncWait(c.ReconcileOnce()).ok());
  EXPECT_EQ(calls, 1);
}

TEST(KubernetesServicePublicIp, PrefersAdvertiseThenBindAddress) {
  EXPECT_EQ(KubernetesServiceController::ChoosePublicIp("192.0.2.9", "127.0.0.1"), "192.0.2.9");
  EXPECT_EQ(KubernetesServiceController::ChoosePublicIp("", "192.0.2.8"), "192.0.2.8");
  std::string chosen = KubernetesServiceController::ChoosePublicIp("", "127.0.0.1");
  EXPECT_NE(chosen, "127.0.0.1");
}

}  // namespace
}  // namespace capstan::api::core::testing
