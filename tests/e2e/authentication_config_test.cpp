// End-to-end structured authentication (--authentication-config, apiserver.config.k8s.io/v1beta1): the
// real build/capstan with a JWT authenticator whose issuer the test serves over HTTPS on loopback,
// claim mappings and validation rules in CEL, anonymous access limited to one path, and the file
// rewritten while the server runs. Driven by kubectl 1.32 (`auth whoami`) and raw HTTPS.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "auth/authn/jwt.h"
#include "auth/authn/jwt_authenticators.h"
#include "auth/authn/keys.h"
#include "authn_test_util.h"
#include "cmd/pki.h"
#include "e2e_util.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;
using authn::testing::JsonReply;
using authn::testing::TempDir;
using authn::testing::TestCa;
using authn::testing::TestHttpsServer;

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// The config file's text: the first issuer maps in CEL (`username_expression` for the username), the
// second by claims, as the --oidc-* flags would.
std::string ConfigText(const std::string& issuer, const std::string& second, const std::string& ca_pem,
                       const std::string& username_expression) {
  std::string ca;
  for (char ch : ca_pem) {
    ca += ch;
    if (ch == '\n') ca += "      ";
  }
  return "apiVersion: apiserver.config.k8s.io/v1beta1\n"
         "kind: AuthenticationConfiguration\n"
         "jwt:\n"
         "- issuer:\n"
         "    url: " + issuer + "\n"
         "    audiences: [capstan-e2e, other-client]\n"
         "    audienceMatchPolicy: MatchAny\n"
         "    certificateAuthority: |\n"
         "      " + ca + "\n"
         "  claimValidationRules:\n"
         "  - expression: \"claims.tier == 'gold'\"\n"
         "    message: gold tier only\n"
         "  claimMappings:\n"
         "    username:\n"
         "      expression: \"" + username_expression + "\"\n"
         "    groups:\n"
         "      expression: \"claims.roles.map(r, 'role:' + r)\"\n"
         "    uid:\n"
         "      expression: claims.sub\n"
         "    extra:\n"
         "    - key: example.com/tenant\n"
         "      valueExpression: claims.tenant\n"
         "  userValidationRules:\n"
         "  - expression: \"!user.username.endsWith(':banned')\"\n"
         "    message: banned\n"
         "- issuer:\n"
         "    url: " + second + "\n"
         "    audiences: [capstan-e2e]\n"
         "    certificateAuthority: |\n"
         "      " + ca + "\n"
         "  claimMappings:\n"
         "    username: {claim: email, prefix: 'second:'}\n"
         "    groups: {claim: groups, prefix: ''}\n"
         "anonymous:\n"
         "  enabled: true\n"
         "  conditions:\n"
         "  - path: /livez\n";
}

class AuthenticationConfigE2e : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    ca_ = new TestCa("authn-config-e2e-ca");
    key_ = new authn::JwsKey(authn::testing::NewKey());
    second_key_ = new authn::JwsKey(authn::testing::NewKey(cmd::KeyType::kEcdsaP256));
    issuer_ = Issuer(*key_);
    second_ = Issuer(*second_key_);
    config_ = dir_->Write("authn.yaml", ConfigText(issuer_->url(), second_->url(), ca_->pem(), "'jwt:' + claims.sub"));
    server_ = new ServerProcess({"--authentication-config=" + config_});
  }

  // An OpenID provider on loopback publishing `key`.
  static TestHttpsServer* Issuer(const authn::JwsKey& key) {
    auto* s = new TestHttpsServer(*ca_, [](const http::HttpRequest&) { return JsonReply(404, "{}"); });
    const std::string url = s->url();
    const std::string jwks = json::serialize(authn::JwksDocument({key.PublicOnly()}));
    s->Set([url, jwks](const http::HttpRequest& req) {
      if (req.path == "/.well-known/openid-configuration") {
        return JsonReply(200, json::serialize(json::object{{"issuer", url}, {"jwks_uri", url + "/keys"}}));
      }
      if (req.path == "/keys") return JsonReply(200, jwks);
      return JsonReply(404, "{}");
    });
    return s;
  }

  static void TearDownTestSuite() {
    delete server_;
    delete issuer_;
    delete second_;
    delete key_;
    delete second_key_;
    delete ca_;
    delete dir_;
  }

  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error() << "\n" << server_->log(); }

  // Replaces the config file in one step (a reader never sees half a file).
  static void Rewrite(const std::string& text) {
    std::string tmp = dir_->Write("authn.yaml.tmp", text);
    ASSERT_EQ(std::rename(tmp.c_str(), config_.c_str()), 0);
  }

  static std::string Token(json::object overrides = {}) {
    json::object claims{{"iss", issuer_->url()}, {"aud", "other-client"},       {"sub", "u-42"},
                        {"tier", "gold"},        {"roles", json::array{"a", "b"}}, {"tenant", "acme"},
                        {"iat", Now()},          {"exp", Now() + 600}};
    for (auto& [k, v] : overrides) claims[k] = v;
    auto t = authn::SignJwt(claims, *key_);
    EXPECT_TRUE(t.ok()) << t.status().message();
    return t.ok() ? *t : "";
  }

  // kubectl 1.32 `auth whoami -o json` with a bearer token: the userInfo, or the error text.
  static std::pair<json::object, std::string> WhoAmI(const std::string& token) {
    std::string kc = dir_->Write("token.kubeconfig",
                                 "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:" +
                                     std::to_string(server_->port()) + "\n    certificate-authority: " +
                                     server_->data_dir() + "/pki/ca.crt\nusers:\n- name: u\n  user:\n    token: " + token +
                                     "\ncontexts:\n- name: c\n  context:\n    cluster: c\n    user: u\ncurrent-context: c\n");
    auto r = RunCommand({KubectlPath("32"), "--kubeconfig", kc, "auth", "whoami", "-o", "json"});
    if (r.exit_code != 0) return {{}, r.out + r.err};
    boost::system::error_code ec;
    auto v = json::parse(r.out, ec);
    if (ec || !v.is_object()) return {{}, r.out};
    return {v.at("status").at("userInfo").as_object(), ""};
  }

  static inline TempDir* dir_ = nullptr;
  static inline TestCa* ca_ = nullptr;
  static inline authn::JwsKey* key_ = nullptr;
  static inline authn::JwsKey* second_key_ = nullptr;
  static inline TestHttpsServer* issuer_ = nullptr;
  static inline TestHttpsServer* second_ = nullptr;
  static inline std::string config_;
  static inline ServerProcess* server_ = nullptr;
};

TEST_F(AuthenticationConfigE2e, CelClaimMappingsMakeTheUser) {
  // The issuer's keys are fetched in the background from start-up: wait for the first success.
  std::string token = Token();
  std::pair<json::object, std::string> who;
  ASSERT_TRUE(PollFor([&] { return !(who = WhoAmI(token)).first.empty(); })) << who.second;
  const json::object& u = who.first;
  EXPECT_EQ(json::serialize(u.at("username")), "\"jwt:u-42\"");
  EXPECT_EQ(json::serialize(u.at("uid")), "\"u-42\"");
  EXPECT_EQ(json::serialize(u.at("groups")), R"(["role:a","role:b","system:authenticated"])");
  EXPECT_EQ(json::serialize(u.at("extra").at("example.com/tenant")), R"(["acme"])");
}

TEST_F(AuthenticationConfigE2e, SecondIssuerMapsByClaims) {
  json::object claims{{"iss", second_->url()}, {"aud", "capstan-e2e"}, {"sub", "s-1"},
                      {"email", "sam@example.com"}, {"groups", json::array{"ops"}},
                      {"iat", Now()}, {"exp", Now() + 600}};
  auto token = authn::SignJwt(claims, *second_key_);
  ASSERT_TRUE(token.ok());
  std::pair<json::object, std::string> who;
  ASSERT_TRUE(PollFor([&] { return !(who = WhoAmI(*token)).first.empty(); })) << who.second;
  EXPECT_EQ(json::serialize(who.first["username"]), "\"second:sam@example.com\"");
  EXPECT_EQ(json::serialize(who.first["groups"]), R"(["ops","system:authenticated"])");
  // The first issuer's rules do not apply to the second's tokens, nor its audiences.
  claims["aud"] = "other-client";
  auto wrong = authn::SignJwt(claims, *second_key_);
  EXPECT_TRUE(WhoAmI(*wrong).first.empty());
  // A token naming the first issuer but signed by the second's key is refused.
  claims["iss"] = issuer_->url();
  auto forged = authn::SignJwt(claims, *second_key_);
  EXPECT_TRUE(WhoAmI(*forged).first.empty());
}

TEST_F(AuthenticationConfigE2e, ValidationRulesAndAudiencesRefuse) {
  std::string good = Token();
  ASSERT_TRUE(PollFor([&] { return !WhoAmI(good).first.empty(); }));
  // A claim validation rule, a user validation rule, an audience not listed: 401 each.
  for (const auto& token : {Token({{"tier", "silver"}}), Token({{"sub", "banned"}}), Token({{"aud", "nobody"}})}) {
    auto [u, err] = WhoAmI(token);
    EXPECT_TRUE(u.empty()) << json::serialize(u);
    EXPECT_NE(err.find("Unauthorized"), std::string::npos) << err;
  }
  // The reasons reach the log at the verbosity kube logs them; the token never does.
  EXPECT_EQ(server_->log().find(good.substr(good.rfind('.') + 1)), std::string::npos);
}

TEST_F(AuthenticationConfigE2e, AnonymousOnlyOnItsConditionPaths) {
  auto get = [](const std::string& path) {
    return HttpStatusOf(
        RawHttps(server_->port(), {"GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"}).response);
  };
  EXPECT_EQ(get("/livez"), 200);
  // Without conditions anonymous may read /version and /readyz (system:public-info-viewer); here
  // only /livez is anonymous, so the others are 401.
  EXPECT_EQ(get("/version"), 401);
  EXPECT_EQ(get("/readyz"), 401);
  EXPECT_EQ(get("/api"), 401);
}

TEST_F(AuthenticationConfigE2e, FileChangesTakeEffectWhileRunning) {
  std::string token = Token();
  ASSERT_TRUE(PollFor([&] { return !WhoAmI(token).first.empty(); }));

  // A file that does not validate is reported, counted, and the old configuration keeps serving.
  Rewrite(ConfigText(issuer_->url(), second_->url(), ca_->pem(), "claims.sub +"));
  ASSERT_TRUE(PollFor([&] { return server_->log().find("failed to validate authentication config") != std::string::npos; },
                      std::chrono::seconds(20)))
      << server_->log();
  EXPECT_NE(server_->log().find("jwt[0].claimMappings.username.expression"), std::string::npos) << server_->log();
  EXPECT_EQ(json::serialize(WhoAmI(token).first["username"]), "\"jwt:u-42\"");

  // A valid change replaces the authenticators once the new issuer is healthy.
  Rewrite(ConfigText(issuer_->url(), second_->url(), ca_->pem(), "'renamed:' + claims.sub"));
  std::pair<json::object, std::string> who;
  ASSERT_TRUE(PollFor([&] {
    who = WhoAmI(token);
    return json::serialize(who.first["username"]) == "\"renamed:u-42\"";
  }, std::chrono::seconds(60)))
      << who.second << json::serialize(who.first);

  std::string metrics = server_->Kubectl({"get", "--raw", "/metrics"}).out;
  auto sample = [&](const std::string& status) {
    auto v = MetricSample(metrics, "apiserver_authentication_config_controller_automatic_reloads_total",
                          {"status=\"" + status + "\""});
    return v ? std::to_string(static_cast<long long>(*v)) : std::string("absent");
  };
  EXPECT_EQ(sample("failure"), "1") << server_->log();
  EXPECT_EQ(sample("success"), "1") << server_->log();
  EXPECT_NE(metrics.find("apiserver_authentication_config_controller_automatic_reload_last_timestamp_seconds{"),
            std::string::npos);
  // Every token that reached the issuer's authenticator was timed, by the issuer's hash.
  EXPECT_NE(metrics.find("apiserver_authentication_jwt_authenticator_latency_seconds_count{jwt_issuer_hash=\"" +
                         authn::JwtIssuerHash(issuer_->url()) + "\",result=\"success\"}"),
            std::string::npos)
      << metrics;
}

}  // namespace
}  // namespace capstan::e2e
