// cmd/pki.h: the cluster's key material, made with OpenSSL's library API.
//
// EnsurePki() runs once at start. The first time it creates DATA/pki/ (mode 0700) with a cluster CA,
// the serving certificate, the admin client certificate, the service-account signing key pair, a
// front-proxy CA and the front-proxy client certificate. Later starts reuse what is there and
// regenerate only what is missing, no longer chains to its CA, has expired, or (for the serving
// certificate) no longer covers the names the server answers to. Every private key is written 0600,
// atomically (temp file + fsync + rename). Unreadable or corrupt files are errors, never crashes, and
// never silently replaced: a broken CA would orphan every certificate it signed.
//
// The building blocks are public because tests, the x509 authenticator and later features need them:
// key generation, a self-signed CA, issuing a certificate, PEM load/save, inspection, and verification
// of a client chain against a CA bundle with Go crypto/x509's failure wording.
//
// Thread-safety: free functions are thread-safe. A CertPool is immutable after construction and may be
// shared by any number of threads calling VerifyClient concurrently.
#pragma once

#include <openssl/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::cmd {

struct PrivateKeyDeleter {
  void operator()(EVP_PKEY* k) const;
};
struct CertificateDeleter {
  void operator()(X509* c) const;
};
using PrivateKey = std::unique_ptr<EVP_PKEY, PrivateKeyDeleter>;
using Certificate = std::unique_ptr<X509, CertificateDeleter>;

using TimePoint = std::chrono::system_clock::time_point;

enum class KeyType {
  kEcdsaP256,  // CA, serving and client certificates: small and fast to handshake
  kRsa2048,    // the service-account signing key (RS256 is what every JWT consumer accepts)
};

StatusOr<PrivateKey> GenerateKey(KeyType type);

// What a certificate says. Validity is [not_before, not_after]; tests pass a window in the past to get
// an expired certificate.
struct CertSpec {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;  // textual IPv4 or IPv6
  bool is_ca = false;
  bool server_auth = false;
  bool client_auth = false;
  TimePoint not_before;
  TimePoint not_after;
};

// A validity window starting a few minutes before `now` (tolerates clock skew between machines).
void SetValidity(CertSpec& spec, TimePoint now, std::chrono::seconds lifetime);

inline constexpr std::chrono::seconds kCaLifetime{10LL * 365 * 24 * 3600};
inline constexpr std::chrono::seconds kLeafLifetime{365LL * 24 * 3600};

struct CertAndKey {
  Certificate cert;
  PrivateKey key;
};

// A self-signed CA certificate (CA:TRUE, keyCertSign) with a fresh key.
StatusOr<CertAndKey> CreateSelfSignedCa(const std::string& common_name, TimePoint now,
                                        std::chrono::seconds lifetime = kCaLifetime,
                                        KeyType type = KeyType::kEcdsaP256);
// Signs `spec` for `subject_key` with the CA's key. A spec with is_ca=false gets digitalSignature
// (plus keyEncipherment for RSA) and the requested extended key usages.
StatusOr<Certificate> IssueCertificate(const CertSpec& spec, EVP_PKEY& subject_key, X509& issuer_cert,
                                       EVP_PKEY& issuer_key);
// A fresh key plus a certificate for it, signed by the CA.
StatusOr<CertAndKey> IssueCertAndKey(const CertSpec& spec, const CertAndKey& ca, KeyType type = KeyType::kEcdsaP256);

// PEM. Keys are written as PKCS#8 ("PRIVATE KEY"), public keys as PKIX ("PUBLIC KEY"); parsing accepts
// PKCS#8, PKCS#1 and SEC1. `source` names the file or field in error messages.
std::string CertificateToPem(X509& cert);
std::string PrivateKeyToPem(EVP_PKEY& key);
StatusOr<std::string> PublicKeyToPem(EVP_PKEY& key);
StatusOr<std::vector<Certificate>> ParseCertificatesPem(std::string_view pem, std::string_view source);
StatusOr<PrivateKey> ParsePrivateKeyPem(std::string_view pem, std::string_view source);

// Files. WriteFileAtomic writes a temp file in the same folder with `mode`, fsyncs it, renames it over
// `path` and fsyncs the folder, so a crash leaves either the old or the new content.
StatusOr<std::string> ReadFileToString(const std::string& path);
Status WriteFileAtomic(const std::string& path, std::string_view data, unsigned mode);
StatusOr<std::vector<Certificate>> LoadCertificatesFile(const std::string& path);
StatusOr<PrivateKey> LoadPrivateKeyFile(const std::string& path);

// Inspection.
struct CertInfo {
  std::string common_name;
  std::vector<std::string> organizations;
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;  // normalized text (inet_ntop)
  bool is_ca = false;
  bool server_auth = false;
  bool client_auth = false;
  TimePoint not_before;
  TimePoint not_after;
};
CertInfo InspectCertificate(X509& cert);
// True when the certificate's public key is the key's public half.
bool KeyMatchesCertificate(X509& cert, EVP_PKEY& key);
// Canonical text of an IP address ("::1", "10.0.0.1"), or "" when `ip` is not one.
std::string NormalizeIp(std::string_view ip);

// Verification of client certificates (the x509 authenticator's question).
enum class VerifyFailure {
  kNone,
  kUnknownAuthority,   // no chain to a root in the pool
  kExpired,            // now is after the NotAfter of a certificate in the chain
  kNotYetValid,        // now is before its NotBefore
  kIncompatibleUsage,  // the chain does not allow client authentication
  kInvalid,            // anything else (bad signature, malformed extensions, ...)
};

struct ClientChainResult {
  VerifyFailure failure = VerifyFailure::kNone;
  std::string message;  // Go crypto/x509's text, e.g. "x509: certificate signed by unknown authority"
  std::string common_name;
  std::vector<std::string> organizations;
  bool ok() const { return failure == VerifyFailure::kNone; }
};

class CertPool {
 public:
  // Every CERTIFICATE block of the bundle becomes a trusted root. An empty bundle is an error.
  static StatusOr<CertPool> FromPem(std::string_view pem, std::string_view source);
  static StatusOr<CertPool> FromFile(const std::string& path);

  size_t size() const { return size_; }
  // Verifies `leaf` (plus the untrusted intermediates the client sent) for client authentication at
  // `now`, as Go's Certificate.Verify with ExtKeyUsageClientAuth does, and returns the leaf's CN and O.
  ClientChainResult VerifyClient(X509& leaf, const std::vector<X509*>& intermediates, TimePoint now) const;

 private:
  struct StoreDeleter {
    void operator()(X509_STORE* s) const;
  };
  std::shared_ptr<X509_STORE> store_;
  size_t size_ = 0;
};

// The generated layout, and what EnsurePki is asked for.
struct PkiOptions {
  std::string host_name;                                // "" = gethostname()
  std::string service_cluster_ip_range = "10.0.0.0/24";  // comma list allowed (dual stack)
  std::vector<std::string> extra_sans;                  // DNS names or IPs for the serving certificate
  TimePoint now;                                        // epoch = system clock now
};

struct Pki {
  std::string dir;
  std::string ca_cert_file, ca_key_file;
  std::string serving_cert_file, serving_key_file;
  std::string admin_cert_file, admin_key_file;
  std::string sa_key_file, sa_pub_file;
  std::string front_proxy_ca_cert_file, front_proxy_ca_key_file;
  std::string front_proxy_client_cert_file, front_proxy_client_key_file;
  // PEM the kubeconfig writer needs.
  std::string ca_cert_pem, admin_cert_pem, admin_key_pem;
  // Base names of the files written by this call (empty on a start that reused everything).
  std::vector<std::string> written;
};

// The names the serving certificate must cover for `options`.
struct ServingNames {
  std::vector<std::string> dns_names;
  std::vector<std::string> ip_addresses;
};
StatusOr<ServingNames> RequiredServingNames(const PkiOptions& options);

StatusOr<Pki> EnsurePki(const std::string& pki_dir, const PkiOptions& options);

}  // namespace capstan::cmd
