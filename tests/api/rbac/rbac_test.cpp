// rbac.authorization.k8s.io/v1 through the real Store over the embedded backend: kube's validation
// messages, the v1 defaults, immutable roleRef, printers, and the escalation guard's place in the
// write path.
#include <gtest/gtest.h>

#include "api/apps/api_test_env.h"
#include "api/rbac/rbac.h"
#include "apimachinery/errors.h"

namespace capstan::api::rbac {
namespace {

namespace json = boost::json;
using registry::Object;
using testing::ApiTestEnv;
using testing::Parse;

struct GuardLog {
  std::vector<std::string> calls;
  bool refuse = false;
};

ApiTestEnv::InstallFn WithGuard(std::shared_ptr<GuardLog> log) {
  return [log](const registry::GroupDeps& deps) {
    RbacApiOptions o;
    o.guard = [log](const registry::AdmissionAttributes& a) -> Task<Status> {
      log->calls.push_back(a.operation + " " + a.resource->resource + (a.old_object ? " old" : ""));
      if (log->refuse) co_return apimachinery::NewForbidden({"rbac.authorization.k8s.io", a.resource->resource}, a.name, "no");
      co_return Status();
    };
    return Install(deps, std::move(o));
  };
}

class RbacApiTest : public ::testing::Test {
 protected:
  std::shared_ptr<GuardLog> log_ = std::make_shared<GuardLog>();
  ApiTestEnv env_{WithGuard(log_)};
};

TEST_F(RbacApiTest, RoleValidationMessages) {
  auto bad = env_.Create("roles", Parse(R"({"metadata":{"name":"r"},"rules":[{"verbs":[]},
      {"verbs":["get"],"nonResourceURLs":["/x"]}]})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "Role.rbac.authorization.k8s.io \"r\" is invalid: [rules[0].verbs: Required value: verbs must contain at "
            "least one value, rules[0].apiGroups: Required value: resource rules must supply at least one api group, "
            "rules[0].resources: Required value: resource rules must supply at least one resource, "
            "rules[1].nonResourceURLs: Invalid value: []string{\"/x\"}: namespaced rules cannot apply to non-resource "
            "URLs]");
  auto slash = env_.Create("roles", Parse(R"({"metadata":{"name":"a/b"},"rules":[]})"));
  ASSERT_FALSE(slash.ok());
  EXPECT_NE(slash.status().message().find("may not contain '/'"), std::string::npos) << slash.status().message();
  auto ok = env_.Create("clusterroles", Parse(R"({"metadata":{"name":"system:probe"},
      "rules":[{"verbs":["get"],"nonResourceURLs":["/healthz"]}]})"));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  auto agg = env_.Create("clusterroles", Parse(R"({"metadata":{"name":"agg"},"aggregationRule":{"clusterRoleSelectors":[]}})"));
  ASSERT_FALSE(agg.ok());
  EXPECT_EQ(agg.status().message(),
            "ClusterRole.rbac.authorization.k8s.io \"agg\" is invalid: aggregationRule.clusterRoleSelectors: Required "
            "value: at least one clusterRoleSelector required if aggregationRule is non-nil");
}

TEST_F(RbacApiTest, BindingDefaultsValidationAndImmutableRoleRef) {
  auto b = env_.Create("rolebindings", Parse(R"({"metadata":{"name":"b"},"roleRef":{"kind":"Role","name":"r"},
      "subjects":[{"kind":"User","name":"alice"},{"kind":"ServiceAccount","name":"builder"}]})"));
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->at("roleRef").at("apiGroup"), "rbac.authorization.k8s.io");
  EXPECT_EQ(b->at("subjects").at(0).at("apiGroup"), "rbac.authorization.k8s.io");
  EXPECT_FALSE(b->at("subjects").at(1).as_object().contains("apiGroup"));

  auto change = env_.Mutate("rolebindings", "b", [](Object& o) { o["roleRef"].as_object()["name"] = "other"; });
  ASSERT_FALSE(change.ok());
  EXPECT_EQ(change.status().message(),
            "RoleBinding.rbac.authorization.k8s.io \"b\" is invalid: roleRef: Invalid value: "
            "rbac.RoleRef{APIGroup:\"rbac.authorization.k8s.io\", Kind:\"Role\", Name:\"other\"}: cannot change roleRef");

  auto crb = env_.Create("clusterrolebindings", Parse(R"({"metadata":{"name":"c"},"roleRef":{"kind":"Role","name":"r"},
      "subjects":[{"kind":"ServiceAccount","name":"x"},{"kind":"Robot","name":"y"}]})"));
  ASSERT_FALSE(crb.ok());
  EXPECT_EQ(crb.status().message(),
            "ClusterRoleBinding.rbac.authorization.k8s.io \"c\" is invalid: [roleRef.kind: Unsupported value: \"Role\": "
            "supported values: \"ClusterRole\", subjects[0].namespace: Required value, subjects[1].kind: Unsupported "
            "value: \"Robot\": supported values: \"ServiceAccount\", \"User\", \"Group\"]");
}

TEST_F(RbacApiTest, BindingPrinter) {
  auto b = env_.Create("rolebindings", Parse(R"({"metadata":{"name":"b"},"roleRef":{"kind":"ClusterRole","name":"view"},
      "subjects":[{"kind":"User","name":"alice"},{"kind":"User","name":"bob"},{"kind":"Group","name":"devs"},
                  {"kind":"ServiceAccount","name":"ci","namespace":"build"}]})"));
  ASSERT_TRUE(b.ok()) << b.status().message();
  std::vector<std::string> names;
  for (const auto& c : env_.Columns("rolebindings")) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Role", "Age", "Users", "Groups", "ServiceAccounts"}));
  auto cells = env_.Cells("rolebindings", *b);
  EXPECT_EQ(cells[1].as_string(), "ClusterRole/view");
  EXPECT_EQ(cells[3].as_string(), "alice, bob");
  EXPECT_EQ(cells[4].as_string(), "devs");
  EXPECT_EQ(cells[5].as_string(), "build/ci");
  names.clear();
  for (const auto& c : env_.Columns("roles")) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Name", "Created At"}));
}

TEST_F(RbacApiTest, GuardRunsOnCreateAndUpdateAndCanRefuse) {
  ASSERT_TRUE(env_.Create("roles", Parse(R"({"metadata":{"name":"r"},"rules":[]})")).ok());
  ASSERT_TRUE(env_.Mutate("roles", "r", [](Object& o) { o["rules"] = json::array{}; }).ok());
  EXPECT_EQ(log_->calls, (std::vector<std::string>{"CREATE roles", "UPDATE roles old"}));
  log_->refuse = true;
  auto refused = env_.Create("roles", Parse(R"({"metadata":{"name":"r2"},"rules":[]})"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), 403);
  EXPECT_EQ(refused.status().message(), "roles.rbac.authorization.k8s.io \"r2\" is forbidden: no");
  EXPECT_FALSE(env_.Get("roles", "r2").ok());
}

}  // namespace
}  // namespace capstan::api::rbac
