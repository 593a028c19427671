// End-to-end ImagePolicyWebhook: the real build/capstan with the plugin enabled and configured from
// --admission-control-config-file, kubectl 1.32 creating pods, and an HTTPS test webhook (reached
// through its kubeconfig, trusting the test CA) that answers ImageReviews: it allows images, denies
// "evil/" ones with a reason and an audit annotation, fails for "flaky/" ones (500: retried) and
// refuses "forbidden/" ones (403: not retried). A denial is kube's
// 403, answers are cached (no second call for the same review), a failing webhook is retried and then
// fails the pod closed; with defaultAllow the pod is admitted and annotated failed-open.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <mutex>

#include "authn_test_util.h"
#include "e2e_util.h"
#include "util/strings.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;
using authn::testing::JsonReply;
using authn::testing::TestCa;
using authn::testing::TestHttpsServer;

struct Webhook {
  std::atomic<int> calls{0};
  std::mutex mu;
  json::object last_spec;  // guarded by mu

  http::HttpResponse Answer(const http::HttpRequest& req) {
    calls++;
    auto review = json::parse(req.body).as_object();
    {
      std::lock_guard lock(mu);
      last_spec = review["spec"].as_object();
    }
    std::string images = json::serialize(review["spec"]);
    if (images.find("flaky/") != std::string::npos) return JsonReply(500, "{}");
    if (images.find("forbidden/") != std::string::npos) return JsonReply(403, "{}");
    json::object status{{"allowed", images.find("evil/") == std::string::npos}};
    if (!status["allowed"].as_bool()) {
      status["reason"] = "evil images are not allowed";
      status["auditAnnotations"] = json::object{{"verdict", "evil"}};
    }
    review["status"] = status;
    return JsonReply(200, json::serialize(review));
  }
};

class ImagePolicyWebhookE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("capstan-imagepolicy-e2e");
    hook_ = std::make_unique<TestHttpsServer>(ca_, [this](const http::HttpRequest& r) { return webhook_.Answer(r); });
    ASSERT_TRUE(hook_->ok());
    std::ofstream(dir_ + "/webhook.kubeconfig")
        << "apiVersion: v1\nkind: Config\nclusters:\n- name: hook\n  cluster:\n    server: " << hook_->url("/review")
        << "\n    certificate-authority-data: " << Base64Encode(ca_.pem())
        << "\nusers:\n- name: me\n  user:\n    token: t0ken\ncontexts:\n- name: c\n  context: {cluster: hook, user: me}\n"
           "current-context: c\n";
    std::ofstream(dir_ + "/policy.yaml") << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"
                                            "  resources: [{group: \"\", resources: [pods]}]\n";
  }
  void TearDown() override {
    server_.reset();
    std::filesystem::remove_all(dir_);
  }
  void Start(bool default_allow) {
    std::ofstream(dir_ + "/admission.yaml")
        << "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: ImagePolicyWebhook\n"
           "  configuration:\n    imagePolicy:\n      kubeConfigFile: "
        << dir_ << "/webhook.kubeconfig\n      allowTTL: 50\n      denyTTL: 50\n      retryBackoff: 1\n      defaultAllow: "
        << (default_allow ? "true" : "false") << "\n";
    server_ = std::make_unique<ServerProcess>(std::vector<std::string>{
        "--enable-admission-plugins=ImagePolicyWebhook", "--admission-control-config-file=" + dir_ + "/admission.yaml",
        "--audit-policy-file=" + dir_ + "/policy.yaml", "--audit-log-path=" + dir_ + "/audit.log"});
    ASSERT_TRUE(server_->ok()) << server_->error() << server_->log();
    ASSERT_TRUE(server_->WaitForDefaultServiceAccount());
  }
  CommandResult Run(const std::string& name, const std::string& image) {
    return server_->Kubectl({"run", name, "--image=" + image, "--restart=Never"});
  }

  TestCa ca_;
  Webhook webhook_;
  std::unique_ptr<TestHttpsServer> hook_;
  std::string dir_;
  std::unique_ptr<ServerProcess> server_;
};

TEST_F(ImagePolicyWebhookE2E, ImagesAreReviewedDeniedCachedAndFailClosed) {
  Start(false);
  auto good = Run("good", "registry.example/nginx:1");
  ASSERT_EQ(good.exit_code, 0) << good.err;
  {
    std::lock_guard lock(webhook_.mu);
    EXPECT_EQ(json::serialize(webhook_.last_spec),
              R"({"containers":[{"image":"registry.example/nginx:1"}],"namespace":"default"})");
  }
  const int after_good = webhook_.calls.load();
  EXPECT_EQ(after_good, 1);
  ASSERT_EQ(Run("good-again", "registry.example/nginx:1").exit_code, 0);
  EXPECT_EQ(webhook_.calls.load(), after_good) << "the same review is answered from the cache";

  auto bad = Run("bad", "evil/miner");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("pods \"bad\" is forbidden: image policy webhook backend denied one or more images: evil "
                         "images are not allowed"),
            std::string::npos)
      << bad.err;
  std::ifstream log(dir_ + "/audit.log");
  std::string audit((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(audit.find("\"imagepolicywebhook.image-policy.k8s.io/verdict\":\"evil\""), std::string::npos) << audit;

  const int before_flaky = webhook_.calls.load();
  auto flaky = Run("flaky", "flaky/app");
  EXPECT_NE(flaky.exit_code, 0);
  EXPECT_NE(flaky.err.find("pods \"flaky\" is forbidden: Error contacting webhook: 500"), std::string::npos) << flaky.err;
  EXPECT_EQ(webhook_.calls.load() - before_flaky, 5) << "kube's 5 tries";
  EXPECT_NE(server_->Kubectl({"get", "pod", "flaky"}).exit_code, 0);

  // A 403 from the webhook is not retried: one call, the pod refused.
  const int before_refused = webhook_.calls.load();
  auto refused = Run("refused", "forbidden/app");
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("Error contacting webhook: 403"), std::string::npos) << refused.err;
  EXPECT_EQ(webhook_.calls.load() - before_refused, 1);
}

TEST_F(ImagePolicyWebhookE2E, DefaultAllowAdmitsAndAnnotatesWhenTheWebhookFails) {
  Start(true);
  auto flaky = Run("flaky", "flaky/app");
  ASSERT_EQ(flaky.exit_code, 0) << flaky.err;
  auto ann = server_->Kubectl({"get", "pod", "flaky", "-o", "jsonpath={.metadata.annotations}"});
  EXPECT_NE(ann.out.find("\"alpha.image-policy.k8s.io/failed-open\":\"true\""), std::string::npos) << ann.out;
  // A denial is still a denial.
  EXPECT_NE(Run("bad", "evil/miner").exit_code, 0);
}

}  // namespace
}  // namespace capstan::e2e
