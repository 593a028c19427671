// The RBAC authorizer over policy snapshots: decisions and kube's reasons, resolution errors,
// subject kinds, rule listing, the escalation check and its message, and the bootstrap policy.
#include "auth/authz/rbac_authorizer.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "auth/authz/bootstrap_policy.h"

namespace capstan::authz {
namespace {

UserInfo User(std::string name, std::vector<std::string> groups = {kAllAuthenticated}) {
  UserInfo u;
  u.name = std::move(name);
  u.groups = std::move(groups);
  return u;
}

Attributes Res(const UserInfo& u, std::string verb, std::string group, std::string resource, std::string ns,
               std::string name = "", std::string sub = "") {
  Attributes a;
  a.user = u;
  a.verb = std::move(verb);
  a.resource_request = true;
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.namespace_ = std::move(ns);
  a.name = std::move(name);
  a.subresource = std::move(sub);
  return a;
}

Attributes Path(const UserInfo& u, std::string path) {
  Attributes a;
  a.user = u;
  a.verb = "get";
  a.path = std::move(path);
  return a;
}

PolicyRule Rule(std::vector<std::string> verbs, std::vector<std::string> groups, std::vector<std::string> resources,
                std::vector<std::string> names = {}) {
  return PolicyRule{std::move(verbs), std::move(groups), std::move(resources), std::move(names), {}};
}

BindingData Binding(std::string ns, std::string name, std::string kind, std::string role, std::vector<Subject> s) {
  return BindingData{std::move(ns), std::move(name), RoleRef{kRbacGroup, std::move(kind), std::move(role)}, std::move(s)};
}

Subject UserSubject(std::string n) { return Subject{"User", kRbacGroup, std::move(n), ""}; }
Subject GroupSubject(std::string n) { return Subject{"Group", kRbacGroup, std::move(n), ""}; }

TEST(RbacAuthorizer, AllowsThroughRoleBindingOnlyInItsNamespace) {
  auto p = RbacPolicy::Build({RoleData{"dev", "reader", {Rule({"get", "list"}, {""}, {"configmaps"})}}}, {},
                             {Binding("dev", "alice-reads", "Role", "reader", {UserSubject("alice")})}, {});
  RbacAuthorizer rbac(p);
  auto alice = User("alice");
  Result r = rbac.Decide(Res(alice, "list", "", "configmaps", "dev"));
  EXPECT_EQ(r.decision, Decision::kAllow);
  EXPECT_EQ(r.reason, "RBAC: allowed by RoleBinding \"alice-reads/dev\" of Role \"reader\" to User \"alice\"");
  EXPECT_EQ(rbac.Decide(Res(alice, "list", "", "configmaps", "prod")).decision, Decision::kNoOpinion);
  EXPECT_EQ(rbac.Decide(Res(alice, "delete", "", "configmaps", "dev")).decision, Decision::kNoOpinion);
  EXPECT_EQ(rbac.Decide(Res(User("bob"), "list", "", "configmaps", "dev")).decision, Decision::kNoOpinion);
}

TEST(RbacAuthorizer, ClusterRoleBindingsApplyEverywhereAndGroupsMatch) {
  auto p = RbacPolicy::Build({}, {RoleData{"", "viewer", {Rule({"get"}, {"apps"}, {"deployments", "*/scale"})}}}, {},
                             {Binding("", "ops", "ClusterRole", "viewer", {GroupSubject("ops")})});
  RbacAuthorizer rbac(p);
  auto carol = User("carol", {"ops", kAllAuthenticated});
  EXPECT_EQ(rbac.Decide(Res(carol, "get", "apps", "deployments", "any", "web")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Decide(Res(carol, "get", "apps", "statefulsets", "x", "db", "scale")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Decide(Res(carol, "get", "apps", "statefulsets", "x", "db")).decision, Decision::kNoOpinion);
  EXPECT_EQ(rbac.Decide(Res(carol, "get", "", "deployments", "x")).decision, Decision::kNoOpinion);
}

TEST(RbacAuthorizer, ServiceAccountSubjectsDefaultToTheBindingNamespace) {
  auto p = RbacPolicy::Build({RoleData{"ns1", "r", {Rule({"get"}, {""}, {"pods"})}}}, {},
                             {Binding("ns1", "b", "Role", "r", {Subject{"ServiceAccount", "", "builder", ""}})}, {});
  RbacAuthorizer rbac(p);
  EXPECT_EQ(rbac.Decide(Res(User("system:serviceaccount:ns1:builder"), "get", "", "pods", "ns1")).decision,
            Decision::kAllow);
  EXPECT_EQ(rbac.Decide(Res(User("system:serviceaccount:ns2:builder"), "get", "", "pods", "ns1")).decision,
            Decision::kNoOpinion);
}

TEST(RbacAuthorizer, MissingRolesAreReportedAsResolutionErrors) {
  auto p = RbacPolicy::Build({}, {}, {Binding("dev", "b", "Role", "gone", {UserSubject("alice")})},
                             {Binding("", "c", "ClusterRole", "missing", {UserSubject("alice")})});
  RbacAuthorizer rbac(p);
  Result r = rbac.Decide(Res(User("alice"), "get", "", "pods", "dev"));
  EXPECT_EQ(r.decision, Decision::kNoOpinion);
  EXPECT_EQ(r.reason,
            "RBAC: [clusterrole.rbac.authorization.k8s.io \"missing\" not found, role.rbac.authorization.k8s.io "
            "\"gone\" not found]");
}

TEST(RbacAuthorizer, NonResourceUrlsWithStarSuffix) {
  auto p = RbacPolicy::Build({}, {RoleData{"", "probe", {PolicyRule{{"get"}, {}, {}, {}, {"/healthz", "/logs/*"}}}}}, {},
                             {Binding("", "b", "ClusterRole", "probe", {UserSubject("m")})});
  RbacAuthorizer rbac(p);
  EXPECT_EQ(rbac.Decide(Path(User("m"), "/healthz")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Decide(Path(User("m"), "/logs/a/b")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Decide(Path(User("m"), "/healthz/etcd")).decision, Decision::kNoOpinion);
}

TEST(RbacAuthorizer, RulesForListsResourceAndNonResourceRules) {
  auto p = RbacPolicy::Build({RoleData{"dev", "r", {Rule({"get"}, {""}, {"pods"}, {"p1"})}}},
                             {RoleData{"", "c", {PolicyRule{{"get"}, {}, {}, {}, {"/version"}}}}},
                             {Binding("dev", "b", "Role", "r", {UserSubject("u")})},
                             {Binding("", "cb", "ClusterRole", "c", {UserSubject("u")})});
  RbacAuthorizer rbac(p);
  RulesResult r = rbac.RulesFor(User("u"), "dev");
  ASSERT_EQ(r.resource_rules.size(), 1u);
  EXPECT_EQ(r.resource_rules[0].resource_names, std::vector<std::string>{"p1"});
  ASSERT_EQ(r.non_resource_rules.size(), 1u);
  EXPECT_EQ(r.non_resource_rules[0].non_resource_urls, std::vector<std::string>{"/version"});
  EXPECT_FALSE(r.incomplete);
  EXPECT_TRUE(rbac.RulesFor(User("u"), "other").resource_rules.empty());
}

TEST(RbacAuthorizer, SnapshotsAreSwapped) {
  RbacAuthorizer rbac;
  auto a = User("alice");
  EXPECT_EQ(rbac.Decide(Res(a, "get", "", "pods", "x")).decision, Decision::kNoOpinion);
  rbac.SetPolicy(RbacPolicy::Build({}, {RoleData{"", "all", {Rule({"*"}, {"*"}, {"*"})}}}, {},
                                   {Binding("", "b", "ClusterRole", "all", {UserSubject("alice")})}));
  EXPECT_EQ(rbac.Decide(Res(a, "get", "", "pods", "x")).decision, Decision::kAllow);
}

TEST(ConfirmNoEscalation, MessageListsTheMissingRulesCompacted) {
  auto p = RbacPolicy::Build({RoleData{"dev", "r", {Rule({"get"}, {""}, {"pods"})}}}, {},
                             {Binding("dev", "b", "Role", "r", {UserSubject("alice")})}, {});
  auto alice = User("alice", {"devs", kAllAuthenticated});
  EXPECT_EQ(ConfirmNoEscalation(*p, alice, "dev", {Rule({"get"}, {""}, {"pods"})}), "");
  std::string msg = ConfirmNoEscalation(*p, alice, "dev", {Rule({"get", "list", "delete"}, {""}, {"pods", "secrets"})});
  EXPECT_EQ(msg,
            "user \"alice\" (groups=[\"devs\" \"system:authenticated\"]) is attempting to grant RBAC permissions not "
            "currently held:\n"
            "{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"list\" \"delete\"]}\n"
            "{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\" \"list\" \"delete\"]}");
}

TEST(BootstrapPolicy, PublicInfoAndDiscoveryAndClusterAdmin) {
  const auto& bp = DefaultBootstrapPolicy();
  std::vector<RoleData> roles, cluster_roles;
  std::vector<BindingData> rbs, crbs;
  for (const auto& o : bp.cluster_roles) cluster_roles.push_back(RoleFromJson(o));
  for (const auto& o : bp.roles) roles.push_back(RoleFromJson(o));
  for (const auto& o : bp.cluster_role_bindings) crbs.push_back(BindingFromJson(o));
  for (const auto& o : bp.role_bindings) rbs.push_back(BindingFromJson(o));
  RbacAuthorizer rbac(RbacPolicy::Build(roles, cluster_roles, rbs, crbs));
  auto anon = User(kAnonymousUser, {kAllUnauthenticated});
  EXPECT_EQ(rbac.Decide(Path(anon, "/healthz")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Decide(Path(anon, "/version")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Decide(Path(anon, "/api")).decision, Decision::kNoOpinion);
  EXPECT_EQ(rbac.Decide(Res(anon, "list", "", "pods", "default")).decision, Decision::kNoOpinion);
  auto someone = User("someone");
  EXPECT_EQ(rbac.Decide(Path(someone, "/apis/apps")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Decide(Res(someone, "create", "authorization.k8s.io", "selfsubjectaccessreviews", "")).decision,
            Decision::kAllow);
  EXPECT_EQ(rbac.Decide(Res(someone, "list", "", "pods", "default")).decision, Decision::kNoOpinion);
  auto admin = User("admin", {kSystemPrivilegedGroup, kAllAuthenticated});
  Result r = rbac.Decide(Res(admin, "delete", "", "nodes", "", "n1"));
  EXPECT_EQ(r.decision, Decision::kAllow);
  EXPECT_EQ(r.reason, "RBAC: allowed by ClusterRoleBinding \"cluster-admin\" of ClusterRole \"cluster-admin\" to Group "
                      "\"system:masters\"");
  auto scheduler = User("system:kube-scheduler");
  EXPECT_EQ(rbac.Decide(Res(scheduler, "create", "", "pods", "default", "p", "binding")).decision, Decision::kAllow);
  EXPECT_EQ(rbac.Decide(Res(scheduler, "get", "coordination.k8s.io", "leases", "kube-system", "kube-scheduler")).decision,
            Decision::kAllow);
  // Every object carries kube's bootstrapping label and autoupdate annotation.
  for (const auto& o : bp.cluster_roles) {
    EXPECT_EQ(o.at("metadata").at("labels").at(kBootstrappingLabel), "rbac-defaults");
    EXPECT_EQ(o.at("metadata").at("annotations").at(kAutoUpdateAnnotation), "true");
  }
}

}  // namespace
}  // namespace capstan::authz
