#include "admission/webhook_config.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace capstan::admission {
namespace {

MatchRequest Req(std::string op, std::string group, std::string version, std::string resource, std::string sub = "",
                 bool namespaced = true) {
  return MatchRequest{std::move(op), std::move(group), std::move(version), std::move(resource), std::move(sub), namespaced};
}

WebhookRule Rule(std::vector<std::string> ops, std::vector<std::string> groups, std::vector<std::string> versions,
                 std::vector<std::string> resources, std::string scope = "*") {
  return WebhookRule{std::move(ops), std::move(groups), std::move(versions), std::move(resources), std::move(scope)};
}

TEST(WebhookRuleTest, MatchesKubesResourceForms) {
  auto r = Rule({"CREATE"}, {""}, {"v1"}, {"configmaps"});
  EXPECT_TRUE(RuleMatches(r, Req("CREATE", "", "v1", "configmaps"), false));
  EXPECT_FALSE(RuleMatches(r, Req("UPDATE", "", "v1", "configmaps"), false));
  EXPECT_FALSE(RuleMatches(r, Req("CREATE", "apps", "v1", "configmaps"), false));
  EXPECT_FALSE(RuleMatches(r, Req("CREATE", "", "v1", "configmaps", "status"), false));

  auto star = Rule({"*"}, {"*"}, {"*"}, {"*"});
  EXPECT_TRUE(RuleMatches(star, Req("DELETE", "apps", "v1", "deployments"), false));
  EXPECT_FALSE(RuleMatches(star, Req("UPDATE", "apps", "v1", "deployments", "status"), false));  // "*" has no subresources
  auto all = Rule({"*"}, {"*"}, {"*"}, {"*/*"});
  EXPECT_TRUE(RuleMatches(all, Req("UPDATE", "apps", "v1", "deployments", "scale"), false));
  auto status = Rule({"*"}, {"*"}, {"*"}, {"*/status"});
  EXPECT_TRUE(RuleMatches(status, Req("UPDATE", "", "v1", "pods", "status"), false));
  EXPECT_FALSE(RuleMatches(status, Req("UPDATE", "", "v1", "pods"), false));
  auto pods_sub = Rule({"*"}, {""}, {"v1"}, {"pods/*"});
  EXPECT_TRUE(RuleMatches(pods_sub, Req("CREATE", "", "v1", "pods", "eviction"), false));
  EXPECT_FALSE(RuleMatches(pods_sub, Req("CREATE", "", "v1", "pods"), false));

  auto cluster = Rule({"*"}, {"*"}, {"*"}, {"*"}, "Cluster");
  EXPECT_FALSE(RuleMatches(cluster, Req("CREATE", "", "v1", "configmaps"), false));
  EXPECT_TRUE(RuleMatches(cluster, Req("CREATE", "", "v1", "namespaces", "", false), false));
  auto namespaced = Rule({"*"}, {"*"}, {"*"}, {"*"}, "Namespaced");
  EXPECT_FALSE(RuleMatches(namespaced, Req("CREATE", "", "v1", "namespaces", "", false), false));
}

TEST(WebhookRuleTest, EquivalentMatchPolicyIgnoresTheVersion) {
  Webhook w;
  w.rules = {Rule({"CREATE"}, {"autoscaling"}, {"v1"}, {"horizontalpodautoscalers"})};
  w.match_policy = "Exact";
  EXPECT_FALSE(RulesMatch(w, Req("CREATE", "autoscaling", "v2", "horizontalpodautoscalers")));
  w.match_policy = "Equivalent";
  EXPECT_TRUE(RulesMatch(w, Req("CREATE", "autoscaling", "v2", "horizontalpodautoscalers")));
}

TEST(ParseWebhooksTest, DefaultsOrderAndClientConfig) {
  auto b = boost::json::parse(R"({"metadata":{"name":"b"},"webhooks":[
      {"name":"b1.example.com","clientConfig":{"service":{"namespace":"ns","name":"svc","path":"/m"},"caBundle":"Zm9v"},
       "rules":[{"operations":["CREATE"],"apiGroups":[""],"apiVersions":["v1"],"resources":["pods"]}],
       "sideEffects":"None","admissionReviewVersions":["v1"]}]})").as_object();
  auto a = boost::json::parse(R"({"metadata":{"name":"a"},"webhooks":[
      {"name":"a1.example.com","clientConfig":{"url":"https://h:8443/v"},"failurePolicy":"Ignore",
       "timeoutSeconds":3,"namespaceSelector":{"matchLabels":{"env":"prod"}}},
      {"name":"a2.example.com","clientConfig":{"caBundle":"!!"}}]})").as_object();
  auto hooks = ParseWebhooks({b, a}, true);
  ASSERT_EQ(hooks.size(), 3u);
  EXPECT_EQ(hooks[0].name, "a1.example.com");  // configurations sorted by name
  EXPECT_EQ(hooks[0].configuration, "a");
  EXPECT_EQ(hooks[0].url, "https://h:8443/v");
  EXPECT_EQ(hooks[0].failure_policy, "Ignore");
  EXPECT_EQ(hooks[0].timeout_seconds, 3);
  ASSERT_TRUE(hooks[0].namespace_selector);
  EXPECT_FALSE(hooks[0].namespace_selector->Empty());
  EXPECT_EQ(hooks[1].name, "a2.example.com");
  EXPECT_FALSE(hooks[1].invalid.empty());
  EXPECT_EQ(hooks[2].url, "https://svc.ns.svc:443/m");
  EXPECT_EQ(hooks[2].ca_pem, "foo");
  EXPECT_EQ(hooks[2].failure_policy, "Fail");
  EXPECT_EQ(hooks[2].match_policy, "Equivalent");
  EXPECT_EQ(hooks[2].timeout_seconds, 10);
  EXPECT_EQ(hooks[2].reinvocation_policy, "Never");
  EXPECT_TRUE(hooks[2].mutating);
}

}  // namespace
}  // namespace capstan::admission
