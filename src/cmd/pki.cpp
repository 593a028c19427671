#include "cmd/pki.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "util/strings.h"

namespace capstan::cmd {

void PrivateKeyDeleter::operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
void CertificateDeleter::operator()(X509* c) const { X509_free(c); }
void CertPool::StoreDeleter::operator()(X509_STORE* s) const { X509_STORE_free(s); }

namespace {

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
using Bio = std::unique_ptr<BIO, BioDeleter>;

Status Internal(std::string msg) { return Status(500, "InternalError", std::move(msg)); }
Status Invalid(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }

// The most recent OpenSSL error as text (and the queue cleared), for messages.
std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  std::string out;
  if (e != 0) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out = buf;
  }
  ERR_clear_error();
  return out.empty() ? "unknown OpenSSL error" : out;
}

Bio MemBio(std::string_view data) {
  return Bio(BIO_new_mem_buf(data.data(), static_cast<int>(data.size())));
}

std::string DrainBio(BIO* b) {
  char* p = nullptr;
  long n = BIO_get_mem_data(b, &p);
  return std::string(p, n > 0 ? static_cast<size_t>(n) : 0);
}

time_t ToTimeT(TimePoint t) { return std::chrono::system_clock::to_time_t(t); }

TimePoint FromAsn1(const ASN1_TIME* t) {
  struct tm tm {};
  if (t == nullptr || ASN1_TIME_to_tm(t, &tm) != 1) return TimePoint();
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

// Go's time.RFC3339 in UTC, as crypto/x509 prints validity errors.
std::string Rfc3339(TimePoint t) {
  time_t tt = ToTimeT(t);
  struct tm tm {};
  gmtime_r(&tt, &tm);
  char buf[32];
  strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bool AddExt(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  if (ext == nullptr) return false;
  int ok = X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  return ok == 1;
}

bool SetRandomSerial(X509* cert) {
  BIGNUM* bn = BN_new();
  bool ok = bn != nullptr && BN_rand(bn, 127, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
            BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)) != nullptr;
  BN_free(bn);
  return ok;
}

}  // namespace

std::string NormalizeIp(std::string_view ip) {
  std::string s(ip);
  unsigned char buf[16];
  char out[INET6_ADDRSTRLEN];
  if (inet_pton(AF_INET, s.c_str(), buf) == 1) return inet_ntop(AF_INET, buf, out, sizeof out);
  if (inet_pton(AF_INET6, s.c_str(), buf) == 1) {
    // An IPv4-mapped IPv6 address is the IPv4 address, as Go's net.IP treats it.
    static const unsigned char kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(buf, kMapped, 12) == 0) return inet_ntop(AF_INET, buf + 12, out, sizeof out);
    return inet_ntop(AF_INET6, buf, out, sizeof out);
  }
  return "";
}

StatusOr<PrivateKey> GenerateKey(KeyType type) {
  EVP_PKEY* raw = type == KeyType::kRsa2048 ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");
  if (raw == nullptr) return Internal("generating a private key: " + OpenSslError());
  return PrivateKey(raw);
}

void SetValidity(CertSpec& spec, TimePoint now, std::chrono::seconds lifetime) {
  spec.not_before = now - std::chrono::minutes(5);
  spec.not_after = now + lifetime;
}

StatusOr<Certificate> IssueCertificate(const CertSpec& spec, EVP_PKEY& subject_key, X509& issuer_cert,
                                       EVP_PKEY& issuer_key) {
  Certificate cert(X509_new());
  if (!cert) return Internal("allocating a certificate: " + OpenSslError());
  X509* c = cert.get();
  if (X509_set_version(c, 2) != 1 || !SetRandomSerial(c)) return Internal("certificate serial: " + OpenSslError());
  time_t not_before = ToTimeT(spec.not_before);
  time_t not_after = ToTimeT(spec.not_after);
  if (X509_time_adj_ex(X509_getm_notBefore(c), 0, 0, &not_before) == nullptr ||
      X509_time_adj_ex(X509_getm_notAfter(c), 0, 0, &not_after) == nullptr) {
    return Internal("certificate validity: " + OpenSslError());
  }
  X509_NAME* name = X509_get_subject_name(c);
  for (const std::string& o : spec.organizations) {
    X509_NAME_add_entry_by_NID(name, NID_organizationName, MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(o.c_str()), -1, -1, 0);
  }
  if (!spec.common_name.empty()) {
    X509_NAME_add_entry_by_NID(name, NID_commonName, MBSTRING_UTF8,
                               reinterpret_cast<const unsigned char*>(spec.common_name.c_str()), -1, -1, 0);
  }
  if (X509_set_issuer_name(c, X509_get_subject_name(&issuer_cert)) != 1 || X509_set_pubkey(c, &subject_key) != 1) {
    return Internal("certificate names: " + OpenSslError());
  }

  bool ok = true;
  if (spec.is_ca) {
    ok = ok && AddExt(c, &issuer_cert, NID_basic_constraints, "critical,CA:TRUE");
    ok = ok && AddExt(c, &issuer_cert, NID_key_usage, "critical,digitalSignature,keyEncipherment,keyCertSign");
  } else {
    ok = ok && AddExt(c, &issuer_cert, NID_basic_constraints, "critical,CA:FALSE");
    bool rsa = EVP_PKEY_get_base_id(&subject_key) == EVP_PKEY_RSA;
    ok = ok && AddExt(c, &issuer_cert, NID_key_usage,
                      rsa ? "critical,digitalSignature,keyEncipherment" : "critical,digitalSignature");
    std::vector<std::string> eku;
    if (spec.server_auth) eku.push_back("serverAuth");
    if (spec.client_auth) eku.push_back("clientAuth");
    if (!eku.empty()) ok = ok && AddExt(c, &issuer_cert, NID_ext_key_usage, Join(eku, ",").c_str());
  }
  ok = ok && AddExt(c, &issuer_cert, NID_subject_key_identifier, "hash");
  // A self-signed root is built from a template without a key id; it needs no authority key id.
  if (X509_get0_subject_key_id(&issuer_cert) != nullptr) {
    ok = ok && AddExt(c, &issuer_cert, NID_authority_key_identifier, "keyid:always");
  }
  std::vector<std::string> sans;
  for (const std::string& d : spec.dns_names) sans.push_back("DNS:" + d);
  for (const std::string& ip : spec.ip_addresses) {
    std::string n = NormalizeIp(ip);
    if (n.empty()) return Invalid("certificate SAN " + GoQuote(ip) + " is not an IP address");
    sans.push_back("IP:" + n);
  }
  if (!sans.empty()) ok = ok && AddExt(c, &issuer_cert, NID_subject_alt_name, Join(sans, ",").c_str());
  if (!ok) return Internal("certificate extensions: " + OpenSslError());
  if (X509_sign(c, &issuer_key, EVP_sha256()) <= 0) return Internal("signing a certificate: " + OpenSslError());
  return cert;
}

StatusOr<CertAndKey> CreateSelfSignedCa(const std::string& common_name, TimePoint now, std::chrono::seconds lifetime,
                                        KeyType type) {
  ASSIGN_OR_RETURN(PrivateKey key, GenerateKey(type));
  // A self-signed certificate is its own issuer: build a template with the subject first, then issue
  // "from" it so the issuer name and authority key id point at itself.
  Certificate tmpl(X509_new());
  X509_NAME_add_entry_by_NID(X509_get_subject_name(tmpl.get()), NID_commonName, MBSTRING_UTF8,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1, 0);
  X509_set_pubkey(tmpl.get(), key.get());
  CertSpec spec;
  spec.common_name = common_name;
  spec.is_ca = true;
  SetValidity(spec, now, lifetime);
  ASSIGN_OR_RETURN(Certificate cert, IssueCertificate(spec, *key, *tmpl, *key));
  return CertAndKey{std::move(cert), std::move(key)};
}

StatusOr<CertAndKey> IssueCertAndKey(const CertSpec& spec, const CertAndKey& ca, KeyType type) {
  ASSIGN_OR_RETURN(PrivateKey key, GenerateKey(type));
  ASSIGN_OR_RETURN(Certificate cert, IssueCertificate(spec, *key, *ca.cert, *ca.key));
  return CertAndKey{std::move(cert), std::move(key)};
}

std::string CertificateToPem(X509& cert) {
  Bio b(BIO_new(BIO_s_mem()));
  PEM_write_bio_X509(b.get(), &cert);
  return DrainBio(b.get());
}

std::string PrivateKeyToPem(EVP_PKEY& key) {
  Bio b(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(b.get(), &key, nullptr, nullptr, 0, nullptr, nullptr);
  return DrainBio(b.get());
}

StatusOr<std::string> PublicKeyToPem(EVP_PKEY& key) {
  Bio b(BIO_new(BIO_s_mem()));
  if (PEM_write_bio_PUBKEY(b.get(), &key) != 1) return Internal("encoding a public key: " + OpenSslError());
  return DrainBio(b.get());
}

StatusOr<std::vector<Certificate>> ParseCertificatesPem(std::string_view pem, std::string_view source) {
  Bio b = MemBio(pem);
  std::vector<Certificate> out;
  while (true) {
    X509* c = PEM_read_bio_X509(b.get(), nullptr, nullptr, nullptr);
    if (c == nullptr) break;
    out.emplace_back(c);
  }
  unsigned long err = ERR_peek_last_error();
  // Running out of PEM blocks is the normal end; anything else is a corrupt block.
  bool clean_end = err == 0 || (ERR_GET_LIB(err) == ERR_LIB_PEM && ERR_GET_REASON(err) == PEM_R_NO_START_LINE);
  std::string detail = clean_end ? "" : OpenSslError();
  ERR_clear_error();
  if (!clean_end) return Invalid(std::string(source) + ": invalid certificate PEM: " + detail);
  if (out.empty()) return Invalid(std::string(source) + ": no certificate found in PEM data");
  return out;
}

StatusOr<PrivateKey> ParsePrivateKeyPem(std::string_view pem, std::string_view source) {
  Bio b = MemBio(pem);
  EVP_PKEY* k = PEM_read_bio_PrivateKey(b.get(), nullptr, nullptr, const_cast<char*>(""));
  if (k == nullptr) return Invalid(std::string(source) + ": no valid private key found: " + OpenSslError());
  ERR_clear_error();
  return PrivateKey(k);
}

StatusOr<std::string> ReadFileToString(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    Status s(e == ENOENT ? 404 : 500, e == ENOENT ? "NotFound" : "InternalError",
             "reading " + path + ": " + strerror(e));
    return s;
  }
  std::string out;
  char buf[16384];
  while (true) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return Internal("reading " + path + ": " + strerror(e));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
    if (out.size() > (64u << 20)) {
      close(fd);
      return Internal("reading " + path + ": file is larger than 64 MiB");
    }
  }
  close(fd);
  return out;
}

Status WriteFileAtomic(const std::string& path, std::string_view data, unsigned mode) {
  std::filesystem::path p(path);
  std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  std::string tmpl = dir + "/." + p.filename().string() + ".tmp.XXXXXX";
  std::vector<char> name(tmpl.begin(), tmpl.end());
  name.push_back('\0');
  int fd = mkstemp(name.data());
  if (fd < 0) return Internal("writing " + path + ": creating a temp file: " + strerror(errno));
  std::string tmp(name.data());
  auto fail = [&](const char* what) {
    int e = errno;
    close(fd);
    unlink(tmp.c_str());
    return Internal("writing " + path + ": " + what + ": " + strerror(e));
  };
  if (fchmod(fd, mode) != 0) return fail("chmod");
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write");
    off += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) return fail("fsync");
  if (close(fd) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    return Internal("writing " + path + ": close: " + strerror(e));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    unlink(tmp.c_str());
    return Internal("writing " + path + ": rename: " + strerror(e));
  }
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return Status::Ok();
}

StatusOr<std::vector<Certificate>> LoadCertificatesFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string pem, ReadFileToString(path));
  return ParseCertificatesPem(pem, path);
}

StatusOr<PrivateKey> LoadPrivateKeyFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string pem, ReadFileToString(path));
  return ParsePrivateKeyPem(pem, path);
}

CertInfo InspectCertificate(X509& cert) {
  CertInfo info;
  X509_NAME* subject = X509_get_subject_name(&cert);
  for (int i = 0; i < X509_NAME_entry_count(subject); ++i) {
    X509_NAME_ENTRY* e = X509_NAME_get_entry(subject, i);
    int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
    if (nid != NID_commonName && nid != NID_organizationName) continue;
    unsigned char* utf8 = nullptr;
    int n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
    if (n < 0) continue;
    std::string v(reinterpret_cast<char*>(utf8), static_cast<size_t>(n));
    OPENSSL_free(utf8);
    if (nid == NID_commonName) {
      info.common_name = v;  // Go's pkix.Name keeps the last CN
    } else {
      info.organizations.push_back(v);
    }
  }
  auto* names = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(&cert, NID_subject_alt_name, nullptr, nullptr));
  if (names != nullptr) {
    for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
      const GENERAL_NAME* gn = sk_GENERAL_NAME_value(names, i);
      if (gn->type == GEN_DNS) {
        const ASN1_IA5STRING* s = gn->d.dNSName;
        info.dns_names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                    static_cast<size_t>(ASN1_STRING_length(s)));
      } else if (gn->type == GEN_IPADD) {
        const ASN1_OCTET_STRING* s = gn->d.iPAddress;
        char out[INET6_ADDRSTRLEN];
        int len = ASN1_STRING_length(s);
        if ((len == 4 && inet_ntop(AF_INET, ASN1_STRING_get0_data(s), out, sizeof out)) ||
            (len == 16 && inet_ntop(AF_INET6, ASN1_STRING_get0_data(s), out, sizeof out))) {
          info.ip_addresses.push_back(NormalizeIp(out));
        }
      }
    }
    GENERAL_NAMES_free(names);
  }
  uint32_t flags = X509_get_extension_flags(&cert);
  info.is_ca = (flags & EXFLAG_CA) != 0;
  if ((flags & EXFLAG_XKUSAGE) != 0) {
    uint32_t xku = X509_get_extended_key_usage(&cert);
    info.server_auth = (xku & XKU_SSL_SERVER) != 0;
    info.client_auth = (xku & XKU_SSL_CLIENT) != 0;
  }
  info.not_before = FromAsn1(X509_get0_notBefore(&cert));
  info.not_after = FromAsn1(X509_get0_notAfter(&cert));
  return info;
}

bool KeyMatchesCertificate(X509& cert, EVP_PKEY& key) {
  bool ok = X509_check_private_key(&cert, &key) == 1;
  ERR_clear_error();
  return ok;
}

StatusOr<CertPool> CertPool::FromPem(std::string_view pem, std::string_view source) {
  ASSIGN_OR_RETURN(std::vector<Certificate> certs, ParseCertificatesPem(pem, source));
  CertPool pool;
  pool.store_ = std::shared_ptr<X509_STORE>(X509_STORE_new(), StoreDeleter());
  if (!pool.store_) return Internal("allocating a certificate store: " + OpenSslError());
  for (Certificate& c : certs) {
    if (X509_STORE_add_cert(pool.store_.get(), c.get()) != 1) {
      unsigned long err = ERR_peek_last_error();
      // The same certificate twice in one bundle is harmless.
      if (ERR_GET_REASON(err) != X509_R_CERT_ALREADY_IN_HASH_TABLE) {
        return Invalid(std::string(source) + ": adding a CA certificate: " + OpenSslError());
      }
      ERR_clear_error();
      continue;
    }
    ++pool.size_;
  }
  return pool;
}

StatusOr<CertPool> CertPool::FromFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string pem, ReadFileToString(path));
  return FromPem(pem, path);
}

ClientChainResult CertPool::VerifyClient(X509& leaf, const std::vector<X509*>& intermediates, TimePoint now) const {
  ClientChainResult r;
  // Go checks the leaf's validity window before building chains, so an expired certificate from an
  // unknown CA reports "expired"; do the same.
  CertInfo info = InspectCertificate(leaf);
  if (now < info.not_before) {
    r.failure = VerifyFailure::kNotYetValid;
    r.message = "x509: certificate has expired or is not yet valid: current time " + Rfc3339(now) + " is before " +
                Rfc3339(info.not_before);
    return r;
  }
  if (now > info.not_after) {
    r.failure = VerifyFailure::kExpired;
    r.message = "x509: certificate has expired or is not yet valid: current time " + Rfc3339(now) + " is after " +
                Rfc3339(info.not_after);
    return r;
  }
  STACK_OF(X509)* untrusted = sk_X509_new_null();
  for (X509* c : intermediates) sk_X509_push(untrusted, c);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  int rc = 0;
  int err = X509_V_ERR_UNSPECIFIED;
  X509* failing = nullptr;
  if (ctx != nullptr && store_ && X509_STORE_CTX_init(ctx, store_.get(), &leaf, untrusted) == 1) {
    X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), ToTimeT(now));
    X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_CLIENT);
    rc = X509_verify_cert(ctx);
    err = X509_STORE_CTX_get_error(ctx);
    failing = X509_STORE_CTX_get_current_cert(ctx);
  }
  TimePoint failing_after = failing ? FromAsn1(X509_get0_notAfter(failing)) : TimePoint();
  TimePoint failing_before = failing ? FromAsn1(X509_get0_notBefore(failing)) : TimePoint();
  X509_STORE_CTX_free(ctx);
  sk_X509_free(untrusted);
  ERR_clear_error();
  if (rc == 1) {
    r.common_name = info.common_name;
    r.organizations = info.organizations;
    return r;
  }
  switch (err) {
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_CERT_SIGNATURE_FAILURE:
      r.failure = VerifyFailure::kUnknownAuthority;
      r.message = "x509: certificate signed by unknown authority";
      break;
    case X509_V_ERR_CERT_HAS_EXPIRED:
      r.failure = VerifyFailure::kExpired;
      r.message = "x509: certificate has expired or is not yet valid: current time " + Rfc3339(now) + " is after " +
                  Rfc3339(failing_after);
      break;
    case X509_V_ERR_CERT_NOT_YET_VALID:
      r.failure = VerifyFailure::kNotYetValid;
      r.message = "x509: certificate has expired or is not yet valid: current time " + Rfc3339(now) + " is before " +
                  Rfc3339(failing_before);
      break;
    case X509_V_ERR_INVALID_PURPOSE:
      r.failure = VerifyFailure::kIncompatibleUsage;
      r.message = "x509: certificate specifies an incompatible key usage";
      break;
    default:
      r.failure = VerifyFailure::kInvalid;
      r.message = std::string("x509: ") + X509_verify_cert_error_string(err);
      break;
  }
  return r;
}

}  // namespace capstan::cmd
