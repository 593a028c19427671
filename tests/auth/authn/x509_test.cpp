#include "auth/authn/x509.h"

#include <gtest/gtest.h>

#include "auth/authn/request_header.h"
#include "authn_test_util.h"

namespace capstan::authn {
namespace {

using testing::TestCa;

class X509Test : public ::testing::Test {
 protected:
  TestCa ca_{"client-ca"};
  std::unique_ptr<X509Authenticator> auth_ = std::move(X509Authenticator::FromPem(ca_.pem()).value());
};

TEST_F(X509Test, VerifiedChainIsTheCommonNameInItsOrganizations) {
  auto c = ca_.Issue("alice", {"dev", "ops"}, false, true);
  http::HttpRequest req;
  req.peer_certs_der = {TestCa::Der(c.cert)};
  auto r = SyncWait(auth_->AuthenticateRequest(req, {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->user.name, "alice");
  EXPECT_EQ((*r)->user.groups, (std::vector<std::string>{"dev", "ops"}));
}

TEST_F(X509Test, NoCertificateIsNoOpinion) {
  auto r = SyncWait(auth_->AuthenticateRequest(http::HttpRequest{}, {}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST_F(X509Test, UnknownAuthorityExpiredAndWrongUsageAreErrors) {
  TestCa other("other-ca");
  auto foreign = other.Issue("mallory", {}, false, true);
  auto r = auth_->Verify({TestCa::Der(foreign.cert)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "verifying certificate failed: x509: certificate signed by unknown authority");

  auto expired = ca_.Issue("old", {}, false, true, std::chrono::hours(1), -3 * 3600);
  r = auth_->Verify({TestCa::Der(expired.cert)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "verifying certificate failed: x509: certificate has expired or is not yet valid");

  auto server_only = ca_.Issue("server", {}, true, false);
  r = auth_->Verify({TestCa::Der(server_only.cert)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "verifying certificate failed: x509: certificate specifies an incompatible key usage");

  r = auth_->Verify({"not DER"});
  EXPECT_FALSE(r.ok());
}

TEST_F(X509Test, CertificateWithoutCommonNameIsNoOpinion) {
  auto c = ca_.Issue("", {"dev"}, false, true);
  auto r = auth_->Verify({TestCa::Der(c.cert)});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST(X509LoadTest, BadBundles) {
  EXPECT_FALSE(X509Authenticator::FromPem("no pem here").ok());
  EXPECT_FALSE(X509Authenticator::FromFile("/nonexistent/ca.crt").ok());
}

RequestHeaderConfig Config() {
  RequestHeaderConfig c;
  c.username_headers = {"X-Remote-User"};
  c.uid_headers = {"X-Remote-Uid"};
  c.group_headers = {"X-Remote-Group"};
  c.extra_header_prefixes = {"X-Remote-Extra-"};
  return c;
}

TEST(UserFromRequestHeadersTest, KubeRules) {
  http::Headers h;
  h.Add("X-Remote-User", "alice");
  h.Add("X-Remote-Uid", "u-1");
  h.Add("X-Remote-Group", "dev");
  h.Add("x-remote-group", "ops");
  h.Add("X-Remote-Group", "");
  h.Add("X-Remote-Extra-Scopes", "read");
  h.Add("x-remote-extra-scopes", "write");
  h.Add("X-Remote-Extra-Acme.com%2Fproject", "p1");
  h.Add("X-Remote-Extra-Bad%zz", "v");
  auto u = UserFromRequestHeaders(h, Config());
  ASSERT_TRUE(u);
  EXPECT_EQ(u->name, "alice");
  EXPECT_EQ(u->uid, "u-1");
  EXPECT_EQ(u->groups, (std::vector<std::string>{"dev", "ops"}));
  EXPECT_EQ(u->extra["scopes"], (std::vector<std::string>{"read", "write"}));
  EXPECT_EQ(u->extra["acme.com/project"], (std::vector<std::string>{"p1"}));
  EXPECT_EQ(u->extra["bad%zz"], (std::vector<std::string>{"v"}));

  http::Headers none;
  none.Add("X-Remote-Group", "dev");
  EXPECT_FALSE(UserFromRequestHeaders(none, Config()));
}

class RequestHeaderTest : public ::testing::Test {
 protected:
  std::unique_ptr<RequestHeaderAuthenticator> Make(std::vector<std::string> allowed) {
    auto c = Config();
    c.allowed_names = std::move(allowed);
    auto r = RequestHeaderAuthenticator::Create(c, std::move(*X509Authenticator::FromPem(proxy_ca_.pem())));
    return std::move(*r);
  }
  http::HttpRequest Req(const std::string& cert_pem, const std::string& user) {
    http::HttpRequest req;
    if (!cert_pem.empty()) req.peer_certs_der = {TestCa::Der(cert_pem)};
    if (!user.empty()) req.headers.Add("X-Remote-User", user);
    return req;
  }
  TestCa proxy_ca_{"front-proxy-ca"};
};

TEST_F(RequestHeaderTest, TrustedProxyAssertsTheUser) {
  auto a = Make({"front-proxy-client"});
  auto proxy = proxy_ca_.Issue("front-proxy-client", {}, false, true);
  auto r = SyncWait(a->AuthenticateRequest(Req(proxy.cert, "alice"), {}));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->user.name, "alice");
}

TEST_F(RequestHeaderTest, HeadersWithoutATrustedCertificateAreNotTrusted) {
  auto a = Make({});
  // No certificate: no opinion (the headers are ignored).
  auto r = SyncWait(a->AuthenticateRequest(Req("", "alice"), {}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  // A certificate from another CA: an error.
  TestCa other("client-ca");
  auto c = other.Issue("front-proxy-client", {}, false, true);
  EXPECT_FALSE(SyncWait(a->AuthenticateRequest(Req(c.cert, "alice"), {})).ok());
  // Trusted proxy, no username header: no opinion.
  auto proxy = proxy_ca_.Issue("any", {}, false, true);
  r = SyncWait(a->AuthenticateRequest(Req(proxy.cert, ""), {}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST_F(RequestHeaderTest, CommonNameMustBeAllowed) {
  auto a = Make({"front-proxy-client"});
  auto c = proxy_ca_.Issue("someone-else", {}, false, true);
  auto r = SyncWait(a->AuthenticateRequest(Req(c.cert, "alice"), {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "x509: subject with cn=someone-else is not in the allowed list");
}

TEST(RequestHeaderConfigTest, EmptyHeaderNameIsAnError) {
  TestCa ca;
  auto c = Config();
  c.group_headers = {" "};
  auto r = RequestHeaderAuthenticator::Create(c, std::move(*X509Authenticator::FromPem(ca.pem())));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "empty header \" \"");
}

}  // namespace
}  // namespace capstan::authn
