#include "server/serving_certificates.h"

#include <gtest/gtest.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <fstream>

#include "cmd/pki.h"

namespace capstan::server {
namespace {

TEST(SniNamesTest, TheCertificatesNamesAsGoTakesThem) {
  EXPECT_EQ(CertificateSniNames("a.example.com", {"b.example.com", "*.c.example.com"}),
            (std::vector<std::string>{"a.example.com", "b.example.com", "*.c.example.com"}));
  EXPECT_EQ(CertificateSniNames("*.example.com", {}), (std::vector<std::string>{"*.example.com"}));
  EXPECT_EQ(CertificateSniNames("*", {}), (std::vector<std::string>{"*"}));
  // An IP, a name with spaces or capitals is not a DNS-1123 subdomain: the SANs only.
  EXPECT_EQ(CertificateSniNames("10.0.0.1", {"x.example.com"}), (std::vector<std::string>{"x.example.com"}));
  EXPECT_EQ(CertificateSniNames("kube apiserver", {}), std::vector<std::string>{});
  EXPECT_EQ(CertificateSniNames("Upper.example.com", {}), std::vector<std::string>{});
  EXPECT_EQ(CertificateSniNames("", {"y"}), (std::vector<std::string>{"y"}));
}

TEST(SniNamesTest, ExplicitNamesAndEarlierPairsWin) {
  std::vector<SniNames> pairs = {
      {{}, {"a.example.com", "shared.example.com"}},
      {{"a.example.com"}, {"ignored.example.com"}},  // explicit: its certificate's names are not used
      {{}, {"shared.example.com", "c.example.com"}},
      {{"x.example.com"}, {}},
      {{"x.example.com"}, {}},
  };
  auto m = BuildSniNameMap(pairs);
  EXPECT_EQ(m.at("a.example.com"), 1u);
  EXPECT_EQ(m.at("shared.example.com"), 0u);
  EXPECT_EQ(m.at("c.example.com"), 2u);
  EXPECT_EQ(m.at("x.example.com"), 3u);
  EXPECT_FALSE(m.count("ignored.example.com"));
}

TEST(SniNamesTest, LookupIsExactThenFirstLabelWildcard) {
  std::map<std::string, size_t> m = {{"a.example.com", 1}, {"*.example.com", 2}, {"*.deep.example.com", 3}};
  EXPECT_EQ(LookupSniName(m, "a.example.com"), 1u);
  EXPECT_EQ(LookupSniName(m, "A.EXAMPLE.com"), 1u);
  EXPECT_EQ(LookupSniName(m, "b.example.com"), 2u);
  EXPECT_EQ(LookupSniName(m, "x.deep.example.com"), 3u);
  EXPECT_EQ(LookupSniName(m, "x.y.example.com"), std::nullopt) << "a wildcard covers one label";
  EXPECT_EQ(LookupSniName(m, "example.com"), std::nullopt);
  EXPECT_EQ(LookupSniName(m, ""), std::nullopt);
}

// --- Load, Apply and Reload on real files

class ServingCertificatesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("serving-certs-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    auto ca = cmd::CreateSelfSignedCa("test-ca", std::chrono::system_clock::now());
    ASSERT_TRUE(ca.ok());
    ca_ = std::move(*ca);
    ctx_ = SSL_CTX_new(TLS_server_method());
  }
  void TearDown() override {
    SSL_CTX_free(ctx_);
    std::filesystem::remove_all(dir_);
  }
  // Writes <name>.crt/.key for a certificate with CN `cn` and DNS names.
  void Pair(const std::string& name, const std::string& cn, std::vector<std::string> dns = {}) {
    cmd::CertSpec spec;
    spec.common_name = cn;
    spec.dns_names = std::move(dns);
    spec.server_auth = true;
    cmd::SetValidity(spec, std::chrono::system_clock::now(), std::chrono::hours(1));
    auto ck = cmd::IssueCertAndKey(spec, ca_);
    ASSERT_TRUE(ck.ok());
    std::ofstream(Path(name + ".crt")) << cmd::CertificateToPem(*ck->cert);
    std::ofstream(Path(name + ".key")) << cmd::PrivateKeyToPem(*ck->key);
  }
  std::string Path(const std::string& file) const { return (dir_ / file).string(); }
  CertKeyFiles Files(const std::string& name, std::vector<std::string> names = {}) const {
    return {Path(name + ".crt"), Path(name + ".key"), std::move(names)};
  }
  // The CN of the certificate Apply hands a connection asking for `server_name`.
  std::string Served(const ServingCertificates& c, const std::string& server_name) {
    SSL* ssl = SSL_new(ctx_);
    if (!server_name.empty()) SSL_set_tlsext_host_name(ssl, server_name.c_str());
    std::string cn = "(none)";
    if (c.Apply(ssl)) {
      if (X509* x = SSL_get_certificate(ssl)) {
        char buf[256] = {};
        X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, buf, sizeof buf);
        cn = buf;
      }
    }
    SSL_free(ssl);
    return cn;
  }

  std::filesystem::path dir_;
  cmd::CertAndKey ca_;
  SSL_CTX* ctx_ = nullptr;
};

TEST_F(ServingCertificatesTest, ChoosesByNameAndFallsBackToAValidOrTheDefaultPair) {
  Pair("default", "default.example.com", {"default.example.com"});
  Pair("a", "a.example.com", {"a.example.com", "*.wild.example.com"});
  Pair("b", "b", {"b.example.com"});
  ServingCertificates::Config config;
  config.serving = Files("default");
  config.sni = {Files("a"), Files("b", {"named.example.com"})};
  auto c = ServingCertificates::Load(config);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(Served(**c, "a.example.com"), "a.example.com");
  EXPECT_EQ(Served(**c, "x.wild.example.com"), "a.example.com");
  EXPECT_EQ(Served(**c, "named.example.com"), "b");
  // Not in the map (b's explicit names replace its own), but b's certificate is valid for it.
  EXPECT_EQ(Served(**c, "b.example.com"), "b");
  EXPECT_EQ(Served(**c, "other.example.org"), "default.example.com");
  EXPECT_EQ(Served(**c, ""), "default.example.com");
}

TEST_F(ServingCertificatesTest, ReloadTakesNewContentAndKeepsTheOldOnError) {
  Pair("default", "one");
  ServingCertificates::Config config;
  config.serving = Files("default");
  auto loaded = ServingCertificates::Load(config);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  ServingCertificates& c = **loaded;
  EXPECT_FALSE(c.Reload()) << "nothing changed";
  Pair("default", "two");
  EXPECT_TRUE(c.Reload());
  EXPECT_EQ(Served(c, ""), "two");
  // A key that is not the certificate's, then an empty file: "two" stays.
  Pair("other", "three");
  std::filesystem::copy_file(Path("other.key"), Path("default.key"), std::filesystem::copy_options::overwrite_existing);
  EXPECT_FALSE(c.Reload());
  EXPECT_EQ(Served(c, ""), "two");
  std::ofstream(Path("default.crt"), std::ios::trunc).close();
  EXPECT_FALSE(c.Reload());
  EXPECT_EQ(Served(c, ""), "two");
  std::filesystem::copy_file(Path("other.crt"), Path("default.crt"), std::filesystem::copy_options::overwrite_existing);
  EXPECT_TRUE(c.Reload()) << "a consistent pair again";
  EXPECT_EQ(Served(c, ""), "three");
}

TEST_F(ServingCertificatesTest, ClientCaChangesReachTheListeners) {
  Pair("default", "one");
  std::ofstream(Path("ca.crt")) << cmd::CertificateToPem(*ca_.cert);
  ServingCertificates::Config config;
  config.serving = Files("default");
  config.client_ca_files = {Path("ca.crt")};
  auto loaded = ServingCertificates::Load(config);
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  std::vector<std::pair<size_t, std::string>> seen;
  (*loaded)->OnClientCaChange([&](size_t i, const std::string& pem) { seen.emplace_back(i, pem); });
  auto other = cmd::CreateSelfSignedCa("other-ca", std::chrono::system_clock::now());
  ASSERT_TRUE(other.ok());
  std::string pem = cmd::CertificateToPem(*other->cert);
  std::ofstream(Path("ca.crt"), std::ios::trunc) << "garbage";
  EXPECT_FALSE((*loaded)->Reload());
  EXPECT_TRUE(seen.empty());
  std::ofstream(Path("ca.crt"), std::ios::trunc) << pem;
  EXPECT_TRUE((*loaded)->Reload());
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].first, 0u);
  EXPECT_EQ(seen[0].second, pem);
}

TEST_F(ServingCertificatesTest, UnreadableFilesAreStartErrorsInKubesWords) {
  Pair("default", "one");
  ServingCertificates::Config config;
  config.serving = Files("default");
  config.sni = {Files("missing")};
  auto r = ServingCertificates::Load(config);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "failed to load SNI cert and key: open " + Path("missing.crt") + ": no such file or directory");
  config.sni.clear();
  config.serving = {Path("default.crt"), Path("missing.key"), {}};
  r = ServingCertificates::Load(config);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "open " + Path("missing.key") + ": no such file or directory");
}

}  // namespace
}  // namespace capstan::server
