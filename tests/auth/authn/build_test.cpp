// BuildAuthentication: kube's order and flags, end to end through the top-level authenticator.
#include "auth/authn/build.h"

#include <gtest/gtest.h>

#include "authn_test_util.h"
#include "util/strings.h"

namespace capstan::authn {
namespace {

using testing::FakeObjects;
using testing::Meta;
using testing::TempDir;
using testing::TestCa;

class BuildTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sa_key_ = dir_.Write("sa.key", testing::KeyPem());
    client_ca_ = dir_.Write("ca.crt", ca_.pem());
    tokens_ = dir_.Write("tokens.csv", "static-token,alice,uid-a,\"dev\"\n");
    passwords_ = dir_.Write("passwords.csv", "pw,bob,uid-b\n");
    objects_.Put("serviceaccounts", "default", "sa1", Meta("sa1", "sa-uid"));
  }
  AuthenticationConfig Config() {
    AuthenticationConfig c;
    c.client_ca_file = client_ca_;
    c.token_auth_file = tokens_;
    c.basic_auth_file = passwords_;
    c.service_account_signing_key_file = sa_key_;
    c.service_account_issuers = {"https://kubernetes.default.svc.cluster.local"};
    return c;
  }
  std::unique_ptr<Authentication> Build(AuthenticationConfig c) {
    AuthenticationDeps d;
    d.getter = objects_.Getter();
    auto a = BuildAuthentication(c, d);
    EXPECT_TRUE(a.ok()) << a.status().message();
    return a.ok() ? std::move(*a) : nullptr;
  }
  StatusOr<std::optional<UserInfo>> As(Authentication& a, const std::string& header) {
    http::HttpRequest req;
    if (!header.empty()) req.headers.Add("Authorization", header);
    return SyncWait(a.authenticator().Authenticate(req));
  }

  TempDir dir_;
  TestCa ca_;
  FakeObjects objects_;
  std::string sa_key_, client_ca_, tokens_, passwords_;
};

TEST_F(BuildTest, KubeOrderAndEveryCredentialKind) {
  auto a = Build(Config());
  ASSERT_TRUE(a);
  EXPECT_EQ(Join(a->names(), ","), "basic-auth,x509,token-file,serviceaccount-legacy,serviceaccount,anonymous");
  EXPECT_EQ(a->api_audiences(), (Audiences{"https://kubernetes.default.svc.cluster.local"}));

  auto u = As(*a, "Bearer static-token");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ((*u)->name, "alice");
  EXPECT_EQ((*u)->groups, (std::vector<std::string>{"dev", "system:authenticated"}));

  u = As(*a, "Basic " + Base64Encode("bob:pw"));
  ASSERT_TRUE(u.ok());
  EXPECT_EQ((*u)->name, "bob");

  BoundTokenSpec s;
  s.namespace_ = "default";
  s.service_account = {"sa1", "sa-uid"};
  s.audiences = a->api_audiences();
  s.now = std::chrono::system_clock::now();
  auto token = a->token_generator()->GenerateBound(s);
  u = As(*a, "Bearer " + token->token);
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ((*u)->name, "system:serviceaccount:default:sa1");

  u = As(*a, "Bearer nonsense");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().message(), "invalid bearer token");

  u = As(*a, "");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ((*u)->name, "system:anonymous");
}

TEST_F(BuildTest, TokenReviewUsesTheWholeChainAndItsAudiences) {
  auto a = Build(Config());
  auto r = SyncWait(a->ReviewToken("static-token", {}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->user.name, "alice");
  EXPECT_EQ((*r)->audiences, a->api_audiences());
  // Static tokens are for the API audiences only.
  r = SyncWait(a->ReviewToken("static-token", {"vault"}));
  EXPECT_FALSE(r.ok());
  r = SyncWait(a->ReviewToken("nonsense", {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "invalid bearer token");
}

TEST_F(BuildTest, SuccessfulTokensAreCached) {
  auto a = Build(Config());
  ASSERT_TRUE(a->token_cache());
  As(*a, "Bearer static-token");
  As(*a, "Bearer static-token");
  EXPECT_EQ(a->token_cache()->misses(), 1);
  EXPECT_EQ(a->token_cache()->hits(), 1);
}

TEST_F(BuildTest, BootstrapTokensWhenEnabled) {
  auto c = Config();
  c.enable_bootstrap_token_auth = true;
  c.anonymous = false;
  auto a = Build(c);
  EXPECT_EQ(Join(a->names(), ","), "basic-auth,x509,token-file,serviceaccount-legacy,serviceaccount,bootstrap-token");
  auto u = As(*a, "");
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(u->has_value());
}

TEST_F(BuildTest, FlagErrors) {
  AuthenticationDeps d;
  auto c = Config();
  c.token_auth_file = "/nonexistent";
  EXPECT_NE(BuildAuthentication(c, d).status().message().find("--token-auth-file"), std::string::npos);
  c = Config();
  c.service_account_max_token_expiration = std::chrono::minutes(5);
  EXPECT_EQ(BuildAuthentication(c, d).status().message(),
            "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds");
  c = Config();
  c.oidc_client_id = "x";
  EXPECT_EQ(BuildAuthentication(c, d).status().message(), "oidc-issuer-url and oidc-client-id must be specified together when any oidc-* flags are set");
  c = Config();
  c.service_account_signing_key_file = client_ca_;  // a certificate, not a private key
  EXPECT_FALSE(BuildAuthentication(c, d).ok());
  c = Config();
  c.service_account_issuers.clear();
  EXPECT_FALSE(BuildAuthentication(c, d).ok());
}

}  // namespace
}  // namespace capstan::authn
