#include "auth/authn/webhook_token.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <atomic>

#include "auth/authn/token_cache.h"
#include "authn_test_util.h"
#include "server/http_client.h"

namespace capstan::authn {
namespace {

namespace json = boost::json;
using testing::JsonReply;
using testing::TestCa;
using testing::TestHttpsServer;

// A TokenReview webhook: "good" is alice, "bad" is rejected with a reason, anything else unknown.
class WebhookTest : public ::testing::Test {
 protected:
  WebhookTest()
      : server_(ca_, [this](const http::HttpRequest& r) { return Serve(r); }) {}

  http::HttpResponse Serve(const http::HttpRequest& r) {
    ++requests_;
    last_body_ = r.body;
    last_auth_ = std::string(r.headers.Get("Authorization"));
    saw_client_cert_ = !r.peer_certs_der.empty();
    if (fail_next_ > 0) {
      --fail_next_;
      return JsonReply(504, "{}");
    }
    if (status_ != 200) return JsonReply(status_, "{}");
    auto review = json::parse(r.body).as_object();
    std::string token(review.at("spec").as_object().at("token").as_string());
    json::object status;
    if (token == "good") {
      status["authenticated"] = true;
      status["user"] = json::object{{"username", "alice"}, {"uid", "u1"}, {"groups", json::array{"dev"}},
                                    {"extra", json::object{{"scopes", json::array{"read"}}}}};
      if (!reply_audiences_.empty()) {
        json::array a;
        for (auto& x : reply_audiences_) a.emplace_back(x);
        status["audiences"] = std::move(a);
      }
    } else if (token == "bad") {
      status["authenticated"] = false;
      status["error"] = "token revoked";
    } else {
      status["authenticated"] = false;
    }
    review["status"] = std::move(status);
    return JsonReply(200, json::serialize(review));
  }

  WebhookTokenConfig Config() {
    WebhookTokenConfig c;
    c.client.server = server_.url("/authenticate");
    c.client.tls.ca_pem = ca_.pem();
    auto client = ca_.Issue("kube-apiserver", {}, false, true);
    c.client.tls.client_cert_pem = client.cert;
    c.client.tls.client_key_pem = client.key;
    c.client.bearer_token = "webhook-secret";
    c.version = "v1";
    c.implicit_audiences = {"api"};
    c.initial_backoff = std::chrono::milliseconds(1);
    return c;
  }
  std::unique_ptr<WebhookTokenAuthenticator> Make(WebhookTokenConfig c) {
    auto w = WebhookTokenAuthenticator::Create(std::move(c), engine_);
    EXPECT_TRUE(w.ok()) << w.status().message();
    return std::move(*w);
  }

  TestCa ca_{"webhook-ca"};
  std::atomic<int> requests_{0};
  std::atomic<int> fail_next_{0};
  int status_ = 200;
  std::vector<std::string> reply_audiences_;
  std::string last_body_, last_auth_;
  bool saw_client_cert_ = false;
  TestHttpsServer server_;
  server::HttpClientEngine engine_;
};

TEST_F(WebhookTest, AuthenticatedReview) {
  auto w = Make(Config());
  auto r = SyncWait(w->AuthenticateToken("good", {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->user.name, "alice");
  EXPECT_EQ((*r)->user.uid, "u1");
  EXPECT_EQ((*r)->user.groups, (std::vector<std::string>{"dev"}));
  EXPECT_EQ((*r)->user.extra.at("scopes"), (std::vector<std::string>{"read"}));
  auto sent = json::parse(last_body_).as_object();
  EXPECT_EQ(sent.at("apiVersion").as_string(), "authentication.k8s.io/v1");
  EXPECT_EQ(sent.at("kind").as_string(), "TokenReview");
  EXPECT_FALSE(sent.at("spec").as_object().contains("audiences"));
  EXPECT_EQ(last_auth_, "Bearer webhook-secret");
  EXPECT_TRUE(saw_client_cert_);
}

TEST_F(WebhookTest, RejectedWithAndWithoutAReason) {
  auto w = Make(Config());
  auto r = SyncWait(w->AuthenticateToken("bad", {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "token revoked");
  r = SyncWait(w->AuthenticateToken("unknown", {}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST_F(WebhookTest, Audiences) {
  auto w = Make(Config());
  // No audiences in the answer: the implicit ones count.
  auto r = SyncWait(w->AuthenticateToken("good", {"api", "x"}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->audiences, (Audiences{"api"}));
  EXPECT_EQ(json::parse(last_body_).at("spec").at("audiences").as_array().size(), 2u);
  r = SyncWait(w->AuthenticateToken("good", {"x"}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  reply_audiences_ = {"x"};
  r = SyncWait(w->AuthenticateToken("good", {"x"}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->audiences, (Audiences{"x"}));
}

TEST_F(WebhookTest, RetriesGatewayTimeoutsThenGivesUp) {
  auto w = Make(Config());
  fail_next_ = 2;
  EXPECT_TRUE(SyncWait(w->AuthenticateToken("good", {}))->has_value());
  EXPECT_EQ(requests_.load(), 3);
  fail_next_ = 100;
  auto r = SyncWait(w->AuthenticateToken("good", {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "the server responded with the status code 504 but did not return more information");
  EXPECT_EQ(requests_.load(), 3 + 5);
  fail_next_ = 0;
  status_ = 500;
  EXPECT_FALSE(SyncWait(w->AuthenticateToken("good", {})).ok());
  EXPECT_EQ(requests_.load(), 3 + 5 + 1);  // a plain 500 is not retried
}

TEST_F(WebhookTest, TransportErrorsNameTheServer) {
  auto c = Config();
  c.client.tls.ca_pem = TestCa("other").pem();
  c.attempts = 1;
  auto w = Make(c);
  auto r = SyncWait(w->AuthenticateToken("good", {}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("x509: certificate signed by unknown authority"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("Post \"" + server_.url("/authenticate") + "\""), std::string::npos);
}

TEST_F(WebhookTest, CachedAsKubeDoes) {
  TokenCacheOptions o;
  o.success_ttl = std::chrono::minutes(2);
  o.failure_ttl = std::chrono::minutes(2);
  o.cache_errors = false;
  CachedTokenAuthenticator cached(Make(Config()), o);
  SyncWait(cached.AuthenticateToken("good", {}));
  SyncWait(cached.AuthenticateToken("good", {}));
  SyncWait(cached.AuthenticateToken("unknown", {}));
  SyncWait(cached.AuthenticateToken("unknown", {}));
  SyncWait(cached.AuthenticateToken("bad", {}));
  SyncWait(cached.AuthenticateToken("bad", {}));
  EXPECT_EQ(requests_.load(), 4);  // good once, unknown once, bad (an error) twice
}

TEST(WebhookConfigTest, Validation) {
  server::HttpClientEngine engine;
  WebhookTokenConfig c;
  c.client.server = "https://127.0.0.1:1";
  c.version = "v2";
  EXPECT_FALSE(WebhookTokenAuthenticator::Create(c, engine).ok());
  c.version = "v1beta1";
  c.client.server = "not a url";
  EXPECT_FALSE(WebhookTokenAuthenticator::Create(c, engine).ok());
  c.client.server = "https://127.0.0.1:1";
  c.client.tls.ca_pem = "garbage";
  EXPECT_FALSE(WebhookTokenAuthenticator::Create(c, engine).ok());
}

}  // namespace
}  // namespace capstan::authn
