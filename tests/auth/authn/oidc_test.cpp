#include "auth/authn/oidc.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "auth/authn/jwt.h"
#include "auth/authn/jwt_authenticators.h"
#include "authn_test_util.h"
#include "server/http_client.h"

namespace capstan::authn {
namespace {

namespace json = boost::json;
using testing::JsonReply;
using testing::NewKey;
using testing::TestCa;
using testing::TestHttpsServer;

// A tiny OpenID provider: discovery and a JWKS that the test can change (key rotation).
class Issuer {
 public:
  Issuer() : server_(ca_, [this](const http::HttpRequest& r) { return Serve(r); }) {}
  std::string url() const { return server_.url(); }
  const TestCa& ca() const { return ca_; }
  void SetKeys(std::vector<JwsKey> keys) {
    std::lock_guard lock(mu_);
    keys_ = std::move(keys);
  }
  void SetUp(bool up) { up_ = up; }
  // Whether the document is at the well-known path (it is always at /discovery too).
  void SetWellKnown(bool on) { well_known_ = on; }
  int jwks_hits() const { return jwks_hits_; }

 private:
  http::HttpResponse Serve(const http::HttpRequest& r) {
    if (!up_) return JsonReply(503, "{}");
    if ((r.path == "/.well-known/openid-configuration" && well_known_) || r.path == "/discovery") {
      json::object d{{"issuer", url()}, {"jwks_uri", url("/keys")}};
      return JsonReply(200, json::serialize(d));
    }
    if (r.path == "/keys") {
      ++jwks_hits_;
      std::lock_guard lock(mu_);
      return JsonReply(200, json::serialize(JwksDocument(keys_)));
    }
    return JsonReply(404, "{}");
  }
  std::string url(const std::string& p) const { return server_.url(p); }

  TestCa ca_{"oidc-ca"};
  std::mutex mu_;
  std::vector<JwsKey> keys_;
  std::atomic<bool> up_{true};
  std::atomic<bool> well_known_{true};
  std::atomic<int> jwks_hits_{0};
  TestHttpsServer server_;
};

bool WaitFor(const std::function<bool()>& cond) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

class OidcTest : public ::testing::Test {
 protected:
  void SetUp() override { issuer_.SetKeys({key_.PublicOnly()}); }
  OidcConfig Config() {
    OidcConfig c;
    c.jwt.url = issuer_.url();
    c.jwt.audiences = {"capstan"};
    c.jwt.certificate_authority = issuer_.ca().pem();
    c.jwt.username = {"sub", "oidc:", ""};
    c.jwt.groups = {"groups", "oidc:", ""};
    c.retry_interval = std::chrono::milliseconds(20);
    c.min_refresh_interval = std::chrono::milliseconds(0);
    return c;
  }
  std::unique_ptr<OidcAuthenticator> Start(OidcConfig c) {
    auto a = OidcAuthenticator::Create(std::move(c), engine_);
    EXPECT_TRUE(a.ok()) << a.status().message();
    EXPECT_TRUE(WaitFor([&] { return (*a)->initialized(); })) << (*a)->Health().message();
    return std::move(*a);
  }
  json::object Claims() {
    int64_t now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
    return json::object{{"iss", issuer_.url()}, {"sub", "alice"}, {"aud", "capstan"}, {"exp", now + 600},
                        {"iat", now}, {"email", "alice@example.com"}, {"groups", json::array{"dev", "ops"}}};
  }
  std::string Sign(const json::object& c, const JwsKey* k = nullptr) { return *SignJwt(c, k ? *k : key_); }

  Issuer issuer_;
  server::HttpClientEngine engine_;
  JwsKey key_ = NewKey();
};

TEST_F(OidcTest, ValidIdTokenWithPrefixesAndGroups) {
  auto a = Start(Config());
  auto c = Claims();
  c["jti"] = "id-1";
  auto r = SyncWait(a->AuthenticateToken(Sign(c), {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->user.name, "oidc:alice");
  EXPECT_EQ((*r)->user.groups, (std::vector<std::string>{"oidc:dev", "oidc:ops"}));
  EXPECT_EQ((*r)->user.extra.at("authentication.kubernetes.io/credential-id")[0], "JTI=id-1");
  EXPECT_TRUE(a->Health().ok());
}

TEST_F(OidcTest, OtherIssuersAreNoOpinion) {
  auto a = Start(Config());
  auto c = Claims();
  c["iss"] = "https://elsewhere";
  EXPECT_FALSE(SyncWait(a->AuthenticateToken(Sign(c), {}))->has_value());
  EXPECT_FALSE(SyncWait(a->AuthenticateToken("static", {}))->has_value());
}

TEST_F(OidcTest, Rejections) {
  auto a = Start(Config());
  auto check = [&](json::object c, const std::string& want, const JwsKey* k = nullptr) {
    auto r = SyncWait(a->AuthenticateToken(Sign(c, k), {}));
    ASSERT_FALSE(r.ok()) << want;
    EXPECT_NE(r.status().message().find(want), std::string::npos) << r.status().message();
  };
  auto c = Claims();
  c["exp"] = 1000;
  check(c, "oidc: verify token: oidc: token is expired (Token Expiry: 1970-01-01 00:16:40 +0000 UTC)");
  c = Claims();
  c.erase("exp");
  check(c, "oidc: token is expired");
  c = Claims();
  c["aud"] = "someone-else";
  check(c, "oidc: verify token: oidc: expected audience \"capstan\" got [\"someone-else\"]");
  c = Claims();
  c["nbf"] = c["exp"].as_int64() + 3600;
  check(c, "before the nbf (not before) time");
  JwsKey stranger = NewKey();
  check(Claims(), "failed to verify signature", &stranger);
  JwsKey ec = NewKey(cmd::KeyType::kEcdsaP256);
  check(Claims(), "oidc: id token signed with unsupported algorithm, expected [\"RS256\"] got \"ES256\"", &ec);
  c = Claims();
  c.erase("sub");
  check(c, "oidc: parse username claims \"sub\": claim not present");
}

TEST_F(OidcTest, EmailClaimRequiresVerifiedEmailAndRequiredClaimsMustMatch) {
  auto cfg = Config();
  cfg.jwt.username = {"email", "", ""};
  cfg.jwt.claim_validation_rules = {{"hd", "example.com", "", ""}};
  auto a = Start(cfg);
  auto c = Claims();
  c["hd"] = "example.com";
  c["email_verified"] = true;
  auto r = SyncWait(a->AuthenticateToken(Sign(c), {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->user.name, "alice@example.com");
  c["email_verified"] = false;
  EXPECT_EQ(SyncWait(a->AuthenticateToken(Sign(c), {})).status().message(), "oidc: email not verified");
  c["email_verified"] = true;
  c["hd"] = "evil.com";
  EXPECT_EQ(SyncWait(a->AuthenticateToken(Sign(c), {})).status().message(),
            "oidc: required claim hd value does not match. Got = evil.com, want = example.com");
  c.erase("hd");
  EXPECT_EQ(SyncWait(a->AuthenticateToken(Sign(c), {})).status().message(), "oidc: required claim hd not present in ID token");
}

TEST_F(OidcTest, GroupsClaimMayBeAString) {
  auto a = Start(Config());
  auto c = Claims();
  c["groups"] = "admins";
  auto r = SyncWait(a->AuthenticateToken(Sign(c), {}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->user.groups, (std::vector<std::string>{"oidc:admins"}));
  c["groups"] = 5;
  EXPECT_FALSE(SyncWait(a->AuthenticateToken(Sign(c), {})).ok());
}

TEST_F(OidcTest, KeyRotationRefetchesTheKeySet) {
  auto a = Start(Config());
  int fetches = a->key_fetches();
  JwsKey next = NewKey();
  issuer_.SetKeys({next.PublicOnly()});
  auto r = SyncWait(a->AuthenticateToken(Sign(Claims(), &next), {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(a->key_fetches(), fetches + 1);
  // The retired key's tokens fail once the set no longer holds it.
  r = SyncWait(a->AuthenticateToken(Sign(Claims()), {}));
  EXPECT_FALSE(r.ok());
}

TEST_F(OidcTest, RefreshesAreRateLimited) {
  auto cfg = Config();
  cfg.min_refresh_interval = std::chrono::hours(1);
  auto a = Start(cfg);
  int fetches = a->key_fetches();
  JwsKey stranger = NewKey();
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(SyncWait(a->AuthenticateToken(Sign(Claims(), &stranger), {})).ok());
  EXPECT_EQ(a->key_fetches(), fetches);
}

TEST_F(OidcTest, NotInitializedUntilTheProviderAnswers) {
  issuer_.SetUp(false);
  auto a = OidcAuthenticator::Create(Config(), engine_);
  ASSERT_TRUE(a.ok());
  auto r = SyncWait((*a)->AuthenticateToken(Sign(Claims()), {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "oidc: authenticator not initialized");
  EXPECT_FALSE((*a)->Health().ok());
  issuer_.SetUp(true);
  ASSERT_TRUE(WaitFor([&] { return (*a)->initialized(); }));
  EXPECT_TRUE(SyncWait((*a)->AuthenticateToken(Sign(Claims()), {})).ok());
}

TEST_F(OidcTest, IssuerMismatchKeepsItUninitialized) {
  auto cfg = Config();
  cfg.jwt.url = issuer_.url() + "/";  // the provider says it is issuer_.url()
  auto a = OidcAuthenticator::Create(cfg, engine_);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(WaitFor([&] { return (*a)->Health().message().find("did not match") != std::string::npos; }))
      << (*a)->Health().message();
  EXPECT_FALSE((*a)->initialized());
}

TEST(OidcConfigTest, Validation) {
  server::HttpClientEngine engine;
  OidcConfig c;
  c.jwt.url = "http://insecure";
  c.jwt.audiences = {"x"};
  c.jwt.username = {"sub", "", ""};
  EXPECT_EQ(OidcAuthenticator::Create(c, engine).status().message(),
            "issuer.url: Invalid value: \"http://insecure\": URL scheme must be https");
  c.jwt.url = "https://ok";
  c.jwt.audiences = {""};
  EXPECT_EQ(OidcAuthenticator::Create(c, engine).status().message(), "issuer.audiences[0]: Required value: audience can't be empty");
  c.jwt.audiences = {"x"};
  c.signing_algs = {"HS256"};
  EXPECT_EQ(OidcAuthenticator::Create(c, engine).status().message(), "oidc: unsupported signing alg: \"HS256\"");
  c.signing_algs = {"RS256"};
  c.jwt.username = {"", std::nullopt, "claims.sub +"};
  EXPECT_NE(OidcAuthenticator::Create(c, engine).status().message().find(
                "claimMappings.username.expression: Invalid value: \"claims.sub +\": compilation failed: ERROR: <input>:1:"),
            std::string::npos);
}

// The claim mappings and rules of --authentication-config, in CEL.
TEST_F(OidcTest, ExpressionsMapAndValidateClaims) {
  auto cfg = Config();
  cfg.jwt.audiences = {"other", "capstan"};
  cfg.jwt.audience_match_policy = "MatchAny";
  cfg.jwt.username = {"", std::nullopt, "'jwt:' + claims.sub"};
  cfg.jwt.groups = {"", std::nullopt, "claims.groups.map(g, 'team:' + g)"};
  cfg.jwt.uid_expression = "claims.sub + '-uid'";
  cfg.jwt.extra = {{"example.com/tier", "claims.?tier.orValue('')"}, {"example.com/aud", "claims.aud"}};
  cfg.jwt.claim_validation_rules = {{"", "", "claims.exp - claims.iat <= 3600", "token lives too long"}};
  cfg.jwt.user_validation_rules = {{"!user.username.startsWith('jwt:system:')", "no system names"}};
  auto a = Start(cfg);
  auto c = Claims();
  c["tier"] = "gold";
  auto r = SyncWait(a->AuthenticateToken(Sign(c), {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->user.name, "jwt:alice");
  EXPECT_EQ((*r)->user.groups, (std::vector<std::string>{"team:dev", "team:ops"}));
  EXPECT_EQ((*r)->user.uid, "alice-uid");
  EXPECT_EQ((*r)->user.extra.at("example.com/tier"), (std::vector<std::string>{"gold"}));
  EXPECT_EQ((*r)->user.extra.at("example.com/aud"), (std::vector<std::string>{"capstan"}));
  // An empty value is no extra at all.
  r = SyncWait(a->AuthenticateToken(Sign(Claims()), {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE((*r)->user.extra.count("example.com/tier"));

  c = Claims();
  c["exp"] = c["iat"].as_int64() + 7200;
  EXPECT_EQ(SyncWait(a->AuthenticateToken(Sign(c), {})).status().message(),
            "oidc: error evaluating claim validation expression: validation expression 'claims.exp - claims.iat <= 3600' "
            "failed: token lives too long");
  c = Claims();
  c["sub"] = "system:admin";
  EXPECT_EQ(SyncWait(a->AuthenticateToken(Sign(c), {})).status().message(),
            "oidc: error evaluating user info validation rule: validation expression "
            "'!user.username.startsWith('jwt:system:')' failed: no system names");
  c = Claims();
  c.erase("groups");
  EXPECT_EQ(SyncWait(a->AuthenticateToken(Sign(c), {})).status().message(),
            "oidc: error evaluating group claim expression: expression 'claims.groups.map(g, 'team:' + g)' resulted in "
            "error: no such key: groups");
  c = Claims();
  c["aud"] = json::array{"third", "fourth"};
  EXPECT_EQ(SyncWait(a->AuthenticateToken(Sign(c), {})).status().message(),
            "oidc: verify token: oidc: expected audience in [\"capstan\" \"other\"] got [\"third\" \"fourth\"]");
}

TEST_F(OidcTest, ExpressionResultsMustHaveTheirTypes) {
  auto cfg = Config();
  cfg.jwt.username = {"", std::nullopt, "claims.iat"};
  cfg.jwt.groups = {"", std::nullopt, "claims.iat"};
  auto a = Start(cfg);
  EXPECT_EQ(SyncWait(a->AuthenticateToken(Sign(Claims()), {})).status().message(),
            "oidc: error evaluating username claim expression: username claim expression must return a string");
  cfg.jwt.username = {"", std::nullopt, "''"};
  a = Start(cfg);
  EXPECT_EQ(SyncWait(a->AuthenticateToken(Sign(Claims()), {})).status().message(),
            "oidc: empty username via CEL expression is not allowed");
  cfg.jwt.username = {"sub", "", ""};
  a = Start(cfg);
  EXPECT_EQ(SyncWait(a->AuthenticateToken(Sign(Claims()), {})).status().message(),
            "oidc: error evaluating group claim expression: expression must return a string or a list of strings");
}

TEST_F(OidcTest, DiscoveryUrlOverridesTheWellKnownPath) {
  issuer_.SetWellKnown(false);
  auto cfg = Config();
  cfg.jwt.discovery_url = issuer_.url() + "/discovery";
  auto a = Start(cfg);
  EXPECT_TRUE(SyncWait(a->AuthenticateToken(Sign(Claims()), {})).ok());
  cfg.jwt.discovery_url = issuer_.url() + "/elsewhere";
  auto b = OidcAuthenticator::Create(cfg, engine_);
  ASSERT_TRUE(b.ok());
  ASSERT_TRUE(WaitFor([&] { return (*b)->Health().message().find("404") != std::string::npos; })) << (*b)->Health().message();
  EXPECT_FALSE((*b)->initialized());
}

TEST_F(OidcTest, SetTimesAnswersPerIssuerButNotOtherIssuersTokens) {
  MetricsRegistry registry;
  HistogramVec& latency = registry.NewHistogramVec("apiserver_authentication_jwt_authenticator_latency_seconds", "h",
                                                   {"result", "jwt_issuer_hash"}, {.001, 1});
  auto base = Config();
  base.latency = &latency;
  auto set = JwtAuthenticatorSet::Create({base.jwt}, base, engine_);
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_TRUE(WaitFor([&] { return (*set)->Health().ok(); })) << (*set)->Health().message();
  const std::string hash = JwtIssuerHash(issuer_.url());
  EXPECT_EQ(hash.size(), 7u + 64u);
  EXPECT_EQ(JwtIssuerHash("https://example.com"), "sha256:100680ad546ce6a577f42f52df33b4cfdca756859e664b8d7de329b150d09ce9");

  auto ok = SyncWait((*set)->AuthenticateToken(Sign(Claims()), {}));
  ASSERT_TRUE(ok.ok() && ok->has_value()) << ok.status().message();
  auto expired = Claims();
  expired["exp"] = 1;
  EXPECT_FALSE(SyncWait((*set)->AuthenticateToken(Sign(expired), {})).ok());
  auto other = Claims();
  other["iss"] = "https://elsewhere";
  auto none = SyncWait((*set)->AuthenticateToken(Sign(other), {}));
  EXPECT_TRUE(none.ok() && !none->has_value());

  EXPECT_EQ(latency.With({"success", hash})->Count(), 1u);
  EXPECT_EQ(latency.With({"failure", hash})->Count(), 1u);
  EXPECT_EQ(latency.With({"success", JwtIssuerHash("https://elsewhere")})->Count(), 0u);
}

TEST(OidcUsernamePrefixTest, KubeRules) {
  EXPECT_EQ(OidcUsernamePrefix("", false, "sub", "https://i"), "https://i#");
  EXPECT_EQ(OidcUsernamePrefix("", false, "email", "https://i"), "");
  EXPECT_EQ(OidcUsernamePrefix("-", true, "sub", "https://i"), "");
  EXPECT_EQ(OidcUsernamePrefix("oidc:", true, "email", "https://i"), "oidc:");
}

}  // namespace
}  // namespace capstan::authn
