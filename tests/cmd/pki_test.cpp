#include "cmd/pki.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include "cmd/temp_dir.h"

namespace capstan::cmd {
namespace {

using testing::FileMode;
using testing::ReadOrEmpty;
using testing::TempDir;
using std::chrono::hours;

const std::vector<std::string> kAllFiles = {
    "ca.crt",  "ca.key",  "apiserver.crt",      "apiserver.key",      "admin.crt",              "admin.key",
    "sa.key",  "sa.pub",  "front-proxy-ca.crt", "front-proxy-ca.key", "front-proxy-client.crt", "front-proxy-client.key"};

PkiOptions Options(const std::string& host = "node-a") {
  PkiOptions o;
  o.host_name = host;
  return o;
}

std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const std::string& f : kAllFiles) out[f] = ReadOrEmpty(dir + "/" + f);
  return out;
}

Certificate LoadCert(const std::string& path) {
  StatusOr<std::vector<Certificate>> certs = LoadCertificatesFile(path);
  EXPECT_TRUE(certs.ok()) << certs.status().message();
  return certs.ok() ? std::move(certs->front()) : Certificate();
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(EnsurePki, CreatesEveryFileWithPrivateModes) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  StatusOr<Pki> pki = EnsurePki(dir, Options());
  ASSERT_TRUE(pki.ok()) << pki.status().message();
  EXPECT_EQ(FileMode(dir), 0700u);
  for (const std::string& f : kAllFiles) {
    ASSERT_TRUE(std::filesystem::exists(dir + "/" + f)) << f;
    if (f.ends_with(".key")) EXPECT_EQ(FileMode(dir + "/" + f), 0600u) << f;
  }
  EXPECT_EQ(pki->written.size(), kAllFiles.size());
  // No temp files left behind by the atomic writes.
  size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    (void)e;
    ++entries;
  }
  EXPECT_EQ(entries, kAllFiles.size());
  EXPECT_EQ(pki->ca_cert_pem, ReadOrEmpty(pki->ca_cert_file));
  EXPECT_EQ(pki->admin_cert_pem, ReadOrEmpty(pki->admin_cert_file));
  EXPECT_EQ(pki->admin_key_pem, ReadOrEmpty(pki->admin_key_file));
}

TEST(EnsurePki, SecondStartReusesEveryFileByteForByte) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  ASSERT_TRUE(EnsurePki(dir, Options()).ok());
  auto before = Snapshot(dir);
  StatusOr<Pki> again = EnsurePki(dir, Options());
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_TRUE(again->written.empty());
  EXPECT_EQ(Snapshot(dir), before);
  EXPECT_EQ(again->admin_key_pem, before["admin.key"]);
}

TEST(EnsurePki, RegeneratesOnlyWhatIsMissing) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  ASSERT_TRUE(EnsurePki(dir, Options()).ok());
  auto before = Snapshot(dir);
  std::filesystem::remove(dir + "/admin.crt");
  std::filesystem::remove(dir + "/admin.key");
  std::filesystem::remove(dir + "/sa.pub");
  StatusOr<Pki> again = EnsurePki(dir, Options());
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->written, (std::vector<std::string>{"admin.crt", "admin.key", "sa.pub"}));
  auto after = Snapshot(dir);
  for (const std::string& f : kAllFiles) {
    if (f == "admin.crt" || f == "admin.key") {
      EXPECT_NE(after[f], before[f]) << f;
    } else {
      EXPECT_EQ(after[f], before[f]) << f;  // sa.pub is derived from the same sa.key
    }
  }
  EXPECT_EQ(FileMode(dir + "/admin.key"), 0600u);
}

TEST(EnsurePki, LoosenedKeyModeIsTightenedAgain) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  ASSERT_TRUE(EnsurePki(dir, Options()).ok());
  chmod((dir + "/ca.key").c_str(), 0644);
  chmod(dir.c_str(), 0755);
  ASSERT_TRUE(EnsurePki(dir, Options()).ok());
  EXPECT_EQ(FileMode(dir + "/ca.key"), 0600u);
  EXPECT_EQ(FileMode(dir), 0700u);
}

TEST(EnsurePki, CorruptCaIsAnErrorNamingTheFile) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  ASSERT_TRUE(EnsurePki(dir, Options()).ok());
  ASSERT_TRUE(WriteFileAtomic(dir + "/ca.crt", "-----BEGIN CERTIFICATE-----\nnot base64 !!\n-----END CERTIFICATE-----\n",
                              0644)
                  .ok());
  StatusOr<Pki> again = EnsurePki(dir, Options());
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find(dir + "/ca.crt"), std::string::npos) << again.status().message();

  ASSERT_TRUE(WriteFileAtomic(dir + "/ca.crt", "", 0644).ok());
  again = EnsurePki(dir, Options());
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("no certificate found"), std::string::npos) << again.status().message();
}

TEST(EnsurePki, CorruptKeyAndMismatchedKeyAreErrors) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  ASSERT_TRUE(EnsurePki(dir, Options()).ok());
  ASSERT_TRUE(WriteFileAtomic(dir + "/sa.key", "garbage", 0600).ok());
  StatusOr<Pki> again = EnsurePki(dir, Options());
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("sa.key"), std::string::npos) << again.status().message();

  TempDir tmp2;
  std::string dir2 = tmp2.Sub("pki");
  ASSERT_TRUE(EnsurePki(dir2, Options()).ok());
  // The front-proxy CA key does not belong to the cluster CA certificate.
  std::filesystem::copy_file(dir2 + "/front-proxy-ca.key", dir2 + "/ca.key",
                             std::filesystem::copy_options::overwrite_existing);
  again = EnsurePki(dir2, Options());
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("does not hold the private key"), std::string::npos)
      << again.status().message();
}

TEST(EnsurePki, HalfAPairIsAnError) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  ASSERT_TRUE(EnsurePki(dir, Options()).ok());
  std::filesystem::remove(dir + "/admin.crt");
  StatusOr<Pki> again = EnsurePki(dir, Options());
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("admin.crt is missing"), std::string::npos) << again.status().message();
}

TEST(EnsurePki, UnreadableFolderIsAnError) {
  TempDir tmp;
  std::string blocker = tmp.Sub("file");
  ASSERT_TRUE(WriteFileAtomic(blocker, "x", 0644).ok());
  StatusOr<Pki> pki = EnsurePki(blocker + "/pki", Options());
  ASSERT_FALSE(pki.ok());
  EXPECT_NE(pki.status().message().find(blocker), std::string::npos) << pki.status().message();
}

TEST(EnsurePki, ServingCertificateCoversEveryName) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  PkiOptions o = Options("Node-A.example.com");
  o.extra_sans = {"api.example.com", "192.168.7.9"};
  StatusOr<Pki> pki = EnsurePki(dir, o);
  ASSERT_TRUE(pki.ok()) << pki.status().message();
  Certificate cert = LoadCert(pki->serving_cert_file);
  ASSERT_TRUE(cert);
  CertInfo info = InspectCertificate(*cert);
  for (const char* name : {"localhost", "node-a.example.com", "kubernetes", "kubernetes.default",
                           "kubernetes.default.svc", "kubernetes.default.svc.cluster.local", "api.example.com"}) {
    EXPECT_TRUE(Contains(info.dns_names, name)) << name;
  }
  for (const char* ip : {"127.0.0.1", "::1", "10.0.0.1", "192.168.7.9"}) EXPECT_TRUE(Contains(info.ip_addresses, ip)) << ip;
  EXPECT_TRUE(info.server_auth);
  EXPECT_FALSE(info.client_auth);
  EXPECT_FALSE(info.is_ca);
}

TEST(EnsurePki, ServiceRangeGivesTheServiceIp) {
  PkiOptions o = Options();
  o.service_cluster_ip_range = "10.96.0.0/12,fd00:10:96::/108";
  StatusOr<ServingNames> names = RequiredServingNames(o);
  ASSERT_TRUE(names.ok()) << names.status().message();
  EXPECT_TRUE(Contains(names->ip_addresses, "10.96.0.1"));
  EXPECT_TRUE(Contains(names->ip_addresses, "fd00:10:96::1"));

  o.service_cluster_ip_range = "10.0.0.0/33";
  EXPECT_FALSE(RequiredServingNames(o).ok());
  o.service_cluster_ip_range = "banana";
  EXPECT_FALSE(RequiredServingNames(o).ok());
}

TEST(EnsurePki, ServingCertificateIsReissuedWhenTheHostChanges) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  ASSERT_TRUE(EnsurePki(dir, Options("node-a")).ok());
  auto before = Snapshot(dir);
  StatusOr<Pki> again = EnsurePki(dir, Options("node-b"));
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->written, (std::vector<std::string>{"apiserver.crt", "apiserver.key"}));
  auto after = Snapshot(dir);
  EXPECT_NE(after["apiserver.crt"], before["apiserver.crt"]);
  EXPECT_EQ(after["ca.crt"], before["ca.crt"]);
  EXPECT_EQ(after["admin.crt"], before["admin.crt"]);
  Certificate cert = LoadCert(dir + "/apiserver.crt");
  EXPECT_TRUE(Contains(InspectCertificate(*cert).dns_names, "node-b"));
}

TEST(EnsurePki, LeavesAreReissuedWhenTheCaIsReplaced) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  ASSERT_TRUE(EnsurePki(dir, Options()).ok());
  auto before = Snapshot(dir);
  std::filesystem::remove(dir + "/ca.crt");
  std::filesystem::remove(dir + "/ca.key");
  StatusOr<Pki> again = EnsurePki(dir, Options());
  ASSERT_TRUE(again.ok()) << again.status().message();
  auto after = Snapshot(dir);
  EXPECT_NE(after["apiserver.crt"], before["apiserver.crt"]);
  EXPECT_NE(after["admin.crt"], before["admin.crt"]);
  EXPECT_EQ(after["front-proxy-client.crt"], before["front-proxy-client.crt"]);  // other CA
  EXPECT_EQ(after["sa.key"], before["sa.key"]);
}

TEST(EnsurePki, AdminAndFrontProxyIdentities) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  StatusOr<Pki> pki = EnsurePki(dir, Options());
  ASSERT_TRUE(pki.ok());
  Certificate admin = LoadCert(pki->admin_cert_file);
  CertInfo info = InspectCertificate(*admin);
  EXPECT_EQ(info.common_name, "kubernetes-admin");
  EXPECT_EQ(info.organizations, (std::vector<std::string>{"system:masters"}));
  EXPECT_TRUE(info.client_auth);
  EXPECT_FALSE(info.server_auth);

  Certificate fp = LoadCert(pki->front_proxy_client_cert_file);
  EXPECT_EQ(InspectCertificate(*fp).common_name, "front-proxy-client");

  StatusOr<CertPool> cluster = CertPool::FromFile(pki->ca_cert_file);
  StatusOr<CertPool> front = CertPool::FromFile(pki->front_proxy_ca_cert_file);
  ASSERT_TRUE(cluster.ok() && front.ok());
  auto now = std::chrono::system_clock::now();
  EXPECT_TRUE(cluster->VerifyClient(*admin, {}, now).ok());
  EXPECT_TRUE(front->VerifyClient(*fp, {}, now).ok());
  EXPECT_EQ(cluster->VerifyClient(*fp, {}, now).failure, VerifyFailure::kUnknownAuthority);
}

TEST(EnsurePki, ValidityPeriods) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  auto now = std::chrono::system_clock::now();
  ASSERT_TRUE(EnsurePki(dir, Options()).ok());
  CertInfo ca = InspectCertificate(*LoadCert(dir + "/ca.crt"));
  CertInfo leaf = InspectCertificate(*LoadCert(dir + "/apiserver.crt"));
  EXPECT_TRUE(ca.is_ca);
  EXPECT_NEAR(std::chrono::duration_cast<hours>(ca.not_after - now).count(), 10 * 365 * 24, 48);
  EXPECT_NEAR(std::chrono::duration_cast<hours>(leaf.not_after - now).count(), 365 * 24, 48);
  EXPECT_LE(leaf.not_before, now);
}

TEST(EnsurePki, ServiceAccountKeyPair) {
  TempDir tmp;
  std::string dir = tmp.Sub("pki");
  ASSERT_TRUE(EnsurePki(dir, Options()).ok());
  StatusOr<PrivateKey> key = LoadPrivateKeyFile(dir + "/sa.key");
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(EVP_PKEY_get_base_id(key->get()), EVP_PKEY_RSA);
  EXPECT_EQ(EVP_PKEY_get_bits(key->get()), 2048);
  StatusOr<std::string> pub = PublicKeyToPem(**key);
  ASSERT_TRUE(pub.ok());
  EXPECT_EQ(*pub, ReadOrEmpty(dir + "/sa.pub"));
  EXPECT_TRUE(pub->starts_with("-----BEGIN PUBLIC KEY-----"));
}

class ChainVerification : public ::testing::Test {
 protected:
  void SetUp() override {
    now_ = std::chrono::system_clock::now();
    StatusOr<CertAndKey> ca = CreateSelfSignedCa("test-ca", now_);
    ASSERT_TRUE(ca.ok()) << ca.status().message();
    ca_ = std::move(*ca);
    StatusOr<CertPool> pool = CertPool::FromPem(CertificateToPem(*ca_.cert), "test bundle");
    ASSERT_TRUE(pool.ok()) << pool.status().message();
    pool_ = std::move(*pool);
  }

  CertAndKey Client(const CertAndKey& ca, TimePoint not_before, TimePoint not_after, bool client_auth = true) {
    CertSpec spec;
    spec.common_name = "jane";
    spec.organizations = {"dev", "ops"};
    spec.client_auth = client_auth;
    spec.server_auth = !client_auth;
    spec.not_before = not_before;
    spec.not_after = not_after;
    StatusOr<CertAndKey> c = IssueCertAndKey(spec, ca);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return std::move(*c);
  }

  TimePoint now_;
  CertAndKey ca_;
  CertPool pool_;
};

TEST_F(ChainVerification, AcceptsOurClientAndReturnsItsIdentity) {
  CertAndKey c = Client(ca_, now_ - hours(1), now_ + hours(1));
  ClientChainResult r = pool_.VerifyClient(*c.cert, {}, now_);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(r.common_name, "jane");
  EXPECT_EQ(r.organizations, (std::vector<std::string>{"dev", "ops"}));
}

TEST_F(ChainVerification, RejectsAnotherCa) {
  StatusOr<CertAndKey> other = CreateSelfSignedCa("test-ca", now_);  // same name, different key
  ASSERT_TRUE(other.ok());
  CertAndKey c = Client(*other, now_ - hours(1), now_ + hours(1));
  ClientChainResult r = pool_.VerifyClient(*c.cert, {}, now_);
  EXPECT_EQ(r.failure, VerifyFailure::kUnknownAuthority);
  EXPECT_EQ(r.message, "x509: certificate signed by unknown authority");
  EXPECT_TRUE(r.common_name.empty());
}

TEST_F(ChainVerification, RejectsAnExpiredCertificate) {
  CertAndKey c = Client(ca_, now_ - hours(48), now_ - hours(24));
  ClientChainResult r = pool_.VerifyClient(*c.cert, {}, now_);
  EXPECT_EQ(r.failure, VerifyFailure::kExpired);
  EXPECT_TRUE(r.message.starts_with("x509: certificate has expired or is not yet valid: current time "))
      << r.message;
  EXPECT_NE(r.message.find(" is after "), std::string::npos) << r.message;
}

TEST_F(ChainVerification, ExpiredFromAnUnknownCaReportsExpiredAsGoDoes) {
  StatusOr<CertAndKey> other = CreateSelfSignedCa("other", now_);
  ASSERT_TRUE(other.ok());
  CertAndKey c = Client(*other, now_ - hours(48), now_ - hours(24));
  EXPECT_EQ(pool_.VerifyClient(*c.cert, {}, now_).failure, VerifyFailure::kExpired);
}

TEST_F(ChainVerification, RejectsANotYetValidCertificate) {
  CertAndKey c = Client(ca_, now_ + hours(24), now_ + hours(48));
  ClientChainResult r = pool_.VerifyClient(*c.cert, {}, now_);
  EXPECT_EQ(r.failure, VerifyFailure::kNotYetValid);
  EXPECT_NE(r.message.find(" is before "), std::string::npos) << r.message;
}

TEST_F(ChainVerification, RejectsAServerOnlyCertificate) {
  CertAndKey c = Client(ca_, now_ - hours(1), now_ + hours(1), /*client_auth=*/false);
  ClientChainResult r = pool_.VerifyClient(*c.cert, {}, now_);
  EXPECT_EQ(r.failure, VerifyFailure::kIncompatibleUsage);
  EXPECT_EQ(r.message, "x509: certificate specifies an incompatible key usage");
}

TEST_F(ChainVerification, UsesIntermediatesTheClientSends) {
  CertSpec inter_spec;
  inter_spec.common_name = "intermediate";
  inter_spec.is_ca = true;
  SetValidity(inter_spec, now_, hours(24));
  StatusOr<CertAndKey> inter = IssueCertAndKey(inter_spec, ca_);
  ASSERT_TRUE(inter.ok()) << inter.status().message();
  CertAndKey c = Client(*inter, now_ - hours(1), now_ + hours(1));
  EXPECT_EQ(pool_.VerifyClient(*c.cert, {}, now_).failure, VerifyFailure::kUnknownAuthority);
  ClientChainResult r = pool_.VerifyClient(*c.cert, {inter->cert.get()}, now_);
  EXPECT_TRUE(r.ok()) << r.message;
}

TEST_F(ChainVerification, TimeIsTheCallersNow) {
  CertAndKey c = Client(ca_, now_ - hours(1), now_ + hours(1));
  EXPECT_TRUE(pool_.VerifyClient(*c.cert, {}, now_).ok());
  EXPECT_EQ(pool_.VerifyClient(*c.cert, {}, now_ + hours(2)).failure, VerifyFailure::kExpired);
}

TEST(Pem, RoundTripsAndRejectsGarbage) {
  auto now = std::chrono::system_clock::now();
  StatusOr<CertAndKey> ca = CreateSelfSignedCa("pem", now);
  ASSERT_TRUE(ca.ok());
  std::string cert_pem = CertificateToPem(*ca->cert);
  std::string key_pem = PrivateKeyToPem(*ca->key);
  StatusOr<std::vector<Certificate>> certs = ParseCertificatesPem(cert_pem + cert_pem, "two");
  ASSERT_TRUE(certs.ok());
  EXPECT_EQ(certs->size(), 2u);
  StatusOr<PrivateKey> key = ParsePrivateKeyPem(key_pem, "key");
  ASSERT_TRUE(key.ok());
  EXPECT_TRUE(KeyMatchesCertificate(*certs->front(), **key));

  StatusOr<std::vector<Certificate>> bad = ParseCertificatesPem("hello", "field x");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().message().starts_with("field x: ")) << bad.status().message();
  EXPECT_FALSE(ParsePrivateKeyPem(cert_pem, "not a key").ok());
  EXPECT_FALSE(CertPool::FromPem("", "empty").ok());
  EXPECT_FALSE(CertPool::FromFile("/nonexistent/ca.crt").ok());
}

TEST(Pem, NormalizeIp) {
  EXPECT_EQ(NormalizeIp("::1"), "::1");
  EXPECT_EQ(NormalizeIp("0:0:0:0:0:0:0:1"), "::1");
  EXPECT_EQ(NormalizeIp("::ffff:10.0.0.1"), "10.0.0.1");
  EXPECT_EQ(NormalizeIp("10.0.0.1"), "10.0.0.1");
  EXPECT_EQ(NormalizeIp("host"), "");
}

}  // namespace
}  // namespace capstan::cmd
