#include "server/tls_cipher_suites.h"

#include <gtest/gtest.h>

namespace capstan::server {
namespace {

TEST(TlsCipherSuitesTest, GoNamesMapToOpenSslNames) {
  auto s = FindTlsCipherSuite("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->openssl_name, "ECDHE-RSA-AES128-GCM-SHA256");
  EXPECT_FALSE(s->insecure);
  auto legacy = FindTlsCipherSuite("TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305");  // kube's legacy name
  ASSERT_TRUE(legacy);
  EXPECT_EQ(legacy->openssl_name, "ECDHE-RSA-CHACHA20-POLY1305");
  auto insecure = FindTlsCipherSuite("TLS_RSA_WITH_AES_128_CBC_SHA");
  ASSERT_TRUE(insecure);
  EXPECT_TRUE(insecure->insecure);
  EXPECT_EQ(insecure->openssl_name, "AES128-SHA");
  auto tls13 = FindTlsCipherSuite("TLS_AES_128_GCM_SHA256");
  ASSERT_TRUE(tls13);
  EXPECT_EQ(tls13->openssl_name, "");
  EXPECT_FALSE(FindTlsCipherSuite("ECDHE-RSA-AES128-GCM-SHA256"));  // OpenSSL's names are not kube's
  EXPECT_FALSE(FindTlsCipherSuite(""));
}

TEST(TlsCipherSuitesTest, TheFirstUnknownNameIsKubesError) {
  EXPECT_EQ(CheckTlsCipherSuites({}), std::nullopt);
  EXPECT_EQ(CheckTlsCipherSuites({"TLS_RSA_WITH_RC4_128_SHA", "TLS_AES_256_GCM_SHA384"}), std::nullopt);
  EXPECT_EQ(CheckTlsCipherSuites({"TLS_AES_256_GCM_SHA384", "nope", "worse"}),
            "Cipher suite nope not supported or doesn't exist");
}

TEST(TlsCipherSuitesTest, TheOpenSslListLeavesOutTls13AndRepeats) {
  EXPECT_EQ(OpenSslCipherList({"TLS_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
                               "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "TLS_RSA_WITH_AES_256_GCM_SHA384"}),
            (std::vector<std::string>{"ECDHE-RSA-CHACHA20-POLY1305", "AES256-GCM-SHA384"}));
  EXPECT_TRUE(OpenSslCipherList({"TLS_CHACHA20_POLY1305_SHA256"}).empty());
  // Go's defaults: ECDHE only, no CBC-SHA256.
  auto defaults = OpenSslCipherList({});
  ASSERT_EQ(defaults.size(), 10u);
  EXPECT_EQ(defaults.front(), "ECDHE-ECDSA-AES128-GCM-SHA256");
  for (const auto& c : defaults) {
    EXPECT_EQ(c.rfind("ECDHE-", 0), 0u) << c;
    EXPECT_FALSE(c.ends_with("-SHA256") && c.find("GCM") == std::string::npos) << c;
  }
}

}  // namespace
}  // namespace capstan::server
