// The Node authorizer: identity, the pod graph (secrets, configmaps, claims, volumes, tokens), the
// node's own objects and the static node rules.
#include "auth/authz/node_authorizer.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace capstan::authz {
namespace {

UserInfo Node(const std::string& n) {
  UserInfo u;
  u.name = "system:node:" + n;
  u.groups = {kNodesGroup, kAllAuthenticated};
  return u;
}

Attributes Res(const UserInfo& u, std::string verb, std::string resource, std::string ns, std::string name,
               std::string group = "", std::string sub = "") {
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

boost::json::object Pod(const std::string& node) {
  return boost::json::parse(R"({"metadata":{"namespace":"app","name":"web"},"spec":{"nodeName":")" + node + R"(",
    "serviceAccountName":"runner","imagePullSecrets":[{"name":"pull"}],
    "volumes":[{"name":"cfg","configMap":{"name":"settings"}},{"name":"data","persistentVolumeClaim":{"claimName":"claim"}},
               {"name":"p","projected":{"sources":[{"secret":{"name":"proj"}}]}}],
    "containers":[{"name":"c","env":[{"name":"X","valueFrom":{"secretKeyRef":{"name":"envsec","key":"k"}}}],
                   "envFrom":[{"configMapRef":{"name":"envcm"}}]}]}})")
      .as_object();
}

TEST(NodeAuthorizer, IdentityAndNonNodes) {
  EXPECT_EQ(*NodeIdentity(Node("n1")), "n1");
  UserInfo other;
  other.name = "system:node:n1";
  EXPECT_FALSE(NodeIdentity(other).has_value());
  NodeAuthorizer na;
  EXPECT_EQ(na.Decide(Res(other, "get", "secrets", "app", "pull")).decision, Decision::kNoOpinion);
  UserInfo nameless;
  nameless.name = "kubelet";
  nameless.groups = {kNodesGroup};
  EXPECT_EQ(na.Decide(Res(nameless, "get", "secrets", "app", "pull")).reason, "unknown node for user \"kubelet\"");
}

TEST(NodeAuthorizer, ReadsOnlyWhatItsPodsReference) {
  NodeAuthorizer na;
  na.SetPod(Pod("n1"));
  auto n1 = Node("n1"), n2 = Node("n2");
  for (const char* s : {"pull", "proj", "envsec"}) {
    EXPECT_EQ(na.Decide(Res(n1, "get", "secrets", "app", s)).decision, Decision::kAllow) << s;
  }
  for (const char* c : {"settings", "envcm"}) {
    EXPECT_EQ(na.Decide(Res(n1, "get", "configmaps", "app", c)).decision, Decision::kAllow) << c;
  }
  EXPECT_EQ(na.Decide(Res(n1, "get", "persistentvolumeclaims", "app", "claim")).decision, Decision::kAllow);
  Result other = na.Decide(Res(n2, "get", "secrets", "app", "pull"));
  EXPECT_EQ(other.decision, Decision::kNoOpinion);
  EXPECT_EQ(other.reason, "no relationship found between node 'n2' and this object");
  EXPECT_EQ(na.Decide(Res(n1, "get", "secrets", "app", "unrelated")).decision, Decision::kNoOpinion);
  EXPECT_EQ(na.Decide(Res(n1, "update", "secrets", "app", "pull")).reason, "can only read resources of this type");
  EXPECT_EQ(na.Decide(Res(n1, "create", "serviceaccounts", "app", "runner", "", "token")).decision, Decision::kAllow);
  EXPECT_EQ(na.Decide(Res(n1, "create", "serviceaccounts", "app", "default", "", "token")).decision,
            Decision::kNoOpinion);

  // Persistent volumes through the bound claim.
  na.SetPvc(boost::json::parse(R"({"metadata":{"namespace":"app","name":"claim"},"spec":{"volumeName":"pv-1"}})")
                .as_object());
  EXPECT_EQ(na.Decide(Res(n1, "get", "persistentvolumes", "", "pv-1")).decision, Decision::kAllow);
  EXPECT_EQ(na.Decide(Res(n1, "get", "persistentvolumes", "", "pv-2")).decision, Decision::kNoOpinion);

  // The pod moves away, then goes.
  na.SetPod(Pod("n2"));
  EXPECT_EQ(na.Decide(Res(n1, "get", "secrets", "app", "pull")).decision, Decision::kNoOpinion);
  EXPECT_EQ(na.Decide(Res(n2, "get", "secrets", "app", "pull")).decision, Decision::kAllow);
  na.DeletePod("app", "web");
  EXPECT_EQ(na.Decide(Res(n2, "get", "secrets", "app", "pull")).decision, Decision::kNoOpinion);
}

TEST(NodeAuthorizer, OwnNodeLeaseAndNodeRules) {
  NodeAuthorizer na;
  auto n1 = Node("n1");
  EXPECT_EQ(na.Decide(Res(n1, "get", "nodes", "", "n1")).decision, Decision::kAllow);
  EXPECT_EQ(na.Decide(Res(n1, "get", "nodes", "", "n2")).decision, Decision::kNoOpinion);
  EXPECT_EQ(na.Decide(Res(n1, "update", "nodes", "", "n1", "", "status")).decision, Decision::kAllow);
  EXPECT_EQ(na.Decide(Res(n1, "update", "leases", "kube-node-lease", "n1", "coordination.k8s.io")).decision,
            Decision::kAllow);
  EXPECT_EQ(na.Decide(Res(n1, "update", "leases", "kube-node-lease", "n2", "coordination.k8s.io")).decision,
            Decision::kNoOpinion);
  EXPECT_EQ(na.Decide(Res(n1, "create", "events", "default", "")).decision, Decision::kAllow);
  EXPECT_EQ(na.Decide(Res(n1, "delete", "namespaces", "", "default")).decision, Decision::kNoOpinion);
  Attributes list = Res(n1, "list", "pods", "", "");
  EXPECT_EQ(na.Decide(list).decision, Decision::kNoOpinion);
  list.field_selector = "spec.nodeName=n1";
  EXPECT_EQ(na.Decide(list).decision, Decision::kAllow);
  RulesResult rr = na.RulesFor(n1, "default");
  EXPECT_TRUE(rr.incomplete);
}

}  // namespace
}  // namespace capstan::authz
