#include "auth/authn/bearer_token.h"

#include <gtest/gtest.h>

#include "auth/authn/basic_auth.h"
#include "auth/authn/token_file.h"
#include "util/strings.h"

namespace capstan::authn {
namespace {

TEST(ParseBearerTokenTest, KubeShapes) {
  EXPECT_EQ(ParseBearerToken("Bearer abc").value_or("-"), "abc");
  EXPECT_EQ(ParseBearerToken("bearer abc").value_or("-"), "abc");
  EXPECT_EQ(ParseBearerToken("BEARER abc  ").value_or("-"), "abc");
  EXPECT_EQ(ParseBearerToken("  Bearer abc def").value_or("-"), "abc");
  EXPECT_FALSE(ParseBearerToken("Bearer  abc"));  // extra space: an empty token (kube warns and ignores)
  EXPECT_FALSE(ParseBearerToken("Bearer"));
  EXPECT_FALSE(ParseBearerToken("Basic abc"));
  EXPECT_FALSE(ParseBearerToken(""));
}

http::Headers WebSocket(std::vector<std::string> protocols) {
  http::Headers h;
  h.Add("Connection", "keep-alive, Upgrade");
  h.Add("Upgrade", "websocket");
  for (auto& p : protocols) h.Add("Sec-WebSocket-Protocol", p);
  return h;
}

TEST(ParseWebSocketBearerTokenTest, TokenInASubprotocol) {
  std::string enc = Base64UrlEncode("secret-token");
  auto r = ParseWebSocketBearerToken(WebSocket({"base64url.bearer.authorization.k8s.io." + enc + ", v4.channel.k8s.io"}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->value_or(""), "secret-token");
}

TEST(ParseWebSocketBearerTokenTest, KubeErrors) {
  std::string enc = Base64UrlEncode("t");
  EXPECT_EQ(ParseWebSocketBearerToken(WebSocket({"base64url.bearer.authorization.k8s.io." + enc})).status().message(),
            "missing additional subprotocol");
  EXPECT_EQ(ParseWebSocketBearerToken(WebSocket({"base64url.bearer.authorization.k8s.io.%%%", "v4"})).status().message(),
            "invalid base64.bearer.authorization token encoding");
  EXPECT_EQ(ParseWebSocketBearerToken(WebSocket({"base64url.bearer.authorization.k8s.io." + enc,
                                                 "base64url.bearer.authorization.k8s.io." + enc, "v4"}))
                .status()
                .message(),
            "multiple base64.bearer.authorization tokens specified");
  EXPECT_EQ(ParseWebSocketBearerToken(WebSocket({"base64url.bearer.authorization.k8s.io." + Base64UrlEncode("\xff"), "v4"}))
                .status()
                .message(),
            "invalid base64.bearer.authorization token");
}

TEST(ParseWebSocketBearerTokenTest, NotAWebSocketRequestIsNoOpinion) {
  http::Headers h;
  h.Add("Sec-WebSocket-Protocol", "base64url.bearer.authorization.k8s.io." + Base64UrlEncode("t") + ",v4");
  auto r = ParseWebSocketBearerToken(h);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

std::shared_ptr<TokenAuthenticator> Tokens() {
  auto t = StaticTokenAuthenticator::FromCsv("good,alice,1\n", "tokens.csv");
  return std::shared_ptr<TokenAuthenticator>(std::move(*t));
}

TEST(BearerTokenAuthenticatorTest, KnownUnknownAndAbsent) {
  BearerTokenAuthenticator b(Tokens());
  http::HttpRequest req;
  req.headers.Add("Authorization", "Bearer good");
  auto r = SyncWait(b.AuthenticateRequest(req, {}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->user.name, "alice");

  http::HttpRequest bad;
  bad.headers.Add("Authorization", "Bearer nope");
  r = SyncWait(b.AuthenticateRequest(bad, {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "invalid bearer token");
  EXPECT_EQ(r.status().code(), 401);

  r = SyncWait(b.AuthenticateRequest(http::HttpRequest{}, {}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST(WebSocketProtocolAuthenticatorTest, UsesTheTokenAuthenticators) {
  WebSocketProtocolAuthenticator w(Tokens());
  http::HttpRequest req;
  req.headers = WebSocket({"base64url.bearer.authorization.k8s.io." + Base64UrlEncode("good"), "v4.channel.k8s.io"});
  auto r = SyncWait(w.AuthenticateRequest(req, {}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->user.name, "alice");
}

TEST(ParseBasicAuthTest, GoRequestBasicAuth) {
  auto c = ParseBasicAuth("Basic " + Base64Encode("alice:pa:ss"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->username, "alice");
  EXPECT_EQ(c->password, "pa:ss");
  EXPECT_TRUE(ParseBasicAuth("basic " + Base64Encode("a:b")));
  EXPECT_FALSE(ParseBasicAuth("Basic " + Base64Encode("nocolon")));
  EXPECT_FALSE(ParseBasicAuth("Basic !!!"));
  EXPECT_FALSE(ParseBasicAuth("Bearer x"));
}

TEST(BasicAuthAuthenticatorTest, PasswordFile) {
  auto a = BasicAuthAuthenticator::FromCsv("s3cret,alice,uid-1,\"dev,ops\"\nother,bob,uid-2\n", "pw.csv");
  ASSERT_TRUE(a.ok()) << a.status().message();
  http::HttpRequest req;
  req.headers.Add("Authorization", "Basic " + Base64Encode("alice:s3cret"));
  auto r = SyncWait((*a)->AuthenticateRequest(req, {}));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->user.name, "alice");
  EXPECT_EQ((*r)->user.uid, "uid-1");
  EXPECT_EQ((*r)->user.groups, (std::vector<std::string>{"dev", "ops"}));

  http::HttpRequest wrong;
  wrong.headers.Add("Authorization", "Basic " + Base64Encode("alice:nope"));
  r = SyncWait((*a)->AuthenticateRequest(wrong, {}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "invalid username/password combination");

  http::HttpRequest unknown;
  unknown.headers.Add("Authorization", "Basic " + Base64Encode("carol:s3cret"));
  EXPECT_FALSE(SyncWait((*a)->AuthenticateRequest(unknown, {})).ok());

  http::HttpRequest none;
  r = SyncWait((*a)->AuthenticateRequest(none, {}));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST(BasicAuthAuthenticatorTest, FileErrors) {
  auto a = BasicAuthAuthenticator::FromCsv("pw,alice\n", "pw.csv");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(), "password file 'pw.csv' must have at least 3 columns (password, user name, user uid), found 2");
  EXPECT_FALSE(BasicAuthAuthenticator::FromFile("/nonexistent/pw.csv").ok());
}

}  // namespace
}  // namespace capstan::authn
