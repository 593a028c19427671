#include "cmd/serving_cert.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>

#include "cmd/options.h"
#include "cmd/pki.h"
#include "temp_dir.h"

namespace capstan::cmd {
namespace {

using testing::TempDir;

bool Contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

ServingCertOptions Envtest(const std::string& dir) {
  ServingCertOptions o;
  o.cert_dir = dir;
  o.public_address = "127.0.0.1";
  o.bind_address = "127.0.0.1";
  o.service_ip = "10.0.0.1";
  return o;
}

TEST(ServingCertTest, NeitherFlagMeansCapstansOwnPki) {
  ServingCertOptions o;
  auto r = ResolveServingCert(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->has_value());
  o.cert_dir = "";  // kube: an empty --cert-dir generates in memory; Capstan's PKI stands for that
  r = ResolveServingCert(o);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST(ServingCertTest, TlsFlagsWinOverCertDir) {
  TempDir dir;
  ServingCertOptions o = Envtest(dir.path());
  o.tls_cert_file = "/x/serving.crt";
  o.tls_private_key_file = "/x/serving.key";
  auto r = ResolveServingCert(o);
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->cert_file, "/x/serving.crt");
  EXPECT_EQ((*r)->key_file, "/x/serving.key");
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("apiserver.crt")));
}

TEST(ServingCertTest, ExistingPairInCertDirIsServedUnchanged) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir.Sub("apiserver.crt"), "cert", 0644).ok());
  ASSERT_TRUE(WriteFileAtomic(dir.Sub("apiserver.key"), "key", 0600).ok());
  auto r = ResolveServingCert(Envtest(dir.path()));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_EQ((*r)->cert_file, dir.Sub("apiserver.crt"));
  EXPECT_EQ((*r)->key_file, dir.Sub("apiserver.key"));
  EXPECT_FALSE((*r)->generated);
  EXPECT_EQ(*ReadFileToString(dir.Sub("apiserver.crt")), "cert");
}

TEST(ServingCertTest, HalfAPairIsKubesError) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir.Sub("apiserver.crt"), "cert", 0644).ok());
  auto r = ResolveServingCert(Envtest(dir.path()));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "error reading " + dir.Sub("apiserver.key") + ", certificate and key must be supplied as a pair");
}

TEST(ServingCertTest, GeneratesKubesSelfSignedPairAndReusesIt) {
  TempDir dir;
  std::string certs = dir.Sub("certs");  // created when missing
  auto r = ResolveServingCert(Envtest(certs));
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->has_value());
  EXPECT_TRUE((*r)->generated);
  auto chain = LoadCertificatesFile(certs + "/apiserver.crt");
  ASSERT_TRUE(chain.ok()) << chain.status().message();
  ASSERT_EQ(chain->size(), 2u);  // the certificate, then its CA
  CertInfo leaf = InspectCertificate(*(*chain)[0]);
  CertInfo ca = InspectCertificate(*(*chain)[1]);
  EXPECT_EQ(leaf.common_name.rfind("127.0.0.1@", 0), 0u) << leaf.common_name;
  EXPECT_EQ(ca.common_name.rfind("127.0.0.1-ca@", 0), 0u) << ca.common_name;
  EXPECT_TRUE(ca.is_ca);
  EXPECT_FALSE(leaf.is_ca);
  EXPECT_TRUE(leaf.server_auth);
  EXPECT_TRUE(Contains(leaf.ip_addresses, "127.0.0.1"));
  EXPECT_TRUE(Contains(leaf.ip_addresses, "10.0.0.1"));
  for (const char* dns : {"kubernetes", "kubernetes.default", "kubernetes.default.svc"}) {
    EXPECT_TRUE(Contains(leaf.dns_names, dns)) << dns;
  }
  EXPECT_FALSE(Contains(leaf.dns_names, "localhost"));
  auto lifetime = std::chrono::duration_cast<std::chrono::hours>(leaf.not_after - leaf.not_before);
  EXPECT_EQ(lifetime.count(), 24 * 365);
  auto key_pem = ReadFileToString(certs + "/apiserver.key");
  ASSERT_TRUE(key_pem.ok());
  EXPECT_EQ(key_pem->rfind("-----BEGIN RSA PRIVATE KEY-----", 0), 0u);
  auto key = LoadPrivateKeyFile(certs + "/apiserver.key");
  ASSERT_TRUE(key.ok());
  EXPECT_TRUE(KeyMatchesCertificate(*(*chain)[0], **key));
  struct stat st {};
  ASSERT_EQ(::stat((certs + "/apiserver.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // The CA signed the certificate: a pool of the CA verifies it for serving.
  auto pool = CertPool::FromPem(CertificateToPem(*(*chain)[1]), "ca");
  ASSERT_TRUE(pool.ok());

  auto again = ResolveServingCert(Envtest(certs));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE((*again)->generated);
  EXPECT_EQ(*ReadFileToString(certs + "/apiserver.crt"), CertificateToPem(*(*chain)[0]) + CertificateToPem(*(*chain)[1]));
}

TEST(ServingCertTest, BindingEveryInterfaceAddsLocalhost) {
  TempDir dir;
  ServingCertOptions o = Envtest(dir.path());
  o.bind_address = "0.0.0.0";
  o.public_address = "192.0.2.7";
  auto r = ResolveServingCert(o);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto chain = LoadCertificatesFile(dir.Sub("apiserver.crt"));
  ASSERT_TRUE(chain.ok());
  CertInfo leaf = InspectCertificate(*(*chain)[0]);
  EXPECT_TRUE(Contains(leaf.dns_names, "localhost"));
  EXPECT_TRUE(Contains(leaf.ip_addresses, "192.0.2.7"));
  EXPECT_FALSE(Contains(leaf.ip_addresses, "0.0.0.0"));
}

TEST(ServingCertTest, CertDirFlagAndTheDataDirBesideIt) {
  auto p = ParseOptions({"--cert-dir=/tmp/envtest-123"});
  ASSERT_EQ(p.kind, ParseOutcome::Kind::kRun) << p.text;
  ASSERT_TRUE(p.options.cert_dir.has_value());
  EXPECT_EQ(*p.options.cert_dir, "/tmp/envtest-123");
  EXPECT_EQ(p.options.data_dir, "/tmp/envtest-123/capstan-data");
  EXPECT_TRUE(std::find(p.options.ignored.begin(), p.options.ignored.end(), "cert-dir") == p.options.ignored.end());
  p = ParseOptions({"--cert-dir", "/tmp/c", "--data-dir", "/var/lib/capstan"});
  ASSERT_EQ(p.kind, ParseOutcome::Kind::kRun) << p.text;
  EXPECT_EQ(p.options.data_dir, "/var/lib/capstan");
  p = ParseOptions({});
  EXPECT_FALSE(p.options.cert_dir.has_value());
  EXPECT_EQ(p.options.data_dir, "./capstan-data");
}

}  // namespace
}  // namespace capstan::cmd
