#include "admission/webhook_plugins.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <thread>

#include "admission/builtin_plugins.h"
#include "authn_test_util.h"
#include "server/http_client.h"
#include "util/strings.h"

namespace capstan::admission {
namespace {

namespace json = boost::json;
using authn::testing::JsonReply;
using authn::testing::TestCa;
using authn::testing::TestHttpsServer;

// What the test webhook answers for one review: allowed, an optional JSON patch, a message.
struct Answer {
  bool allowed = true;
  std::string patch;
  std::string message;
  int code = 0;
  std::vector<std::string> warnings;
};

http::HttpResponse Reply(const http::HttpRequest& req, const Answer& a) {
  auto review = json::parse(req.body).as_object();
  json::object resp;
  resp["uid"] = review["request"].as_object()["uid"];
  resp["allowed"] = a.allowed;
  if (!a.patch.empty()) {
    resp["patchType"] = "JSONPatch";
    resp["patch"] = Base64Encode(a.patch);
  }
  if (!a.message.empty() || a.code) {
    json::object st;
    if (a.code) st["code"] = a.code;
    st["message"] = a.message;
    resp["status"] = st;
  }
  if (!a.warnings.empty()) {
    json::array w;
    for (const auto& x : a.warnings) w.emplace_back(x);
    resp["warnings"] = w;
  }
  resp["auditAnnotations"] = json::object{{"seen", "yes"}};
  json::object out{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", resp}};
  return JsonReply(200, json::serialize(out));
}

class WebhookPluginsTest : public ::testing::Test {
 protected:
  WebhookPluginsTest()
      : server_(ca_, [this](const http::HttpRequest& req) {
          calls_++;
          last_path_ = req.target;
          last_body_ = req.body;
          if (delay_.count()) std::this_thread::sleep_for(delay_);
          return Reply(req, answers_.count(req.path) ? answers_[req.path] : Answer{});
        }) {
    info_.version = "v1";
    info_.resource = "configmaps";
    info_.kind = "ConfigMap";
    obj_ = json::parse(R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"default","labels":{"app":"web"}},"data":{"a":"b"}})").as_object();
    user_ = UserInfo{"alice", "", {"system:authenticated"}, {}};
    attrs_.operation = "CREATE";
    attrs_.resource = &info_;
    attrs_.namespace_ = "default";
    attrs_.name = "cm";
    attrs_.object = &obj_;
    attrs_.user = &user_;
    attrs_.scope = &scope_;
  }

  // One webhook configuration: `extra` is merged into the webhook.
  json::object Config(const std::string& name, const std::string& path, const std::string& extra = "{}",
                      const std::string& url = "") {
    json::object w = json::parse(R"({"clientConfig":{},"rules":[{"operations":["CREATE","UPDATE"],"apiGroups":[""],
        "apiVersions":["v1"],"resources":["configmaps"]}],"sideEffects":"None","admissionReviewVersions":["v1"]})")
                         .as_object();
    w["name"] = name + ".example.com";
    w["clientConfig"].as_object()["url"] = url.empty() ? server_.url(path) : url;
    w["clientConfig"].as_object()["caBundle"] = Base64Encode(ca_.pem());
    json::value more = json::parse(extra);
    for (auto& [k, v] : more.as_object()) w[k] = v;
    json::object c;
    c["metadata"] = json::object{{"name", name}, {"resourceVersion", "1"}};
    c["webhooks"] = json::array{w};
    return c;
  }

  std::unique_ptr<Chain> MakeChain(std::vector<registry::Object> mutating, std::vector<registry::Object> validating) {
    PluginDeps deps;
    deps.namespace_lookup = [this](const std::string& name) -> Task<StatusOr<registry::Object>> {
      json::object ns = json::parse(R"({"metadata":{"name":"default","labels":{"env":"test"}}})").as_object();
      co_return ns;
    };
    deps.webhook_source = std::make_shared<StaticWebhookSource>(std::move(mutating), std::move(validating));
    deps.webhook.http = &engine_;
    deps.webhook.metrics = &metrics_;
    auto built = BuildChain({}, {}, deps);
    EXPECT_TRUE(built.ok());
    return std::move(built->chain);
  }

  Status Run(Chain& chain) {
    Status st = SyncWait(chain.Admit(attrs_));
    if (!st.ok()) return st;
    return SyncWait(chain.Validate(attrs_));
  }

  TestCa ca_;
  std::map<std::string, Answer> answers_;
  std::atomic<int> calls_{0};
  std::string last_path_, last_body_;
  std::chrono::milliseconds delay_{0};
  TestHttpsServer server_;
  server::HttpClientEngine engine_;
  MetricsRegistry metrics_;
  RequestScope scope_;
  registry::ResourceInfo info_;
  registry::Object obj_;
  UserInfo user_;
  Attributes attrs_;
};

TEST_F(WebhookPluginsTest, ValidatingWebhookDeniesWithKubesMessage) {
  answers_["/deny"] = Answer{false, "", "configmaps named cm are not allowed", 403};
  auto chain = MakeChain({}, {Config("deny", "/deny")});
  Status st = Run(*chain);
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "admission webhook \"deny.example.com\" denied the request: configmaps named cm are not allowed");
  EXPECT_EQ(calls_, 1);
  EXPECT_EQ(last_path_, "/deny?timeout=10s");
  auto review = json::parse(last_body_).as_object();
  EXPECT_EQ(review["request"].as_object()["operation"].as_string(), "CREATE");
  EXPECT_EQ(scope_.annotations().at("deny.example.com/seen").value, "yes");
}

TEST_F(WebhookPluginsTest, MutatingWebhookPatchIsAppliedAndAnnotated) {
  answers_["/mutate"] = Answer{true, R"([{"op":"add","path":"/metadata/labels/added","value":"by-webhook"}])", "", 0,
                               {"labels were added"}};
  auto chain = MakeChain({Config("mutate", "/mutate")}, {Config("allow", "/allow")});
  ASSERT_TRUE(Run(*chain).ok());
  EXPECT_EQ(obj_["metadata"].as_object()["labels"].as_object()["added"].as_string(), "by-webhook");
  EXPECT_EQ(calls_, 2);
  // The validating webhook saw the mutated object.
  EXPECT_NE(last_body_.find("by-webhook"), std::string::npos);
  auto an = scope_.annotations();
  EXPECT_EQ(an.at("mutation.webhook.admission.k8s.io/round_0_index_0").value,
            R"({"configuration":"mutate","webhook":"mutate.example.com","mutated":true})");
  EXPECT_EQ(an.at("patch.webhook.admission.k8s.io/round_0_index_0").level, AuditLevel::kRequest);
  EXPECT_EQ(scope_.warnings(), std::vector<std::string>({"labels were added"}));
}

TEST_F(WebhookPluginsTest, FailurePolicyDecidesWhenTheWebhookIsDown) {
  std::string down = "https://127.0.0.1:1/down";
  auto fail = MakeChain({}, {Config("down", "", "{}", down)});
  Status st = Run(*fail);
  EXPECT_EQ(st.code(), 500);
  EXPECT_EQ(st.reason(), "InternalError");
  EXPECT_EQ(st.message().rfind("Internal error occurred: failed calling webhook \"down.example.com\": failed to call "
                               "webhook: Post \"https://127.0.0.1:1/down?timeout=10s\":",
                               0),
            0u)
      << st.message();

  auto ignore = MakeChain({Config("mdown", "", R"({"failurePolicy":"Ignore"})", down)},
                          {Config("down", "", R"({"failurePolicy":"Ignore"})", down)});
  EXPECT_TRUE(Run(*ignore).ok());
  auto an = scope_.annotations();
  EXPECT_EQ(an.at("failed-open.validating.webhook.admission.k8s.io/round_0_index_0").value, "down.example.com");
  EXPECT_EQ(an.at("failed-open.mutation.webhook.admission.k8s.io/round_0_index_0").value, "mdown.example.com");
}

TEST_F(WebhookPluginsTest, TimeoutSecondsIsEnforced) {
  delay_ = std::chrono::milliseconds(2500);
  auto chain = MakeChain({}, {Config("slow", "/slow", R"({"timeoutSeconds":1})")});
  Status st = Run(*chain);
  EXPECT_EQ(st.code(), 500);
  EXPECT_NE(st.message().find("/slow?timeout=1s"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("context deadline exceeded"), std::string::npos) << st.message();
  delay_ = std::chrono::milliseconds(0);
}

TEST_F(WebhookPluginsTest, SelectorsAndRulesChooseTheWebhooks) {
  answers_["/deny"] = Answer{false, "", "no", 0};
  auto other_ns = MakeChain({}, {Config("a", "/deny", R"({"namespaceSelector":{"matchLabels":{"env":"prod"}}})")});
  EXPECT_TRUE(Run(*other_ns).ok());
  auto other_obj = MakeChain({}, {Config("b", "/deny", R"({"objectSelector":{"matchLabels":{"app":"db"}}})")});
  EXPECT_TRUE(Run(*other_obj).ok());
  auto delete_only = MakeChain(
      {}, {Config("c", "/deny", R"({"rules":[{"operations":["DELETE"],"apiGroups":["*"],"apiVersions":["*"],"resources":["*"]}]})")});
  EXPECT_TRUE(Run(*delete_only).ok());
  EXPECT_EQ(calls_, 0);
  auto matching = MakeChain({}, {Config("d", "/deny", R"({"namespaceSelector":{"matchLabels":{"env":"test"}},
      "objectSelector":{"matchExpressions":[{"key":"app","operator":"In","values":["web"]}]}})")});
  EXPECT_FALSE(Run(*matching).ok());
  EXPECT_EQ(calls_, 1);
}

TEST_F(WebhookPluginsTest, DryRunNeedsSideEffectsNone) {
  attrs_.dry_run = true;
  auto some = MakeChain({}, {Config("se", "/allow", R"({"sideEffects":"Some"})")});
  Status st = Run(*some);
  EXPECT_EQ(st.code(), 400);
  EXPECT_EQ(st.message(), "admission webhook \"se.example.com\" does not support dry run");
  auto none = MakeChain({}, {Config("se", "/allow", R"({"sideEffects":"NoneOnDryRun"})")});
  EXPECT_TRUE(Run(*none).ok());
  auto review = json::parse(last_body_).as_object();
  EXPECT_TRUE(review["request"].as_object()["dryRun"].as_bool());
}

TEST_F(WebhookPluginsTest, MatchConditionsTrueCallTheWebhook) {
  auto chain = MakeChain({}, {Config("cel", "/allow", R"({"matchConditions":[
      {"name":"user","expression":"request.userInfo.username == 'alice' && request.operation == 'CREATE'"},
      {"name":"labels","expression":"object.metadata.labels.app == 'web' && oldObject == null"},
      {"name":"kind","expression":"request.kind.kind == 'ConfigMap' && request.resource.resource == 'configmaps'"}]})")});
  EXPECT_TRUE(Run(*chain).ok());
  EXPECT_EQ(calls_, 1);
}

TEST_F(WebhookPluginsTest, MatchConditionFalseSkipsTheWebhook) {
  answers_["/deny"] = Answer{false, "", "no", 403};
  auto chain = MakeChain({}, {Config("cel", "/deny", R"({"matchConditions":[
      {"name":"always","expression":"true"},
      {"name":"not-alice","expression":"request.userInfo.username != 'alice'"}]})")});
  EXPECT_TRUE(Run(*chain).ok());
  EXPECT_EQ(calls_, 0);
  EXPECT_NE(metrics_.Expose().find("apiserver_admission_match_condition_exclusions_total{kind=\"webhook\",name=\"cel.example.com\","
                                   "operation=\"CREATE\",type=\"validating\"} 1"),
            std::string::npos)
      << metrics_.Expose();
}

TEST_F(WebhookPluginsTest, MatchConditionErrorFollowsTheFailurePolicy) {
  const std::string conditions = R"("matchConditions":[{"name":"missing","expression":"object.data.missing == 'x'"}])";
  auto fail = MakeChain({}, {Config("cel", "/allow", "{" + conditions + "}")});
  Status st = Run(*fail);
  EXPECT_EQ(st.code(), 403);
  EXPECT_EQ(st.message(), "configmaps \"cm\" is forbidden: expression 'object.data.missing == 'x'' resulted in error: "
                          "no such key: missing");
  EXPECT_EQ(calls_, 0);
  auto ignore = MakeChain({}, {Config("cel", "/allow", R"({"failurePolicy":"Ignore",)" + conditions + "}")});
  EXPECT_TRUE(Run(*ignore).ok());
  EXPECT_EQ(calls_, 0);
  // A false condition decides even after an error.
  auto decided = MakeChain({}, {Config("cel", "/allow", R"({"matchConditions":[
      {"name":"missing","expression":"object.data.missing == 'x'"},{"name":"no","expression":"false"}]})")});
  EXPECT_TRUE(Run(*decided).ok());
  EXPECT_EQ(calls_, 0);
}

TEST_F(WebhookPluginsTest, IfNeededWebhooksAreReinvokedAfterALaterChange) {
  answers_["/second"] = Answer{true, R"([{"op":"add","path":"/metadata/labels/second","value":"x"}])"};
  auto chain = MakeChain({Config("a-first", "/first", R"({"reinvocationPolicy":"IfNeeded"})"), Config("b-second", "/second")},
                         {});
  ASSERT_TRUE(SyncWait(chain->Admit(attrs_)).ok());
  EXPECT_EQ(calls_, 3);  // first, second, first again
  EXPECT_TRUE(scope_.annotations().count("mutation.webhook.admission.k8s.io/round_1_index_0"));
}

}  // namespace
}  // namespace capstan::admission
