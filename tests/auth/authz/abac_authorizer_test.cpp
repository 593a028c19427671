// The ABAC authorizer: v1beta1 and v0 policy lines, subject/readonly/resource/non-resource matching,
// rules listing, and load errors naming the file and line.
#include "auth/authz/abac_authorizer.h"

#include <gtest/gtest.h>

namespace capstan::authz {
namespace {

UserInfo User(std::string name, std::vector<std::string> groups = {kAllAuthenticated}) {
  UserInfo u;
  u.name = std::move(name);
  u.groups = std::move(groups);
  return u;
}

Attributes Res(const UserInfo& u, std::string verb, std::string group, std::string resource, std::string ns) {
  Attributes a;
  a.user = u;
  a.verb = std::move(verb);
  a.resource_request = true;
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.namespace_ = std::move(ns);
  return a;
}

const char* kPolicy = R"(# comments and blank lines are skipped

{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "alice", "namespace": "*", "resource": "*", "apiGroup": "*"}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"user": "bob", "namespace": "projectCaribou", "resource": "pods", "apiGroup": "", "readonly": true}}
{"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Policy", "spec": {"group": "system:authenticated", "readonly": true, "nonResourcePath": "/api*"}}
{"user": "legacy"}
)";

TEST(AbacAuthorizer, MatchesAsKube) {
  auto policies = AbacAuthorizer::Parse("policy.jsonl", kPolicy);
  ASSERT_TRUE(policies.ok()) << policies.status().message();
  ASSERT_EQ(policies->size(), 4u);
  AbacAuthorizer abac(std::move(*policies));
  EXPECT_EQ(abac.Decide(Res(User("alice"), "delete", "apps", "deployments", "x")).decision, Decision::kAllow);
  auto bob = User("bob");
  EXPECT_EQ(abac.Decide(Res(bob, "list", "", "pods", "projectCaribou")).decision, Decision::kAllow);
  EXPECT_EQ(abac.Decide(Res(bob, "create", "", "pods", "projectCaribou")).decision, Decision::kNoOpinion);
  EXPECT_EQ(abac.Decide(Res(bob, "list", "", "pods", "other")).decision, Decision::kNoOpinion);
  Result r = abac.Decide(Res(bob, "list", "apps", "pods", "projectCaribou"));
  EXPECT_EQ(r.decision, Decision::kNoOpinion);
  EXPECT_EQ(r.reason, "No policy matched.");
  Attributes path;
  path.user = User("carol");
  path.verb = "get";
  path.path = "/apis/apps";
  EXPECT_EQ(abac.Decide(path).decision, Decision::kAllow);
  path.path = "/healthz";
  EXPECT_EQ(abac.Decide(path).decision, Decision::kNoOpinion);
  // v0: an empty namespace and resource match everything, non-resource paths included.
  EXPECT_EQ(abac.Decide(Res(User("legacy"), "delete", "batch", "jobs", "y")).decision, Decision::kAllow);
  path.user = User("legacy");
  path.verb = "post";
  EXPECT_EQ(abac.Decide(path).decision, Decision::kAllow);

  RulesResult rules = abac.RulesFor(bob, "projectCaribou");
  ASSERT_EQ(rules.resource_rules.size(), 1u);
  EXPECT_EQ(rules.resource_rules[0].verbs, (std::vector<std::string>{"get", "list", "watch"}));
  // As kube's, a policy's namespace is compared even for its non-resource path ("" is not "*").
  EXPECT_TRUE(rules.non_resource_rules.empty());
  RulesResult cluster = abac.RulesFor(User("carol"), "");
  ASSERT_EQ(cluster.non_resource_rules.size(), 1u);
  EXPECT_EQ(cluster.non_resource_rules[0].non_resource_urls, std::vector<std::string>{"/api*"});
}

TEST(AbacAuthorizer, ErrorsNameFileAndLine) {
  auto bad = AbacAuthorizer::Parse("/etc/p.jsonl", "\n{\"user\": \"a\"}\n{not json}\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("error reading policy file /etc/p.jsonl, line 3: {not json}: ", 0), 0u)
      << bad.status().message();
  auto kind = AbacAuthorizer::Parse("p", R"({"apiVersion": "abac.authorization.kubernetes.io/v1beta1", "kind": "Rule"})");
  ASSERT_FALSE(kind.ok());
  EXPECT_NE(kind.status().message().find("line 1"), std::string::npos);
  EXPECT_FALSE(AbacAuthorizer::Load("/nonexistent/policy").ok());
}

}  // namespace
}  // namespace capstan::authz
