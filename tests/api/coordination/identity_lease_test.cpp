// The apiserver identity Lease through the real Lease store over the embedded backend: kube's
// identity hash, creation and renewal with kube's labels and holder, and the garbage collector.
#include "api/coordination/identity_lease.h"

#include <gtest/gtest.h>

#include "api/coordination/coordination.h"
#include "api/networking/catalog_test_util.h"

namespace capstan::api::coordination {
namespace {

using namespace capstan::api::testing;

TEST(IdentityLeaseTest, IdentityIsKubesHashOfTheHostname) {
  // sha256(uint16 len + "node-1" + uint16 len + "kube-apiserver")[:16], base32, lower case, unpadded.
  EXPECT_EQ(IdentityFor("node-1"), "apiserver-lgabes5ywnaqeagh5dny4zlzs4");
  EXPECT_EQ(IdentityFor("my-host.example.com"), "apiserver-fla7u2v73kndc6gnnxly3bamji");
}

class IdentityLeaseStoreTest : public ::testing::Test {
 protected:
  ApiTestEnv env_{Install};
  FakeClock clock_;
  IdentityLeaseController::Config Config() {
    IdentityLeaseController::Config c;
    c.leases = env_.Find("leases")->storage.get();
    c.hostname = "node-1";
    c.clock = &clock_;
    return c;
  }
  StatusOr<Object> Lease(const std::string& name) {
    auto* g = env_.As<registry::Getter>("leases");
    return SyncWait(g->Get(env_.Ctx("kube-system"), name, {}));
  }
  void CreateForeign(const std::string& name, const std::string& renew, int duration) {
    Object lease = Parse(R"({"metadata":{"name":")" + name + R"(","namespace":"kube-system",
        "labels":{"apiserver.kubernetes.io/identity":"kube-apiserver"}},
        "spec":{"holderIdentity":"x","leaseDurationSeconds":)" + std::to_string(duration) + R"(,"renewTime":")" + renew + R"("}})");
    auto* c = env_.As<registry::Creater>("leases");
    ASSERT_TRUE(SyncWait(c->Create(env_.Ctx("kube-system"), std::move(lease), {})).ok());
  }
};

TEST_F(IdentityLeaseStoreTest, CreatesAndRenewsItsLease) {
  IdentityLeaseController c(Config());
  EXPECT_EQ(c.lease_name(), "apiserver-lgabes5ywnaqeagh5dny4zlzs4");
  ASSERT_TRUE(SyncWait(c.RenewOnce()).ok());
  auto lease = Lease(c.lease_name());
  ASSERT_TRUE(lease.ok()) << lease.status().message();
  const auto& labels = (*lease)["metadata"].as_object()["labels"].as_object();
  EXPECT_EQ(labels.at("apiserver.kubernetes.io/identity"), "kube-apiserver");
  EXPECT_EQ(labels.at("kubernetes.io/hostname"), "node-1");
  std::string holder = GetString(*lease, "spec.holderIdentity");
  EXPECT_EQ(holder.rfind(c.lease_name() + "_", 0), 0u) << holder;
  EXPECT_EQ(holder.size(), c.lease_name().size() + 1 + 36) << "name_<uuid>";
  EXPECT_EQ((*lease)["spec"].as_object()["leaseDurationSeconds"].as_int64(), 3600);
  std::string first = GetString(*lease, "spec.renewTime");
  EXPECT_EQ(first, "2023-11-14T22:13:20.000000Z");
  clock_.Advance(std::chrono::seconds(10));
  ASSERT_TRUE(SyncWait(c.RenewOnce()).ok());
  EXPECT_EQ(GetString(*Lease(c.lease_name()), "spec.renewTime"), "2023-11-14T22:13:30.000000Z");
}

TEST_F(IdentityLeaseStoreTest, CollectsExpiredIdentityLeasesOnly) {
  IdentityLeaseController c(Config());
  ASSERT_TRUE(SyncWait(c.RenewOnce()).ok());
  CreateForeign("apiserver-gone", "2023-11-14T20:00:00.000000Z", 3600);   // expired at 21:00
  CreateForeign("apiserver-alive", "2023-11-14T21:30:00.000000Z", 3600);  // until 22:30
  CreateForeign("apiserver-none", "2023-11-14T20:00:00.000000Z", 3600);
  ASSERT_TRUE(SyncWait(env_.As<registry::Updater>("leases")->Update(
                  env_.Ctx("kube-system"), "apiserver-none",
                  [](const Object* cur) -> Task<StatusOr<Object>> {
                    Object next = *cur;
                    next["metadata"].as_object()["labels"].as_object().erase("apiserver.kubernetes.io/identity");
                    co_return next;
                  },
                  {}))
                  .ok());
  clock_.Advance(std::chrono::hours(2));  // 00:13: this server's own lease is also past its duration
  ASSERT_TRUE(SyncWait(c.CollectOnce()).ok());
  EXPECT_FALSE(Lease("apiserver-gone").ok());
  EXPECT_FALSE(Lease("apiserver-alive").ok()) << "expired by now too";
  EXPECT_TRUE(Lease("apiserver-none").ok()) << "not an identity lease";
  EXPECT_TRUE(Lease(c.lease_name()).ok()) << "its own lease is never collected";
}

TEST_F(IdentityLeaseStoreTest, KeepsLeasesStillWithinTheirDuration) {
  IdentityLeaseController c(Config());
  CreateForeign("apiserver-alive", "2023-11-14T21:30:00.000000Z", 3600);
  ASSERT_TRUE(SyncWait(c.CollectOnce()).ok());
  EXPECT_TRUE(Lease("apiserver-alive").ok());
}

}  // namespace
}  // namespace capstan::api::coordination
