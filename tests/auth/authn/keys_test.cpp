#include "auth/authn/keys.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include <boost/json.hpp>
#include <gtest/gtest.h>

#include "auth/authn/issuer_discovery.h"
#include "authn_test_util.h"
#include "util/strings.h"

namespace capstan::authn {
namespace {

namespace json = boost::json;
using testing::NewKey;

std::string PublicPem(const JwsKey& k) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(bio, k.evp());
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

std::string Pkcs1Pem(const JwsKey& k) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey_traditional(bio, k.evp(), nullptr, nullptr, 0, nullptr, nullptr);
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<size_t>(n));
  BIO_free(bio);
  return out;
}

TEST(KeysTest, KeyIdIsBase64UrlSha256OfThePkixDer) {
  JwsKey k = NewKey();
  int len = i2d_PUBKEY(k.evp(), nullptr);
  std::string der(static_cast<size_t>(len), '\0');
  auto* p = reinterpret_cast<unsigned char*>(der.data());
  i2d_PUBKEY(k.evp(), &p);
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(der.data()), der.size(), md);
  EXPECT_EQ(k.KeyId(), Base64UrlEncode(std::string(reinterpret_cast<char*>(md), sizeof md)));
  EXPECT_EQ(k.KeyId().size(), 43u);
  EXPECT_EQ(k.PublicOnly().KeyId(), k.KeyId());
  EXPECT_TRUE(k.is_private());
  EXPECT_FALSE(k.PublicOnly().is_private());
}

TEST(KeysTest, PemBundlesOfEveryKind) {
  JwsKey rsa = NewKey();
  JwsKey ec = NewKey(cmd::KeyType::kEcdsaP256);
  testing::TestCa ca;
  auto cert = ca.Issue("x", {}, false, true);
  std::string bundle = PublicPem(rsa) + Pkcs1Pem(ec) + "junk\n" + cert.cert + testing::KeyPem();
  auto keys = ParseKeysPem(bundle, "bundle.pem");
  ASSERT_TRUE(keys.ok()) << keys.status().message();
  ASSERT_EQ(keys->size(), 4u);
  EXPECT_EQ((*keys)[0].KeyId(), rsa.KeyId());
  EXPECT_FALSE((*keys)[0].is_private());
  EXPECT_EQ((*keys)[1].KeyId(), ec.KeyId());
  EXPECT_TRUE((*keys)[1].is_private());
  EXPECT_EQ((*keys)[1].DefaultAlgorithm(), "ES256");
  EXPECT_EQ((*keys)[2].type(), JwsKey::Type::kEc);  // the certificate's key
  auto none = ParseKeysPem("nothing", "empty.pem");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("data does not contain any valid RSA or ECDSA public keys"), std::string::npos);
  EXPECT_FALSE(ParsePrivateKeyPem(PublicPem(rsa), "pub.pem").ok());
  EXPECT_FALSE(LoadKeysFile("/nonexistent.pem").ok());
}

TEST(KeysTest, JwkRoundTrip) {
  for (auto type : {cmd::KeyType::kRsa2048, cmd::KeyType::kEcdsaP256}) {
    JwsKey k = NewKey(type);
    json::object jwk = k.PublicJwk();
    EXPECT_EQ(jwk.at("use").as_string(), "sig");
    EXPECT_EQ(jwk.at("kid").as_string(), k.KeyId());
    auto back = JwsKey::FromJwk(jwk);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(back->KeyId(), k.KeyId());
    EXPECT_FALSE(back->is_private());
  }
  JwsKey ec = NewKey(cmd::KeyType::kEcdsaP256);
  json::object jwk = ec.PublicJwk();
  EXPECT_EQ(jwk.at("crv").as_string(), "P-256");
  EXPECT_EQ(jwk.at("x").as_string().size(), 43u);  // 32 bytes, padded
}

TEST(KeysTest, BadJwks) {
  EXPECT_FALSE(JwsKey::FromJwk(json::object{{"kty", "oct"}, {"k", "abc"}}).ok());
  EXPECT_FALSE(JwsKey::FromJwk(json::object{{"kty", "RSA"}, {"n", "AQAB"}}).ok());
  EXPECT_FALSE(JwsKey::FromJwk(json::object{{"kty", "EC"}, {"crv", "P-256"}, {"x", "AQAB"}, {"y", "AQAB"}}).ok());
  EXPECT_FALSE(JwsKey::FromJwk(json::object{{"kty", "RSA"}, {"n", "%%"}, {"e", "AQAB"}}).ok());
  // A document with bad and foreign entries keeps only the usable signing keys.
  JwsKey good = NewKey();
  json::object enc = NewKey().PublicJwk();
  enc["use"] = "enc";
  json::object doc{{"keys", json::array{json::object{{"kty", "oct"}}, enc, good.PublicJwk(), 5}}};
  auto keys = ParseJwks(doc);
  ASSERT_TRUE(keys.ok());
  ASSERT_EQ(keys->size(), 1u);
  EXPECT_EQ((*keys)[0].KeyId(), good.KeyId());
  EXPECT_FALSE(ParseJwks(json::object{{"nokeys", 1}}).ok());
}

TEST(IssuerDiscoveryTest, DocumentsAsKube) {
  JwsKey k = NewKey();
  JwsKey e = NewKey(cmd::KeyType::kEcdsaP256);
  auto d = IssuerDiscovery::Create("https://kubernetes.default.svc.cluster.local", "https://10.0.0.1:6443/openid/v1/jwks",
                                   {k, e.PublicOnly(), k});
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->configuration_json(),
            "{\"issuer\":\"https://kubernetes.default.svc.cluster.local\",\"jwks_uri\":\"https://10.0.0.1:6443/openid/v1/"
            "jwks\",\"response_types_supported\":[\"id_token\"],\"subject_types_supported\":[\"public\"],\"id_token_"
            "signing_alg_values_supported\":[\"ES256\",\"RS256\"]}");
  auto jwks = json::parse(d->jwks_json()).as_object();
  ASSERT_EQ(jwks.at("keys").as_array().size(), 2u);  // deduplicated by key id
  EXPECT_EQ(d->jwks_json().find("\"d\""), std::string::npos);  // never a private part
  EXPECT_FALSE(IssuerDiscovery::Create("kubernetes/serviceaccount", "https://x/openid/v1/jwks", {k}).ok());
  EXPECT_FALSE(IssuerDiscovery::Create("http://insecure", "https://x/openid/v1/jwks", {k}).ok());
  EXPECT_FALSE(IssuerDiscovery::Create("https://ok", "http://x/jwks", {k}).ok());
}

}  // namespace
}  // namespace capstan::authn
