#include "auth/authn/jwt.h"

#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "auth/authn/keys.h"
#include "authn_test_util.h"
#include "util/strings.h"

namespace capstan::authn {
namespace {

namespace json = boost::json;
using testing::NewKey;

json::object Claims() {
  json::object c;
  c["iss"] = "https://issuer";
  c["sub"] = "alice";
  c["aud"] = json::array{"a", "b"};
  c["exp"] = 2000000000;
  return c;
}

TEST(JwtTest, SignParseVerifyRoundTrip) {
  for (auto type : {cmd::KeyType::kRsa2048, cmd::KeyType::kEcdsaP256}) {
    JwsKey key = NewKey(type);
    auto token = SignJwt(Claims(), key);
    ASSERT_TRUE(token.ok()) << token.status().message();
    auto jwt = ParseJwt(*token);
    ASSERT_TRUE(jwt.ok()) << jwt.status().message();
    EXPECT_EQ(jwt->alg, type == cmd::KeyType::kRsa2048 ? "RS256" : "ES256");
    EXPECT_EQ(jwt->kid, key.KeyId());
    EXPECT_EQ(jwt->claims.at("sub").as_string(), "alice");
    EXPECT_TRUE(VerifyJwt(*jwt, key).ok());
    EXPECT_TRUE(VerifyJwt(*jwt, key.PublicOnly()).ok());
    EXPECT_FALSE(VerifyJwt(*jwt, NewKey(type)).ok());
  }
}

TEST(JwtTest, TamperedPayloadOrSignatureFails) {
  JwsKey key = NewKey();
  std::string token = *SignJwt(Claims(), key);
  size_t d1 = token.find('.'), d2 = token.rfind('.');
  json::object evil = Claims();
  evil["sub"] = "admin";
  std::string forged = token.substr(0, d1 + 1) + Base64UrlEncode(json::serialize(evil)) + token.substr(d2);
  EXPECT_FALSE(VerifyJwt(*ParseJwt(forged), key).ok());
  std::string sig_flip = token;
  sig_flip[d2 + 5] = sig_flip[d2 + 5] == 'A' ? 'B' : 'A';
  auto p = ParseJwt(sig_flip);
  if (p.ok()) EXPECT_FALSE(VerifyJwt(*p, key).ok());
}

TEST(JwtTest, KeyTypeMustFitTheAlgorithm) {
  JwsKey rsa = NewKey(cmd::KeyType::kRsa2048);
  JwsKey ec = NewKey(cmd::KeyType::kEcdsaP256);
  auto jwt = ParseJwt(*SignJwt(Claims(), rsa));
  EXPECT_FALSE(VerifyJwt(*jwt, ec).ok());
  auto ejwt = ParseJwt(*SignJwt(Claims(), ec));
  EXPECT_FALSE(VerifyJwt(*ejwt, rsa).ok());
}

std::string B64(const std::string& s) { return Base64UrlEncode(s); }

TEST(JwtTest, RejectsNoneHmacAndMalformedTokens) {
  std::string payload = B64(json::serialize(Claims()));
  EXPECT_FALSE(ParseJwt(B64("{\"alg\":\"none\"}") + "." + payload + ".").ok());
  EXPECT_FALSE(ParseJwt(B64("{\"alg\":\"none\"}") + "." + payload + "." + B64("x")).ok());
  EXPECT_FALSE(ParseJwt(B64("{\"alg\":\"HS256\"}") + "." + payload + "." + B64("x")).ok());
  EXPECT_FALSE(ParseJwt("a.b").ok());
  EXPECT_FALSE(ParseJwt("a.b.c.d").ok());
  EXPECT_FALSE(ParseJwt(B64("[1]") + "." + payload + "." + B64("x")).ok());
  EXPECT_FALSE(ParseJwt(B64("{\"alg\":\"RS256\"}") + "." + B64("not json") + "." + B64("x")).ok());
  EXPECT_FALSE(ParseJwt(B64("{\"alg\":\"RS256\",\"kid\":5}") + "." + payload + "." + B64("x")).ok());
  EXPECT_FALSE(ParseJwt(B64("{\"alg\":\"RS256\",\"crit\":[\"x\"]}") + "." + payload + "." + B64("x")).ok());
  EXPECT_FALSE(ParseJwt(std::string(kMaxJwtBytes + 1, 'a')).ok());
  EXPECT_EQ(ParseJwt("a.b").status().code(), 401);
}

TEST(JwtTest, PeekIssuer) {
  JwsKey key = NewKey(cmd::KeyType::kEcdsaP256);
  EXPECT_EQ(PeekIssuer(*SignJwt(Claims(), key)).value_or("?"), "https://issuer");
  json::object no_iss;
  no_iss["sub"] = "x";
  EXPECT_EQ(PeekIssuer(*SignJwt(no_iss, key)).value_or("?"), "");
  json::object num_iss;
  num_iss["iss"] = 5;
  EXPECT_FALSE(PeekIssuer(*SignJwt(num_iss, key)));
  EXPECT_FALSE(PeekIssuer("{\"iss\":1}.a.b"));
  EXPECT_FALSE(PeekIssuer("static-token"));
}

// PS256 tokens (signed here with OpenSSL directly) verify with RSA keys.
TEST(JwtTest, VerifiesPss) {
  JwsKey key = NewKey();
  std::string input = B64("{\"alg\":\"PS256\"}") + "." + B64(json::serialize(Claims()));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = nullptr;
  ASSERT_EQ(EVP_DigestSignInit(ctx, &pctx, EVP_sha256(), nullptr, key.evp()), 1);
  EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
  EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
  size_t len = 0;
  EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size());
  std::string sig(len, '\0');
  EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len, reinterpret_cast<const unsigned char*>(input.data()),
                 input.size());
  sig.resize(len);
  EVP_MD_CTX_free(ctx);
  auto jwt = ParseJwt(input + "." + B64(sig));
  ASSERT_TRUE(jwt.ok());
  EXPECT_TRUE(VerifyJwt(*jwt, key).ok());
  EXPECT_FALSE(VerifyJwt(*jwt, NewKey()).ok());
}

TEST(JwtClaimsTest, Accessors) {
  json::object c;
  c["exp"] = 10;
  c["nbf"] = 12.7;
  c["iat"] = "soon";
  c["aud"] = "one";
  c["sub"] = "x";
  c["num"] = 3;
  EXPECT_EQ(NumericDateClaim(c, "exp")->value_or(0), 10);
  EXPECT_EQ(NumericDateClaim(c, "nbf")->value_or(0), 12);
  EXPECT_FALSE(NumericDateClaim(c, "iat").ok());
  EXPECT_FALSE(NumericDateClaim(c, "none")->has_value());
  EXPECT_EQ(*AudienceClaim(c), (std::vector<std::string>{"one"}));
  c["aud"] = json::array{"a", 1};
  EXPECT_FALSE(AudienceClaim(c).ok());
  c.erase("aud");
  EXPECT_TRUE(AudienceClaim(c)->empty());
  EXPECT_EQ(StringClaim(c, "sub")->value_or(""), "x");
  EXPECT_FALSE(StringClaim(c, "num").ok());
}

}  // namespace
}  // namespace capstan::authn
