#include "auth/authn/service_account.h"

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "apimachinery/time_util.h"
#include "auth/authn/token_generator.h"
#include "authn_test_util.h"
#include "util/strings.h"

namespace capstan::authn {
namespace {

namespace json = boost::json;
using testing::FakeObjects;
using testing::Meta;
using testing::NewKey;
namespace am = capstan::apimachinery;

constexpr const char* kIssuer = "https://kubernetes.default.svc.cluster.local";

class ServiceAccountTest : public ::testing::Test {
 protected:
  void SetUp() override {
    objects_.Put("serviceaccounts", "default", "bob", Meta("bob", "sa-uid"));
    objects_.Put("pods", "default", "web", Meta("web", "pod-uid"));
    objects_.Put("secrets", "default", "s1", Meta("s1", "secret-uid"));
    objects_.Put("nodes", "", "n1", Meta("n1", "node-uid"));
  }
  std::unique_ptr<ServiceAccountTokenAuthenticator> Bound(std::vector<JwsKey> keys = {}) {
    ServiceAccountAuthConfig c;
    c.issuers = {kIssuer, "https://old-issuer"};
    c.keys = keys.empty() ? std::vector<JwsKey>{key_.PublicOnly()} : keys;
    c.implicit_audiences = {kIssuer};
    c.getter = objects_.Getter();
    c.clock = &clock_;
    return std::make_unique<ServiceAccountTokenAuthenticator>(ServiceAccountTokenAuthenticator::Kind::kBound, c);
  }
  BoundTokenSpec Spec() {
    BoundTokenSpec s;
    s.namespace_ = "default";
    s.service_account = {"bob", "sa-uid"};
    s.audiences = {kIssuer};
    s.expiration_seconds = 3600;
    s.now = clock_.Now();
    return s;
  }
  std::string Token(BoundTokenSpec s) { return generator_.GenerateBound(s)->token; }
  AuthResult Auth(const std::string& token, Audiences a = {}) {
    return SyncWait(Bound()->AuthenticateToken(token, a));
  }

  FakeClock clock_;
  FakeObjects objects_;
  JwsKey key_ = NewKey();
  ServiceAccountTokenGenerator generator_{kIssuer, key_};
};

TEST_F(ServiceAccountTest, BoundTokenIsTheServiceAccount) {
  auto r = Auth(Token(Spec()));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  const auto& u = (*r)->user;
  EXPECT_EQ(u.name, "system:serviceaccount:default:bob");
  EXPECT_EQ(u.uid, "sa-uid");
  EXPECT_EQ(u.groups, (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:default"}));
  ASSERT_EQ(u.extra.count("authentication.kubernetes.io/credential-id"), 1u);
  EXPECT_TRUE(StartsWith(u.extra.at("authentication.kubernetes.io/credential-id")[0], "JTI="));
  EXPECT_EQ((*r)->audiences, (Audiences{kIssuer}));
  ASSERT_TRUE((*r)->expires);
}

TEST_F(ServiceAccountTest, PodBoundTokenCarriesPodAndNodeExtrasAndDiesWithThePod) {
  auto s = Spec();
  s.pod = ObjectRef{"web", "pod-uid"};
  s.node = ObjectRef{"n1", "node-uid"};
  std::string t = Token(s);
  auto r = Auth(t);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const auto& extra = (*r)->user.extra;
  EXPECT_EQ(extra.at("authentication.kubernetes.io/pod-name")[0], "web");
  EXPECT_EQ(extra.at("authentication.kubernetes.io/pod-uid")[0], "pod-uid");
  EXPECT_EQ(extra.at("authentication.kubernetes.io/node-name")[0], "n1");
  EXPECT_EQ(extra.at("authentication.kubernetes.io/node-uid")[0], "node-uid");
  objects_.Remove("pods", "default", "web");
  r = Auth(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "service account token has been invalidated");
  // A pod recreated under the same name is another pod.
  objects_.Put("pods", "default", "web", Meta("web", "other-uid"));
  EXPECT_EQ(Auth(t).status().message(), "pod UID (other-uid) does not match service account pod ref claim (pod-uid)");
}

TEST_F(ServiceAccountTest, SecretAndNodeBoundTokens) {
  auto s = Spec();
  s.secret = ObjectRef{"s1", "secret-uid"};
  std::string secret_bound = Token(s);
  EXPECT_TRUE(Auth(secret_bound).ok());
  // Being deleted for over a minute (the leeway) counts as gone.
  auto deleting = am::FormatRfc3339(am::Timestamp::FromTimePoint(clock_.Now() - std::chrono::seconds(120)));
  objects_.Put("secrets", "default", "s1", Meta("s1", "secret-uid", deleting));
  EXPECT_EQ(Auth(secret_bound).status().message(), "service account token has been invalidated");

  auto n = Spec();
  n.node = ObjectRef{"n1", "node-uid"};
  std::string node_bound = Token(n);
  EXPECT_TRUE(Auth(node_bound).ok());
  objects_.Remove("nodes", "", "n1");
  EXPECT_FALSE(Auth(node_bound).ok());
}

TEST_F(ServiceAccountTest, DeletedOrRecreatedServiceAccountRevokesTokens) {
  std::string t = Token(Spec());
  objects_.Put("serviceaccounts", "default", "bob", Meta("bob", "new-uid"));
  EXPECT_EQ(Auth(t).status().message(), "service account UID (new-uid) does not match claim (sa-uid)");
  objects_.Remove("serviceaccounts", "default", "bob");
  auto r = Auth(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "serviceaccounts \"bob\" not found");
  auto deleting = am::FormatRfc3339(am::Timestamp::FromTimePoint(clock_.Now() - std::chrono::seconds(61)));
  objects_.Put("serviceaccounts", "default", "bob", Meta("bob", "sa-uid", deleting));
  EXPECT_EQ(Auth(t).status().message(), "service account default/bob has been deleted");
  // Deletion that started within the leeway does not revoke yet.
  objects_.Put("serviceaccounts", "default", "bob", Meta("bob", "sa-uid", am::FormatRfc3339(am::Timestamp::FromTimePoint(clock_.Now()))));
  EXPECT_TRUE(Auth(t).ok());
}

TEST_F(ServiceAccountTest, ExpiryWithOneMinuteOfLeeway) {
  auto s = Spec();
  s.expiration_seconds = 600;
  std::string t = Token(s);
  clock_.Advance(std::chrono::seconds(630));
  EXPECT_TRUE(Auth(t).ok());
  clock_.Advance(std::chrono::seconds(40));
  auto r = Auth(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "service account token has expired");
  auto future = Spec();
  future.now = clock_.Now() + std::chrono::seconds(300);
  EXPECT_EQ(Auth(Token(future)).status().message(), "service account token is not valid yet");
}

TEST_F(ServiceAccountTest, Audiences) {
  auto s = Spec();
  s.audiences = {"vault"};
  std::string t = Token(s);
  auto r = Auth(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "token audiences [\"vault\"] is invalid for the target audiences [\"" + std::string(kIssuer) + "\"]");
  r = Auth(t, {"vault", "other"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->audiences, (Audiences{"vault"}));
}

TEST_F(ServiceAccountTest, ForeignTokensAreNoOpinionOursWithBadSignaturesAreErrors) {
  EXPECT_FALSE(Auth("not-a-jwt")->has_value());
  ServiceAccountTokenGenerator other_issuer("https://elsewhere", key_);
  EXPECT_FALSE(Auth(other_issuer.GenerateBound(Spec())->token)->has_value());
  // Right issuer, unknown key.
  ServiceAccountTokenGenerator forger(kIssuer, NewKey());
  auto r = Auth(forger.GenerateBound(Spec())->token);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "invalid signature, no keys found");
  // Several keys, none matching the key id: every key fails.
  auto many = SyncWait(Bound({NewKey().PublicOnly(), key_.PublicOnly()})->AuthenticateToken(Token(Spec()), {}));
  EXPECT_TRUE(many.ok()) << many.status().message();
}

TEST_F(ServiceAccountTest, OlderIssuersStillAccepted) {
  ServiceAccountTokenGenerator old("https://old-issuer", key_);
  EXPECT_TRUE(Auth(old.GenerateBound(Spec())->token).ok());
}

class LegacyTest : public ServiceAccountTest {
 protected:
  std::unique_ptr<ServiceAccountTokenAuthenticator> Legacy(bool lookup = true) {
    ServiceAccountAuthConfig c;
    c.issuers = {kLegacyServiceAccountIssuer};
    c.keys = {key_.PublicOnly()};
    c.implicit_audiences = {kIssuer};
    c.lookup = lookup;
    c.getter = objects_.Getter();
    c.clock = &clock_;
    return std::make_unique<ServiceAccountTokenAuthenticator>(ServiceAccountTokenAuthenticator::Kind::kLegacy, c);
  }
  void StoreSecret(const std::string& token, const std::string& label = "") {
    json::object s = Meta("bob-token", "secret-uid");
    s["type"] = "kubernetes.io/service-account-token";
    s["data"] = json::object{{"token", Base64Encode(token)}};
    if (!label.empty()) s["metadata"].as_object()["labels"] = json::object{{kLegacyTokenInvalidSinceLabel, label}};
    objects_.Put("secrets", "default", "bob-token", s);
  }
};

TEST_F(LegacyTest, SecretBasedTokenWhileTheSecretHoldsIt) {
  std::string t = *generator_.GenerateLegacy("default", {"bob", "sa-uid"}, "bob-token");
  StoreSecret(t);
  auto r = SyncWait(Legacy()->AuthenticateToken(t, {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->user.name, "system:serviceaccount:default:bob");
  EXPECT_EQ((*r)->audiences, (Audiences{kIssuer}));
  EXPECT_FALSE((*r)->expires);

  StoreSecret("something else");
  EXPECT_EQ(SyncWait(Legacy()->AuthenticateToken(t, {})).status().message(), "token does not match server's copy");
  StoreSecret(t, "2024-01-01");
  EXPECT_NE(SyncWait(Legacy()->AuthenticateToken(t, {})).status().message().find("has been marked invalid"), std::string::npos);
  objects_.Remove("secrets", "default", "bob-token");
  EXPECT_EQ(SyncWait(Legacy()->AuthenticateToken(t, {})).status().message(), "token has been invalidated");
  // Without --service-account-lookup nothing is looked up.
  EXPECT_TRUE(SyncWait(Legacy(false)->AuthenticateToken(t, {})).ok());
}

TEST_F(LegacyTest, ClaimsAreChecked) {
  json::object c;
  c["iss"] = kLegacyServiceAccountIssuer;
  c["sub"] = "system:serviceaccount:other:bob";
  c["kubernetes.io/serviceaccount/namespace"] = "default";
  c["kubernetes.io/serviceaccount/secret.name"] = "bob-token";
  c["kubernetes.io/serviceaccount/service-account.name"] = "bob";
  c["kubernetes.io/serviceaccount/service-account.uid"] = "sa-uid";
  EXPECT_EQ(SyncWait(Legacy()->AuthenticateToken(*SignJwt(c, key_), {})).status().message(), "sub claim is invalid");
  c.erase("kubernetes.io/serviceaccount/secret.name");
  EXPECT_EQ(SyncWait(Legacy()->AuthenticateToken(*SignJwt(c, key_), {})).status().message(), "secretName claim is missing");
  // A bound token is not a legacy token.
  EXPECT_FALSE(SyncWait(Legacy()->AuthenticateToken(Token(Spec()), {}))->has_value());
}

TEST(TokenGeneratorTest, ClaimsAsKube) {
  JwsKey key = NewKey(cmd::KeyType::kEcdsaP256);
  ServiceAccountTokenGenerator g(kIssuer, key);
  BoundTokenSpec s;
  s.namespace_ = "ns";
  s.service_account = {"sa", "u1"};
  s.pod = ObjectRef{"p", "pu"};
  s.node = ObjectRef{"n", "nu"};
  s.audiences = {"a"};
  s.expiration_seconds = 3600;
  s.warn_after_seconds = 3607;
  s.now = std::chrono::system_clock::time_point(std::chrono::seconds(1700000000));
  auto t = g.GenerateBound(s);
  ASSERT_TRUE(t.ok());
  auto jwt = ParseJwt(t->token);
  ASSERT_TRUE(jwt.ok());
  EXPECT_EQ(jwt->alg, "ES256");
  EXPECT_EQ(json::serialize(jwt->header), "{\"alg\":\"ES256\",\"kid\":\"" + key.KeyId() + "\"}");
  EXPECT_EQ(json::serialize(jwt->claims),
            "{\"aud\":[\"a\"],\"exp\":1700003600,\"iat\":1700000000,\"iss\":\"" + std::string(kIssuer) + "\",\"jti\":\"" +
                t->jti +
                "\",\"kubernetes.io\":{\"namespace\":\"ns\",\"node\":{\"name\":\"n\",\"uid\":\"nu\"},\"pod\":{\"name\":\"p\","
                "\"uid\":\"pu\"},\"serviceaccount\":{\"name\":\"sa\",\"uid\":\"u1\"},\"warnafter\":1700003607},\"nbf\":"
                "1700000000,\"sub\":\"system:serviceaccount:ns:sa\"}");
  EXPECT_TRUE(VerifyJwt(*jwt, key.PublicOnly()).ok());
}

}  // namespace
}  // namespace capstan::authn
