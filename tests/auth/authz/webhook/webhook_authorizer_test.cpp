// The Webhook authorizer over HTTPS: the SubjectAccessReview it sends (v1 and v1beta1), allow, deny
// and no-opinion answers, the cache by review, failures as evaluation errors, and the kubeconfig it
// reads the server, CA and client certificate from; --authorization-config: webhooks with
// matchConditions, failurePolicy Deny, the reload of a changed file and its metrics.
#include "auth/authz/webhook_authorizer.h"

#include <gtest/gtest.h>

#include <atomic>

#include "util/metrics.h"

#include "cmd/authorization/authorization_setup.h"
#include "cmd/authorization/webhook_config.h"
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

TEST(WebhookAuthorizer, ListSelectorsBecomeRequirements) {
  Attributes a = Res("alice", "list", "pods");
  a.field_selector = "spec.nodeName=node-1,metadata.name!=x";
  a.label_selector = "app in (web,api),!canary,tier,env!=prod,size>3";
  json::object v1 = json::parse(WebhookAuthorizer::ReviewBody(a, "v1")).as_object();
  const auto& ra = v1["spec"].at("resourceAttributes");
  EXPECT_EQ(json::serialize(ra.at("fieldSelector")),
            R"({"requirements":[{"key":"metadata.name","operator":"NotIn","values":["x"]},)"
            R"({"key":"spec.nodeName","operator":"In","values":["node-1"]}]})");  // sorted, as kube's parser sorts
  EXPECT_EQ(json::serialize(ra.at("labelSelector")),
            R"({"requirements":[{"key":"app","operator":"In","values":["api","web"]},)"
            R"({"key":"canary","operator":"DoesNotExist"},{"key":"env","operator":"NotIn","values":["prod"]},)"
            R"({"key":"tier","operator":"Exists"}]})");
  a.field_selector = "not a selector";
  a.label_selector.clear();
  json::object bad = json::parse(WebhookAuthorizer::ReviewBody(a, "v1")).as_object();
  EXPECT_FALSE(bad["spec"].at("resourceAttributes").as_object().contains("fieldSelector"));
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
  wc.initial_backoff = std::chrono::milliseconds(10);
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

  // A webhook answering 500 is asked again with backoff (5 attempts), then leaves no opinion with
  // an evaluation error; a 403 is not retried.
  std::atomic<int> failing{0};
  webhook.Set([&](const http::HttpRequest&) {
    failing++;
    return JsonReply(500, "{}");
  });
  auto t0 = std::chrono::steady_clock::now();
  Result failed = SyncWait(w.Authorize(Res("carol", "get", "pods")));
  EXPECT_EQ(failed.decision, Decision::kNoOpinion);
  EXPECT_EQ(failed.error, "the server responded with the status code 500");
  EXPECT_EQ(failing.load(), 5);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(10 + 15 + 22 + 33));
  webhook.Set([&](const http::HttpRequest&) {
    failing++;
    return JsonReply(403, "{}");
  });
  failing = 0;
  EXPECT_EQ(SyncWait(w.Authorize(Res("dave", "get", "pods"))).error, "the server responded with the status code 403");
  EXPECT_EQ(failing.load(), 1);
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

std::string WebhookKubeconfig(const TempDir& dir, const std::string& name, const std::string& url, const TestCa& ca) {
  dir.Write("ca.crt", ca.pem());
  return dir.Write(name, "apiVersion: v1\nkind: Config\nclusters:\n- name: w\n  cluster:\n    server: " + url +
                             "\n    certificate-authority: ca.crt\nusers:\n- name: api\n  user: {}\n"
                             "contexts:\n- name: c\n  context:\n    cluster: w\n    user: api\ncurrent-context: c\n");
}

std::string OneWebhookConfig(const std::string& kubeconfig, const std::string& condition, const std::string& policy) {
  return "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n"
         "- type: Webhook\n  name: gate.example.com\n  webhook:\n    timeout: 2s\n    subjectAccessReviewVersion: v1\n"
         "    matchConditionSubjectAccessReviewVersion: v1\n    failurePolicy: " +
         policy + "\n    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: " + kubeconfig +
         "\n    matchConditions:\n    - expression: " + condition + "\n- type: RBAC\n  name: rbac\n";
}

double Sample(const MetricsRegistry& m, const std::string& line_prefix) {
  std::string text = m.Expose();
  auto pos = text.find("\n" + line_prefix);
  if (pos == std::string::npos) return -1;
  pos = text.find(' ', pos + 1 + line_prefix.size());
  return std::stod(text.substr(pos + 1));
}

TEST(AuthorizationConfigFile, MatchConditionsChooseTheWebhookAndAReloadChangesThem) {
  TestCa ca;
  std::atomic<int> calls{0};
  TestHttpsServer webhook(ca, [&](const http::HttpRequest& req) {
    calls++;
    json::object review = json::parse(req.body).as_object();
    review["status"] = json::object{{"allowed", true}, {"reason", "gate says yes"}};
    return JsonReply(200, json::serialize(review));
  });
  ASSERT_TRUE(webhook.ok());
  TempDir dir;
  std::string kc = WebhookKubeconfig(dir, "gate.kubeconfig", webhook.url("/authorize"), ca);
  std::string file = dir.Write("authz.yaml", OneWebhookConfig(kc, "request.user == 'alice'", "NoOpinion"));
  endpoints::ApiRegistry apis;
  MetricsRegistry metrics;
  AuthorizationOptions o;
  o.config_file = file;
  o.metrics = &metrics;
  o.apiserver_id_hash = "sha256:x";
  auto s = AuthorizationSetup::Create(o, apis);
  ASSERT_TRUE(s.ok()) << s.status().message();
  Authorizer& az = (*s)->authorizer();
  Result alice = SyncWait(az.Authorize(Res("alice", "get", "pods")));
  EXPECT_EQ(alice.decision, Decision::kAllow);
  EXPECT_EQ(alice.reason, "gate says yes");
  EXPECT_EQ(SyncWait(az.Authorize(Res("bob", "get", "pods"))).decision, Decision::kNoOpinion);
  EXPECT_EQ(calls.load(), 1);  // bob's request never reached the webhook
  EXPECT_EQ(Sample(metrics, "apiserver_authorization_match_condition_exclusions_total{name=\"gate.example.com\",type=\"Webhook\"}"), 1);
  EXPECT_EQ(Sample(metrics, "apiserver_authorization_decisions_total{decision=\"allowed\",name=\"gate.example.com\",type=\"Webhook\"}"), 1);
  EXPECT_EQ(Sample(metrics, "apiserver_authorization_webhook_evaluations_total{name=\"gate.example.com\",result=\"success\"}"), 1);

  EXPECT_EQ((*s)->CheckConfigFile(), AuthorizationSetup::ReloadOutcome::kUnchanged);
  dir.Write("authz.yaml", OneWebhookConfig(kc, "request.user == 'bob'", "NoOpinion"));
  EXPECT_EQ((*s)->CheckConfigFile(), AuthorizationSetup::ReloadOutcome::kReloaded);
  EXPECT_EQ(SyncWait(az.Authorize(Res("bob", "get", "pods"))).decision, Decision::kAllow);
  EXPECT_EQ(SyncWait(az.Authorize(Res("carol", "get", "pods"))).decision, Decision::kNoOpinion);

  // A file that drops RBAC (a type the server started with) or does not parse leaves the chain as it is.
  dir.Write("authz.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n"
                          "- type: AlwaysAllow\n  name: alwaysallow\n");
  EXPECT_EQ((*s)->CheckConfigFile(), AuthorizationSetup::ReloadOutcome::kFailed);
  dir.Write("authz.yaml", "{not yaml");
  EXPECT_EQ((*s)->CheckConfigFile(), AuthorizationSetup::ReloadOutcome::kFailed);
  EXPECT_EQ(SyncWait(az.Authorize(Res("carol", "get", "pods"))).decision, Decision::kNoOpinion);
  EXPECT_EQ(SyncWait(az.Authorize(Res("bob", "get", "pods"))).decision, Decision::kAllow);
  EXPECT_EQ(Sample(metrics, "apiserver_authorization_config_controller_automatic_reloads_total{apiserver_id_hash=\"sha256:x\",status=\"failure\"}"), 2);
  EXPECT_EQ(Sample(metrics, "apiserver_authorization_config_controller_automatic_reloads_total{apiserver_id_hash=\"sha256:x\",status=\"success\"}"), 1);
}

TEST(AuthorizationConfigFile, FailurePolicyDenyStopsTheChainWithTheError) {
  TestCa ca;
  TempDir dir;
  std::string kc = WebhookKubeconfig(dir, "down.kubeconfig", "https://127.0.0.1:1/authorize", ca);
  endpoints::ApiRegistry apis;
  AuthorizationOptions o;
  o.config_file = dir.Write("authz.yaml", OneWebhookConfig(kc, "\"true\"", "Deny"));
  auto s = AuthorizationSetup::Create(o, apis);
  ASSERT_TRUE(s.ok()) << s.status().message();
  Result r = SyncWait((*s)->authorizer().Authorize(Res("alice", "get", "pods")));
  EXPECT_EQ(r.decision, Decision::kDeny);
  EXPECT_FALSE(r.error.empty());
  // NoOpinion lets the next authorizer decide, with the error kept.
  dir.Write("authz.yaml", OneWebhookConfig(kc, "\"true\"", "NoOpinion"));
  ASSERT_EQ((*s)->CheckConfigFile(), AuthorizationSetup::ReloadOutcome::kReloaded);
  r = SyncWait((*s)->authorizer().Authorize(Res("alice", "get", "pods")));
  EXPECT_EQ(r.decision, Decision::kNoOpinion);
  EXPECT_FALSE(r.error.empty());
}

TEST(AuthorizationConfigFile, ExcludesTheLegacyFlagsAndMustExist) {
  endpoints::ApiRegistry apis;
  AuthorizationOptions o;
  o.config_file = "/nonexistent/authz.yaml";
  auto missing = AuthorizationSetup::Create(o, apis);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "open /nonexistent/authz.yaml: no such file or directory");
  o.legacy_flags_set = true;
  auto both = AuthorizationSetup::Create(o, apis);
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.status().message(),
            "--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags "
            "are defined");
  AuthorizationOptions repeated;
  repeated.modes = {"RBAC", "RBAC"};
  auto r = AuthorizationSetup::Create(repeated, apis);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "modes should not be repeated in --authorization-mode");
}

}  // namespace
}  // namespace capstan::authz
