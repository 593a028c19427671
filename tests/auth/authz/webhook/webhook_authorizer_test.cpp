// The Webhook authorizer over HTTPS: the SubjectAccessReview it sends (v1 and v1beta1), allow, deny
// and no-opinion answers, the cache by review, failures as evaluation errors, and the kubeconfig it
// reads the server, CA and client certificate from.
#include "auth/authz/webhook_authorizer.h"

#include <gtest/gtest.h>

#include <atomic>

#include "auth/authz/setup/authorization_setup.h"
#include "auth/authz/setup/webhook_config.h"
#include "authn_test_util.h"
#include "server/http_client.h"

namespace capstan::authz {
namespace {

namespace json = boost::json;
using authn::testing::JsonReply;
using authn::testing::TempDir;
using authn::testing::TestCa;
using authn::testing::TestHttpsServer;

Attributes Res(const std::string& user, const std::string& verb, const std::string& resource) {
  Attributes a;
  a.user.name = user;
  a.user.groups = {"devs", kAllAuthenticated};
  a.verb = verb;
  a.resource_request = true;
  a.resource = resource;
  a.namespace_ = "default";
  return a;
}

TEST(WebhookAuthorizer, ReviewBodyV1AndV1beta1) {
  Attributes a = Res("alice", "get", "pods");
  a.name = "p";
  json::object v1 = json::parse(WebhookAuthorizer::ReviewBody(a, "v1")).as_object();
  EXPECT_EQ(v1["apiVersion"], "authorization.k8s.io/v1");
  EXPECT_EQ(v1["spec"].at("resourceAttributes").at("name"), "p");
  EXPECT_EQ(v1["spec"].at("groups").at(0), "devs");
  json::object b1 = json::parse(WebhookAuthorizer::ReviewBody(a, "v1beta1")).as_object();
  EXPECT_EQ(b1["spec"].at("group").at(1), kAllAuthenticated);
}

TEST(WebhookAuthorizer, DecisionsCacheAndFailures) {
  TestCa ca;
  std::atomic<int> calls{0};
  TestHttpsServer webhook(ca, [&](const http::HttpRequest& req) {
    calls++;
    json::object review = json::parse(req.body).as_object();
    const auto& spec = review["spec"].as_object();
    std::string user(spec.at("user").as_string());
    json::object status;
    status["allowed"] = user == "alice";
    if (user == "mallory") status["denied"] = true;
    status["reason"] = "because " + user;
    review["status"] = std::move(status);
    return JsonReply(200, json::serialize(review));
  });
  ASSERT_TRUE(webhook.ok());
  TempDir dir;
  std::string kc = dir.Write("webhook.kubeconfig", "apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n    server: " +
                                                       webhook.url("/authorize") + "\n    certificate-authority: ca.crt\n"
                                                       "users:\n- name: api\n  user:\n    token: secret\n"
                                                       "contexts:\n- name: c\n  context:\n    cluster: w\n    user: api\n"
                                                       "current-context: c\n");
  dir.Write("ca.crt", ca.pem());
  auto target = LoadWebhookKubeconfig(kc);
  ASSERT_TRUE(target.ok()) << target.status().message();
  EXPECT_EQ(target->bearer_token, "secret");
  server::HttpClientEngine engine;
  auto client = engine.NewClient(target->tls);
  ASSERT_TRUE(client.ok()) << client.status().message();
  WebhookAuthzConfig wc;
  wc.server = target->server;
  wc.bearer_token = target->bearer_token;
  WebhookAuthorizer w(wc, std::move(*client));

  Result allow = SyncWait(w.Authorize(Res("alice", "get", "pods")));
  EXPECT_EQ(allow.decision, Decision::kAllow);
  EXPECT_EQ(allow.reason, "because alice");
  EXPECT_EQ(SyncWait(w.Authorize(Res("mallory", "get", "pods"))).decision, Decision::kDeny);
  EXPECT_EQ(SyncWait(w.Authorize(Res("bob", "get", "pods"))).decision, Decision::kNoOpinion);
  EXPECT_EQ(calls.load(), 3);
  // Answered from the cache.
  EXPECT_EQ(SyncWait(w.Authorize(Res("alice", "get", "pods"))).decision, Decision::kAllow);
  EXPECT_EQ(calls.load(), 3);

  // A webhook answering 500 leaves no opinion with an evaluation error.
  webhook.Set([](const http::HttpRequest&) { return JsonReply(500, "{}"); });
  Result failed = SyncWait(w.Authorize(Res("carol", "get", "pods")));
  EXPECT_EQ(failed.decision, Decision::kNoOpinion);
  EXPECT_EQ(failed.error, "the server responded with the status code 500");
}

TEST(WebhookAuthorizer, SetupNeedsTheConfigFile) {
  endpoints::ApiRegistry apis;
  AuthorizationOptions o;
  o.modes = {"Webhook"};
  auto s = AuthorizationSetup::Create(o, apis);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "authorization-mode Webhook's authorization config file not passed");
  o.webhook_config_file = "/nonexistent/kubeconfig";
  EXPECT_FALSE(AuthorizationSetup::Create(o, apis).ok());
  o.modes = {"RBAC"};
  o.webhook_config_file.clear();
  o.policy_file = "/x";
  auto abac = AuthorizationSetup::Create(o, apis);
  ASSERT_FALSE(abac.ok());
  EXPECT_EQ(abac.status().message(), "cannot specify --authorization-policy-file without mode ABAC");
}

}  // namespace
}  // namespace capstan::authz
