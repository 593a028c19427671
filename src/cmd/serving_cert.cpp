#include "cmd/serving_cert.h"

#include <openssl/pem.h>
#include <unistd.h>

#include <filesystem>

#include "util/strings.h"

namespace capstan::cmd {
namespace {

bool CanRead(const std::string& path) { return ::access(path.c_str(), R_OK) == 0; }

// certutil.CanReadCertAndKey: both readable, neither, or kube's pair error.
StatusOr<bool> CanReadCertAndKey(const std::string& cert, const std::string& key) {
  bool cert_ok = CanRead(cert), key_ok = CanRead(key);
  if (!cert_ok && !key_ok) return false;
  if (!cert_ok) return Status(400, "BadRequest", "error reading " + cert + ", certificate and key must be supplied as a pair");
  if (!key_ok) return Status(400, "BadRequest", "error reading " + key + ", certificate and key must be supplied as a pair");
  return true;
}

// keyutil's "RSA PRIVATE KEY" block (PKCS#1), as kube writes the generated key.
StatusOr<std::string> RsaPkcs1Pem(EVP_PKEY& key) {
  BIO* bio = BIO_new(BIO_s_mem());
  if (bio == nullptr) return Status(500, "InternalError", "allocating a BIO");
  std::string out;
  if (PEM_write_bio_PrivateKey_traditional(bio, &key, nullptr, nullptr, 0, nullptr, nullptr) == 1) {
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    out.assign(data, static_cast<size_t>(n));
  }
  BIO_free(bio);
  if (out.empty()) return Status(500, "InternalError", "encoding the generated serving key");
  return out;
}

Status GenerateSelfSigned(const ServingCertOptions& o, const std::string& cert_file, const std::string& key_file) {
  TimePoint now = o.now == TimePoint{} ? std::chrono::system_clock::now() : o.now;
  // Valid from an hour ago (clock skew), for one year.
  TimePoint from = now - std::chrono::hours(1);
  TimePoint to = from + std::chrono::hours(24 * 365);
  long long unix = std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  const std::string host = o.public_address;

  ASSIGN_OR_RETURN(CertAndKey ca, CreateSelfSignedCa(host + "-ca@" + std::to_string(unix), now,
                                                    std::chrono::duration_cast<std::chrono::seconds>(to - now),
                                                    KeyType::kRsa2048));
  CertSpec spec;
  spec.common_name = host + "@" + std::to_string(unix);
  spec.server_auth = true;
  spec.not_before = from;
  spec.not_after = to;
  if (!NormalizeIp(host).empty()) {
    spec.ip_addresses.push_back(host);
  } else if (!host.empty()) {
    spec.dns_names.push_back(host);
  }
  if (!o.service_ip.empty()) spec.ip_addresses.push_back(o.service_ip);
  spec.dns_names.insert(spec.dns_names.end(), {"kubernetes.default.svc", "kubernetes.default", "kubernetes"});
  std::string bind = NormalizeIp(o.bind_address);
  if (bind.empty() || bind == "0.0.0.0" || bind == "::") {
    spec.dns_names.push_back("localhost");
  } else {
    spec.ip_addresses.push_back(bind);
  }
  ASSIGN_OR_RETURN(CertAndKey leaf, IssueCertAndKey(spec, ca, KeyType::kRsa2048));
  ASSIGN_OR_RETURN(std::string key_pem, RsaPkcs1Pem(*leaf.key));

  std::error_code ec;
  for (const std::string& f : {cert_file, key_file}) {
    std::filesystem::path parent = std::filesystem::path(f).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) return Status(500, "InternalError", "unable to generate self signed cert: " + ec.message());
  }
  RETURN_IF_ERROR(WriteFileAtomic(cert_file, CertificateToPem(*leaf.cert) + CertificateToPem(*ca.cert), 0644));
  RETURN_IF_ERROR(WriteFileAtomic(key_file, key_pem, 0600));
  return Status();
}

}  // namespace

StatusOr<std::optional<ServingCertFiles>> ResolveServingCert(const ServingCertOptions& o) {
  if (!o.tls_cert_file.empty() || !o.tls_private_key_file.empty()) {
    return std::optional<ServingCertFiles>(ServingCertFiles{o.tls_cert_file, o.tls_private_key_file, false});
  }
  if (!o.cert_dir) return std::optional<ServingCertFiles>();
  // kube generates an in-memory pair for an empty --cert-dir; Capstan's own PKI is that here.
  if (o.cert_dir->empty()) return std::optional<ServingCertFiles>();
  ServingCertFiles files;
  files.cert_file = (std::filesystem::path(*o.cert_dir) / "apiserver.crt").string();
  files.key_file = (std::filesystem::path(*o.cert_dir) / "apiserver.key").string();
  ASSIGN_OR_RETURN(bool readable, CanReadCertAndKey(files.cert_file, files.key_file));
  if (!readable) {
    Status st = GenerateSelfSigned(o, files.cert_file, files.key_file);
    if (!st.ok()) return Status(500, "InternalError", "error creating self-signed certificates: " + st.message());
    files.generated = true;
  }
  return std::optional<ServingCertFiles>(std::move(files));
}

}  // namespace capstan::cmd
