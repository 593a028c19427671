// EnsurePki: the DATA/pki/ layout, generated on first start and reused afterwards (see cmd/pki.h).
#include <arpa/inet.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

#include "cmd/pki.h"
#include "util/strings.h"

namespace capstan::cmd {
namespace {

constexpr unsigned kKeyMode = 0600;
constexpr unsigned kCertMode = 0644;

Status Internal(std::string msg) { return Status(500, "InternalError", std::move(msg)); }
Status Invalid(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }

bool Exists(const std::string& path, Status& error) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) return true;
  if (errno != ENOENT) error = Internal("checking " + path + ": " + strerror(errno));
  return false;
}

void AddUnique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// The first usable address of a CIDR ("10.0.0.0/24" -> "10.0.0.1"), as kube picks the IP of the
// `kubernetes` service.
StatusOr<std::string> FirstIpOfCidr(std::string_view cidr) {
  std::string s(TrimSpace(cidr));
  size_t slash = s.find('/');
  auto bad = [&](const char* why) {
    return Invalid("invalid service cluster IP range " + GoQuote(s) + ": " + why);
  };
  if (slash == std::string::npos) return bad("not in CIDR notation");
  std::string addr = s.substr(0, slash);
  std::string bits_text = s.substr(slash + 1);
  if (bits_text.empty() || bits_text.size() > 3 ||
      !std::all_of(bits_text.begin(), bits_text.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return bad("bad prefix length");
  }
  int bits = std::stoi(bits_text);
  unsigned char buf[16] = {};
  int family = AF_INET;
  size_t len = 4;
  if (inet_pton(AF_INET, addr.c_str(), buf) != 1) {
    if (inet_pton(AF_INET6, addr.c_str(), buf) != 1) return bad("not an IP address");
    family = AF_INET6;
    len = 16;
  }
  if (bits > static_cast<int>(len * 8)) return bad("bad prefix length");
  for (size_t i = 0; i < len; ++i) {
    int keep = std::clamp(bits - static_cast<int>(i * 8), 0, 8);
    buf[i] &= static_cast<unsigned char>(0xff << (8 - keep));
  }
  for (size_t i = len; i-- > 0;) {  // add one, with carry
    if (++buf[i] != 0) break;
  }
  char out[INET6_ADDRSTRLEN];
  return std::string(inet_ntop(family, buf, out, sizeof out));
}

// Loads a certificate/key pair. nullopt: both files are missing. Error: only one exists, either is
// unreadable or corrupt, or the key does not belong to the certificate.
StatusOr<std::optional<CertAndKey>> LoadPair(const std::string& cert_path, const std::string& key_path) {
  Status st;
  bool have_cert = Exists(cert_path, st);
  RETURN_IF_ERROR(st);
  bool have_key = Exists(key_path, st);
  RETURN_IF_ERROR(st);
  if (!have_cert && !have_key) return std::optional<CertAndKey>();
  if (have_cert != have_key) {
    const std::string& missing = have_cert ? key_path : cert_path;
    const std::string& present = have_cert ? cert_path : key_path;
    return Invalid(present + " exists but " + missing + " is missing; remove both to have them regenerated");
  }
  ASSIGN_OR_RETURN(std::vector<Certificate> certs, LoadCertificatesFile(cert_path));
  ASSIGN_OR_RETURN(PrivateKey key, LoadPrivateKeyFile(key_path));
  if (!KeyMatchesCertificate(*certs.front(), *key)) {
    return Invalid(key_path + " does not hold the private key of " + cert_path);
  }
  if (chmod(key_path.c_str(), kKeyMode) != 0) return Internal("chmod " + key_path + ": " + strerror(errno));
  return std::optional<CertAndKey>(CertAndKey{std::move(certs.front()), std::move(key)});
}

Status WritePair(const CertAndKey& pair, const std::string& cert_path, const std::string& key_path,
                 std::vector<std::string>& written) {
  // Key first: a crash in between leaves a key without its certificate, which LoadPair reports
  // instead of pairing a new certificate with a stale key.
  RETURN_IF_ERROR(WriteFileAtomic(key_path, PrivateKeyToPem(*pair.key), kKeyMode));
  RETURN_IF_ERROR(WriteFileAtomic(cert_path, CertificateToPem(*pair.cert), kCertMode));
  written.push_back(std::filesystem::path(cert_path).filename().string());
  written.push_back(std::filesystem::path(key_path).filename().string());
  return Status::Ok();
}

StatusOr<CertAndKey> EnsureCa(const std::string& common_name, const std::string& cert_path,
                              const std::string& key_path, TimePoint now, std::vector<std::string>& written) {
  ASSIGN_OR_RETURN(std::optional<CertAndKey> existing, LoadPair(cert_path, key_path));
  if (existing) {
    CertInfo info = InspectCertificate(*existing->cert);
    if (!info.is_ca) return Invalid(cert_path + " is not a CA certificate");
    if (now > info.not_after) {
      return Invalid(cert_path + " expired on " + std::to_string(std::chrono::system_clock::to_time_t(info.not_after)) +
                     " (unix time); replace it, or remove the pki folder to start a new cluster identity");
    }
    return std::move(*existing);
  }
  ASSIGN_OR_RETURN(CertAndKey ca, CreateSelfSignedCa(common_name, now));
  RETURN_IF_ERROR(WritePair(ca, cert_path, key_path, written));
  return ca;
}

bool SignedBy(X509& cert, X509& ca) {
  EVP_PKEY* ca_pub = X509_get0_pubkey(&ca);
  bool ok = ca_pub != nullptr && X509_check_issued(&ca, &cert) == X509_V_OK && X509_verify(&cert, ca_pub) == 1;
  ERR_clear_error();
  return ok;
}

bool Covers(const std::vector<std::string>& have, const std::vector<std::string>& want) {
  return std::all_of(want.begin(), want.end(),
                     [&](const std::string& w) { return std::find(have.begin(), have.end(), w) != have.end(); });
}

// A leaf is reused while it chains to `ca`, is within its validity window and still says what `spec`
// asks (names, usages, SANs); otherwise it is reissued with a fresh key.
Status EnsureLeaf(const CertSpec& spec, const CertAndKey& ca, const std::string& cert_path,
                  const std::string& key_path, TimePoint now, std::vector<std::string>& written,
                  std::string* cert_pem = nullptr, std::string* key_pem = nullptr) {
  ASSIGN_OR_RETURN(std::optional<CertAndKey> existing, LoadPair(cert_path, key_path));
  bool reuse = false;
  if (existing) {
    CertInfo info = InspectCertificate(*existing->cert);
    std::vector<std::string> want_ips;
    for (const std::string& ip : spec.ip_addresses) want_ips.push_back(NormalizeIp(ip));
    reuse = SignedBy(*existing->cert, *ca.cert) && now >= info.not_before && now <= info.not_after &&
            info.common_name == spec.common_name && info.organizations == spec.organizations &&
            info.server_auth == spec.server_auth && info.client_auth == spec.client_auth &&
            Covers(info.dns_names, spec.dns_names) && Covers(info.ip_addresses, want_ips);
  }
  if (reuse) {
    if (cert_pem) *cert_pem = CertificateToPem(*existing->cert);
    if (key_pem) *key_pem = PrivateKeyToPem(*existing->key);
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(CertAndKey fresh, IssueCertAndKey(spec, ca));
  RETURN_IF_ERROR(WritePair(fresh, cert_path, key_path, written));
  if (cert_pem) *cert_pem = CertificateToPem(*fresh.cert);
  if (key_pem) *key_pem = PrivateKeyToPem(*fresh.key);
  return Status::Ok();
}

Status EnsureServiceAccountKeys(const std::string& key_path, const std::string& pub_path,
                                std::vector<std::string>& written) {
  Status st;
  bool have_key = Exists(key_path, st);
  RETURN_IF_ERROR(st);
  PrivateKey key;
  if (have_key) {
    ASSIGN_OR_RETURN(key, LoadPrivateKeyFile(key_path));
    if (chmod(key_path.c_str(), kKeyMode) != 0) return Internal("chmod " + key_path + ": " + strerror(errno));
  } else {
    ASSIGN_OR_RETURN(key, GenerateKey(KeyType::kRsa2048));
    RETURN_IF_ERROR(WriteFileAtomic(key_path, PrivateKeyToPem(*key), kKeyMode));
    written.push_back(std::filesystem::path(key_path).filename().string());
  }
  ASSIGN_OR_RETURN(std::string want_pub, PublicKeyToPem(*key));
  bool have_pub = Exists(pub_path, st);
  RETURN_IF_ERROR(st);
  if (have_pub) {
    ASSIGN_OR_RETURN(std::string got_pub, ReadFileToString(pub_path));
    if (got_pub == want_pub) return Status::Ok();
  }
  RETURN_IF_ERROR(WriteFileAtomic(pub_path, want_pub, kCertMode));
  written.push_back(std::filesystem::path(pub_path).filename().string());
  return Status::Ok();
}

}  // namespace

StatusOr<ServingNames> RequiredServingNames(const PkiOptions& options) {
  ServingNames n;
  std::string host = options.host_name;
  if (host.empty()) {
    char buf[256] = {};
    if (gethostname(buf, sizeof buf - 1) == 0) host = buf;
  }
  for (const char* d : {"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
                        "kubernetes.default.svc.cluster.local"}) {
    AddUnique(n.dns_names, d);
  }
  AddUnique(n.ip_addresses, "127.0.0.1");
  AddUnique(n.ip_addresses, "::1");
  auto add_name = [&](const std::string& name) {
    std::string ip = NormalizeIp(name);
    if (!ip.empty()) {
      AddUnique(n.ip_addresses, ip);
    } else if (!name.empty()) {
      AddUnique(n.dns_names, ToLower(name));
    }
  };
  add_name(host);
  for (const std::string& cidr : Split(options.service_cluster_ip_range, ',')) {
    if (TrimSpace(cidr).empty()) continue;
    ASSIGN_OR_RETURN(std::string first, FirstIpOfCidr(cidr));
    AddUnique(n.ip_addresses, first);
  }
  for (const std::string& san : options.extra_sans) add_name(std::string(TrimSpace(san)));
  return n;
}

StatusOr<Pki> EnsurePki(const std::string& pki_dir, const PkiOptions& options) {
  TimePoint now = options.now == TimePoint() ? std::chrono::system_clock::now() : options.now;
  ASSIGN_OR_RETURN(ServingNames names, RequiredServingNames(options));

  std::error_code ec;
  std::filesystem::create_directories(pki_dir, ec);
  if (ec) return Internal("creating " + pki_dir + ": " + ec.message());
  if (chmod(pki_dir.c_str(), 0700) != 0) return Internal("chmod " + pki_dir + ": " + strerror(errno));

  Pki pki;
  pki.dir = pki_dir;
  auto at = [&](const char* name) { return (std::filesystem::path(pki_dir) / name).string(); };
  pki.ca_cert_file = at("ca.crt");
  pki.ca_key_file = at("ca.key");
  pki.serving_cert_file = at("apiserver.crt");
  pki.serving_key_file = at("apiserver.key");
  pki.admin_cert_file = at("admin.crt");
  pki.admin_key_file = at("admin.key");
  pki.sa_key_file = at("sa.key");
  pki.sa_pub_file = at("sa.pub");
  pki.front_proxy_ca_cert_file = at("front-proxy-ca.crt");
  pki.front_proxy_ca_key_file = at("front-proxy-ca.key");
  pki.front_proxy_client_cert_file = at("front-proxy-client.crt");
  pki.front_proxy_client_key_file = at("front-proxy-client.key");

  ASSIGN_OR_RETURN(CertAndKey ca, EnsureCa("capstan-ca", pki.ca_cert_file, pki.ca_key_file, now, pki.written));
  pki.ca_cert_pem = CertificateToPem(*ca.cert);

  CertSpec serving;
  serving.common_name = "kube-apiserver";
  serving.dns_names = names.dns_names;
  serving.ip_addresses = names.ip_addresses;
  serving.server_auth = true;
  SetValidity(serving, now, kLeafLifetime);
  RETURN_IF_ERROR(EnsureLeaf(serving, ca, pki.serving_cert_file, pki.serving_key_file, now, pki.written));

  CertSpec admin;
  admin.common_name = "kubernetes-admin";
  admin.organizations = {"system:masters"};
  admin.client_auth = true;
  SetValidity(admin, now, kLeafLifetime);
  RETURN_IF_ERROR(EnsureLeaf(admin, ca, pki.admin_cert_file, pki.admin_key_file, now, pki.written,
                             &pki.admin_cert_pem, &pki.admin_key_pem));

  RETURN_IF_ERROR(EnsureServiceAccountKeys(pki.sa_key_file, pki.sa_pub_file, pki.written));

  ASSIGN_OR_RETURN(CertAndKey front_proxy_ca, EnsureCa("capstan-front-proxy-ca", pki.front_proxy_ca_cert_file,
                                                       pki.front_proxy_ca_key_file, now, pki.written));
  CertSpec front_proxy_client;
  front_proxy_client.common_name = "front-proxy-client";
  front_proxy_client.client_auth = true;
  SetValidity(front_proxy_client, now, kLeafLifetime);
  RETURN_IF_ERROR(EnsureLeaf(front_proxy_client, front_proxy_ca, pki.front_proxy_client_cert_file,
                             pki.front_proxy_client_key_file, now, pki.written));
  return pki;
}

}  // namespace capstan::cmd
