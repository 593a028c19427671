// AuthorizationSetup over the real registry and embedded store: the bootstrap policy is reconciled
// (and restored), the informers keep the RBAC snapshot current, the escalation guard refuses grants
// the caller does not hold unless it may escalate/bind, the reviews answer, and the aggregation
// controller's rule union.
#include "cmd/authorization/authorization_setup.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <thread>

#include "api/core/core.h"
#include "auth/authz/bootstrap_policy.h"
#include "cmd/authorization/bootstrap_reconcile.h"
#include "controllers/api_client.h"
#include "controllers/clusterroleaggregation/aggregation_controller.h"
#include "endpoints/installer.h"
#include "storage/backend_object_store.h"
#include "storage/embedded/embedded_backend.h"

namespace capstan::authz {
namespace {

namespace json = boost::json;
namespace ctl = capstan::controllers;

const ctl::Gvr kRoles{"rbac.authorization.k8s.io", "v1", "roles"};
const ctl::Gvr kClusterRoles{"rbac.authorization.k8s.io", "v1", "clusterroles"};
const ctl::Gvr kRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings"};
const ctl::Gvr kClusterRoleBindings{"rbac.authorization.k8s.io", "v1", "clusterrolebindings"};
const ctl::Gvr kNamespaces{"", "v1", "namespaces"};

json::object Parse(const std::string& s) { return json::parse(s).as_object(); }

bool Eventually(const std::function<bool()>& cond) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return cond();
}

UserInfo User(std::string name) {
  UserInfo u;
  u.name = std::move(name);
  u.groups = {kAllAuthenticated};
  return u;
}

Attributes Res(const UserInfo& u, std::string verb, std::string resource, std::string ns, std::string group = "") {
  Attributes a;
  a.user = u;
  a.verb = std::move(verb);
  a.resource_request = true;
  a.resource = std::move(resource);
  a.namespace_ = std::move(ns);
  a.api_group = std::move(group);
  return a;
}

class AuthorizationSetupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "capstan-authz-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
    storage::EmbeddedOptions eo;
    eo.dir = dir_ + "/store";
    auto backend = storage::OpenEmbeddedBackend(eo);
    ASSERT_TRUE(backend.ok()) << backend.status().message();
    backend_ = std::move(*backend);
    objects_ = std::make_unique<storage::BackendObjectStore>(*backend_);
    auto setup = AuthorizationSetup::Create(AuthorizationOptions{}, apis_);
    ASSERT_TRUE(setup.ok()) << setup.status().message();
    setup_ = std::move(*setup);
    registry::GroupDeps deps;
    deps.store = objects_.get();
    endpoints::InstallResources(apis_, api::core::Install(deps));
    endpoints::InstallResources(apis_, api::rbac::Install(deps, setup_->RbacOptions()));
    endpoints::InstallResources(apis_, api::authorization::Install(deps, setup_->ReviewOptions()));
    admin_ = std::make_unique<ctl::ApiClient>(apis_, ctl::ControllerManagerUser());
    for (const char* ns : {"default", "kube-system", "kube-public", "dev"}) {
      json::object o = Parse(std::string(R"({"metadata":{"name":")") + ns + "\"}}");
      ASSERT_TRUE(SyncWait(admin_->Create(kNamespaces, "", o)).ok());
    }
    ASSERT_TRUE(setup_->Start().ok());
  }
  void TearDown() override {
    if (setup_) setup_->Stop();
    admin_.reset();
    setup_.reset();
    objects_.reset();
    backend_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  Decision Decide(const Attributes& a) { return SyncWait(setup_->authorizer().Authorize(a)).decision; }
  // Waits until the snapshot published after now reflects writes made before.
  void Settle() {
    uint64_t g = setup_->rbac()->generation();
    // Any write marks the policy dirty; the ticker publishes within 20 ms.
    Eventually([&] { return setup_->rbac()->generation() > g; });
  }

  std::string dir_;
  std::unique_ptr<storage::Backend> backend_;
  std::unique_ptr<storage::ObjectStore> objects_;
  endpoints::ApiRegistry apis_;
  std::unique_ptr<AuthorizationSetup> setup_;
  std::unique_ptr<ctl::ApiClient> admin_;
};

TEST_F(AuthorizationSetupTest, BootstrapPolicyIsReconciledAndRestored) {
  auto cr = SyncWait(admin_->Get(kClusterRoles, "", "system:public-info-viewer"));
  ASSERT_TRUE(cr.ok()) << cr.status().message();
  ASSERT_TRUE(SyncWait(admin_->Get(kClusterRoleBindings, "", "cluster-admin")).ok());
  ASSERT_TRUE(SyncWait(admin_->Get(kRoles, "kube-system", "extension-apiserver-authentication-reader")).ok());
  auto anon = User(kAnonymousUser);
  anon.groups = {kAllUnauthenticated};
  Attributes healthz;
  healthz.user = anon;
  healthz.verb = "get";
  healthz.path = "/healthz";
  EXPECT_EQ(Decide(healthz), Decision::kAllow);

  // A rule removed from a bootstrap role and a deleted binding come back at the next reconciliation.
  ASSERT_TRUE(SyncWait(admin_->Mutate(kClusterRoles, "", "system:discovery", [](ctl::Object& o) -> StatusOr<bool> {
                o["rules"] = json::array{};
                return true;
              })).ok());
  ASSERT_TRUE(SyncWait(admin_->Delete(kClusterRoleBindings, "", "system:basic-user", {})).ok());
  auto report = ReconcileBootstrapPolicy(apis_);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->created, 1);
  auto disc = SyncWait(admin_->Get(kClusterRoles, "", "system:discovery"));
  ASSERT_TRUE(disc.ok());
  EXPECT_FALSE(disc->at("rules").as_array().empty());
  // autoupdate=false is left alone.
  ASSERT_TRUE(SyncWait(admin_->Mutate(kClusterRoles, "", "system:monitoring", [](ctl::Object& o) -> StatusOr<bool> {
                o["rules"] = json::array{};
                o["metadata"].as_object()["annotations"].as_object()[kAutoUpdateAnnotation] = "false";
                return true;
              })).ok());
  ASSERT_TRUE(ReconcileBootstrapPolicy(apis_).ok());
  EXPECT_TRUE(SyncWait(admin_->Get(kClusterRoles, "", "system:monitoring"))->at("rules").as_array().empty());
}

TEST_F(AuthorizationSetupTest, InformersPublishBindingsAndGuardRefusesEscalation) {
  auto alice = User("alice");
  EXPECT_EQ(Decide(Res(alice, "list", "configmaps", "dev")), Decision::kNoOpinion);
  ASSERT_TRUE(SyncWait(admin_->Create(kRoles, "dev", Parse(R"({"metadata":{"name":"maker"},"rules":[
      {"verbs":["get","list"],"apiGroups":[""],"resources":["configmaps"]},
      {"verbs":["create","update"],"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles","rolebindings"]}]})")))
                  .ok());
  ASSERT_TRUE(SyncWait(admin_->Create(kRoleBindings, "dev", Parse(R"({"metadata":{"name":"alice-maker"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"maker"},
      "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice"}]})")))
                  .ok());
  ASSERT_TRUE(Eventually([&] { return Decide(Res(alice, "list", "configmaps", "dev")) == Decision::kAllow; }));
  EXPECT_EQ(Decide(Res(alice, "list", "configmaps", "default")), Decision::kNoOpinion);

  ctl::ApiClient as_alice(apis_, alice);
  // A role within what she holds is fine; one granting secrets is refused with kube's message.
  auto ok = SyncWait(as_alice.Create(kRoles, "dev", Parse(R"({"metadata":{"name":"cm"},"rules":[
      {"verbs":["get"],"apiGroups":[""],"resources":["configmaps"]}]})")));
  EXPECT_TRUE(ok.ok()) << ok.status().message();
  auto esc = SyncWait(as_alice.Create(kRoles, "dev", Parse(R"({"metadata":{"name":"sec"},"rules":[
      {"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]})")));
  ASSERT_FALSE(esc.ok());
  EXPECT_EQ(esc.status().code(), 403);
  EXPECT_EQ(esc.status().message(),
            "roles.rbac.authorization.k8s.io \"sec\" is forbidden: user \"alice\" (groups=[\"system:authenticated\"]) "
            "is attempting to grant RBAC permissions not currently held:\n"
            "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}");
  // Binding cluster-admin is refused; the roleRef must exist.
  auto bind = SyncWait(as_alice.Create(kRoleBindings, "dev", Parse(R"({"metadata":{"name":"b"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"cluster-admin"},
      "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice"}]})")));
  ASSERT_FALSE(bind.ok());
  EXPECT_EQ(bind.status().code(), 403);
  auto missing = SyncWait(as_alice.Create(kRoleBindings, "dev", Parse(R"({"metadata":{"name":"b2"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"nope"},"subjects":[]})")));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "clusterroles.rbac.authorization.k8s.io \"nope\" not found");

  // With the escalate verb, she may.
  ASSERT_TRUE(SyncWait(admin_->Create(kClusterRoles, "", Parse(R"({"metadata":{"name":"escalator"},"rules":[
      {"verbs":["escalate","bind"],"apiGroups":["rbac.authorization.k8s.io"],"resources":["roles","clusterroles"]}]})")))
                  .ok());
  ASSERT_TRUE(SyncWait(admin_->Create(kClusterRoleBindings, "", Parse(R"({"metadata":{"name":"alice-esc"},
      "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"escalator"},
      "subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"alice"}]})")))
                  .ok());
  ASSERT_TRUE(Eventually([&] {
    Attributes a = Res(alice, "escalate", "roles", "dev", "rbac.authorization.k8s.io");
    return Decide(a) == Decision::kAllow;
  }));
  auto now_ok = SyncWait(as_alice.Create(kRoles, "dev", Parse(R"({"metadata":{"name":"sec"},"rules":[
      {"verbs":["get"],"apiGroups":[""],"resources":["secrets"]}]})")));
  EXPECT_TRUE(now_ok.ok()) << now_ok.status().message();
}

TEST_F(AuthorizationSetupTest, ReviewsAnswerThroughTheUnion) {
  auto opts = setup_->ReviewOptions();
  api::authorization::ReviewAttributes ra;
  ra.user = User("bob");
  ra.resource_request = true;
  ra.verb = "create";
  ra.group = "authorization.k8s.io";
  ra.resource = "selfsubjectaccessreviews";
  EXPECT_TRUE(SyncWait(opts.review(ra)).allowed);
  ra.verb = "list";
  ra.group = "";
  ra.resource = "pods";
  ra.namespace_ = "dev";
  auto d = SyncWait(opts.review(ra));
  EXPECT_FALSE(d.allowed);
  EXPECT_FALSE(d.denied);
  auto rules = opts.rules(User("bob"), "dev");
  bool has_ssar = false;
  for (const auto& r : rules.resource_rules) {
    for (const auto& res : r.resources) has_ssar = has_ssar || res == "selfsubjectaccessreviews";
  }
  EXPECT_TRUE(has_ssar);
  EXPECT_FALSE(rules.non_resource_rules.empty());
}

TEST(ClusterRoleAggregation, UnionOfMatchingRolesInNameOrder) {
  auto view = Parse(R"({"metadata":{"name":"view"},"aggregationRule":{"clusterRoleSelectors":[
      {"matchLabels":{"agg":"view"}}]}})");
  auto b = Parse(R"({"metadata":{"name":"b","labels":{"agg":"view"}},"rules":[
      {"verbs":["get"],"apiGroups":[""],"resources":["pods"]},{"verbs":["list"],"apiGroups":[""],"resources":["pods"]}]})");
  auto a = Parse(R"({"metadata":{"name":"a","labels":{"agg":"view"}},"rules":[
      {"verbs":["list"],"apiGroups":[""],"resources":["pods"]}]})");
  auto other = Parse(R"({"metadata":{"name":"c"},"rules":[{"verbs":["*"],"apiGroups":["*"],"resources":["*"]}]})");
  auto rules = ctl::ClusterRoleAggregationController::AggregatedRules(view, {&view, &b, &a, &other});
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].at("verbs").at(0), "list");
  EXPECT_EQ(rules[1].at("verbs").at(0), "get");
  EXPECT_TRUE(ctl::ClusterRoleAggregationController::AggregatedRules(a, {&a, &b}).empty());
}

}  // namespace
}  // namespace capstan::authz
