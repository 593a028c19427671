#include "audit/policy.h"

#include <gtest/gtest.h>

namespace capstan::audit {
namespace {

const char* kPolicy = R"(
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: None
    users: ["system:kube-proxy"]
    verbs: ["watch"]
  - level: None
    nonResourceURLs: ["/healthz*", "/version"]
  - level: Metadata
    resources:
      - group: ""
        resources: ["secrets", "configmaps/*"]
  - level: RequestResponse
    resources:
      - group: ""
        resources: ["pods/log", "*/status"]
  - level: Request
    userGroups: ["system:nodes"]
    namespaces: ["kube-system"]
    omitStages: ["ResponseStarted"]
  - level: Request
    resources:
      - group: "apps"
        resources: ["deployments"]
        resourceNames: ["web"]
  - level: Metadata
    omitManagedFields: true
)";

RequestAttributes Res(std::string verb, std::string group, std::string resource, std::string sub = "",
                      std::string ns = "default", std::string name = "") {
  RequestAttributes a;
  a.verb = std::move(verb);
  a.resource_request = true;
  a.api_group = std::move(group);
  a.resource = std::move(resource);
  a.subresource = std::move(sub);
  a.namespace_ = std::move(ns);
  a.name = std::move(name);
  return a;
}

TEST(PolicyTest, FirstMatchingRuleWins) {
  auto p = Policy::Load(kPolicy);
  ASSERT_TRUE(p.ok()) << p.status().message();
  UserInfo proxy{"system:kube-proxy", "", {"system:authenticated"}, {}};
  auto w = Res("watch", "", "endpoints");
  w.user = &proxy;
  EXPECT_EQ(p->Evaluate(w).level, Level::kNone);
  auto l = Res("list", "", "endpoints");
  l.user = &proxy;
  EXPECT_EQ(p->Evaluate(l).level, Level::kMetadata);  // the catch-all

  RequestAttributes health;
  health.verb = "get";
  health.path = "/healthz/etcd";
  EXPECT_EQ(p->Evaluate(health).level, Level::kNone);
  health.path = "/versions";
  EXPECT_EQ(p->Evaluate(health).level, Level::kMetadata);

  EXPECT_EQ(p->Evaluate(Res("get", "", "secrets")).level, Level::kMetadata);
  EXPECT_EQ(p->Evaluate(Res("get", "", "configmaps", "x")).level, Level::kMetadata);  // configmaps/*
  EXPECT_EQ(p->Evaluate(Res("get", "", "pods", "log")).level, Level::kRequestResponse);
  EXPECT_EQ(p->Evaluate(Res("update", "", "nodes", "status", "")).level, Level::kRequestResponse);  // */status
  EXPECT_EQ(p->Evaluate(Res("get", "apps", "deployments", "", "default", "web")).level, Level::kRequest);
  EXPECT_EQ(p->Evaluate(Res("get", "apps", "deployments", "", "default", "api")).level, Level::kMetadata);

  UserInfo node{"system:node:a", "", {"system:nodes"}, {}};
  auto n = Res("get", "", "pods", "", "kube-system");
  n.user = &node;
  auto cfg = p->Evaluate(n);
  EXPECT_EQ(cfg.level, Level::kRequest);
  EXPECT_TRUE(cfg.omit_stages.count(Stage::kResponseStarted));
  EXPECT_TRUE(cfg.omit_stages.count(Stage::kRequestReceived));  // the policy's, added to each rule
  EXPECT_FALSE(cfg.omit_managed_fields);
  EXPECT_TRUE(p->Evaluate(Res("get", "", "services")).omit_managed_fields);
}

TEST(PolicyTest, NoMatchIsNone) {
  auto p = Policy::Load("{\"apiVersion\":\"audit.k8s.io/v1\",\"kind\":\"Policy\",\"rules\":[{\"level\":\"Metadata\","
                        "\"verbs\":[\"create\"]}]}");
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(p->Evaluate(Res("get", "", "pods")).level, Level::kNone);
  EXPECT_EQ(p->Evaluate(Res("create", "", "pods")).level, Level::kMetadata);
}

TEST(PolicyTest, ValidationMessagesAreKubes) {
  auto bad = Policy::Load(R"(
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["Sometimes"]
rules:
  - level: Loud
  - level: Metadata
    nonResourceURLs: ["healthz", "/a*b"]
  - {}
)");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "[omitStages[0]: Invalid value: \"Sometimes\": allowed stages are "
            "RequestReceived,ResponseStarted,ResponseComplete,Panic, rules[0].level: Unsupported value: \"Loud\": "
            "supported values: \"None\", \"Metadata\", \"Request\", \"RequestResponse\", "
            "rules[1].nonResourceURLs[0]: Invalid value: \"healthz\": non-resource URL rules must begin with a '/' "
            "character, rules[1].nonResourceURLs[1]: Invalid value: \"/a*b\": non-resource URL wildcards '*' must be "
            "the final character of the rule, rules[2].level: Required value]");

  auto empty = Policy::Load("apiVersion: audit.k8s.io/v1\nkind: Policy\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "loaded illegal policy with 0 rules");

  auto gv = Policy::Load("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: [{level: None}]\n");
  ASSERT_FALSE(gv.ok());
  EXPECT_NE(gv.status().message().find("unknown group version"), std::string::npos);

  auto both = Policy::Load(
      "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, nonResourceURLs: [/x], namespaces: [a]}]\n");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("rules cannot apply to both regular resources and non-resource URLs"),
            std::string::npos);

  auto names = Policy::Load(
      "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: None, resources: [{resourceNames: [a]}]}]\n");
  ASSERT_FALSE(names.ok());
  EXPECT_NE(names.status().message().find("using resourceNames requires at least one resource"), std::string::npos);

  EXPECT_FALSE(Policy::Load("rules: [").ok());
  EXPECT_FALSE(Policy::Load("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: 3\n").ok());
  EXPECT_FALSE(Policy::Load("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: [{level: [x]}]\n").ok());
}

TEST(PolicyTest, MissingFileNamesThePath) {
  auto p = Policy::LoadFile("/nonexistent/policy.yaml");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find("/nonexistent/policy.yaml"), std::string::npos);
}

}  // namespace
}  // namespace capstan::audit
