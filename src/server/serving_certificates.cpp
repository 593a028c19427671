#include "server/serving_certificates.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "util/log.h"

namespace capstan::server {

// --- names -------------------------------------------------------------------------------------

namespace {
bool IsDns1123Subdomain(std::string_view s) {
  if (s.empty() || s.size() > 253) return false;
  size_t start = 0;
  while (start <= s.size()) {
    size_t dot = s.find('.', start);
    std::string_view label = s.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty()) return false;
    for (char c : label) {
      if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '-')) return false;
    }
    if (label.front() == '-' || label.back() == '-') return false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

bool IsIp(const std::string& s) {
  unsigned char buf[sizeof(struct in6_addr)];
  return inet_pton(AF_INET, s.c_str(), buf) == 1 || inet_pton(AF_INET6, s.c_str(), buf) == 1;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
}  // namespace

std::vector<std::string> CertificateSniNames(const std::string& common_name, const std::vector<std::string>& dns_sans) {
  std::vector<std::string> names;
  std::string_view cn = common_name;
  std::string_view bare = cn.starts_with("*.") ? cn.substr(2) : cn;
  if (!IsIp(common_name) && (cn == "*" || IsDns1123Subdomain(bare))) names.push_back(common_name);
  names.insert(names.end(), dns_sans.begin(), dns_sans.end());
  return names;
}

std::map<std::string, size_t> BuildSniNameMap(const std::vector<SniNames>& pairs) {
  std::map<std::string, size_t> by_name;
  std::map<std::string, size_t> explicit_names;
  // Backwards, so that an earlier pair's name wins (kube's BuildNamedCertificates).
  for (size_t i = pairs.size(); i-- > 0;) {
    for (const auto& n : pairs[i].explicit_names) explicit_names[n] = i;
    if (pairs[i].explicit_names.empty()) {
      for (const auto& n : pairs[i].certificate_names) by_name[n] = i;
    }
  }
  for (const auto& [n, i] : explicit_names) by_name[n] = i;  // explicit names override
  return by_name;
}

std::optional<size_t> LookupSniName(const std::map<std::string, size_t>& names, std::string_view server_name) {
  std::string name = Lower(server_name);
  if (auto it = names.find(name); it != names.end()) return it->second;
  if (name.empty()) return std::nullopt;
  size_t dot = name.find('.');
  std::string wildcard = "*" + (dot == std::string::npos ? std::string() : name.substr(dot));
  if (auto it = names.find(wildcard); it != names.end()) return it->second;
  return std::nullopt;
}

// --- OpenSSL material --------------------------------------------------------------------------

namespace {
struct X509Free { void operator()(X509* x) const { X509_free(x); } };
struct PkeyFree { void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); } };
struct ChainFree { void operator()(STACK_OF(X509)* s) const { sk_X509_pop_free(s, X509_free); } };
struct NamesFree { void operator()(STACK_OF(X509_NAME)* s) const { sk_X509_NAME_pop_free(s, X509_NAME_free); } };
using X509Ptr = std::unique_ptr<X509, X509Free>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using ChainPtr = std::unique_ptr<STACK_OF(X509), ChainFree>;
using NamesPtr = std::unique_ptr<STACK_OF(X509_NAME), NamesFree>;

struct BioFree { void operator()(BIO* b) const { BIO_free(b); } };

std::vector<X509Ptr> ReadCerts(const std::string& pem) {
  std::vector<X509Ptr> out;
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  while (X509* c = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) out.emplace_back(c);
  ERR_clear_error();  // the end of the data reads as a PEM "no start line"
  return out;
}

// Go's os.ReadFile error text.
StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string why = std::strerror(errno);
    if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
    return Status(500, "InternalError", "open " + path + ": " + why);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string CommonName(X509* cert) {
  char buf[256] = {};
  int n = X509_NAME_get_text_by_NID(X509_get_subject_name(cert), NID_commonName, buf, sizeof buf);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::vector<std::string> DnsSans(X509* cert) {
  std::vector<std::string> out;
  auto* sans = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  if (!sans) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(sans); ++i) {
    const GENERAL_NAME* gn = sk_GENERAL_NAME_value(sans, i);
    if (gn->type != GEN_DNS) continue;
    const ASN1_IA5STRING* s = gn->d.dNSName;
    out.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), static_cast<size_t>(ASN1_STRING_length(s)));
  }
  GENERAL_NAMES_free(sans);
  return out;
}
}  // namespace

// One certificate and key, parsed as Go's tls.X509KeyPair checks them.
struct CertKey {
  X509Ptr leaf;
  PkeyPtr key;
  ChainPtr chain;
  std::vector<std::string> names;  // the certificate's SNI names
};

namespace {
StatusOr<std::shared_ptr<const CertKey>> ParseCertKey(const std::string& cert_pem, const std::string& key_pem) {
  auto certs = ReadCerts(cert_pem);
  if (certs.empty()) return Status(500, "InternalError", "tls: failed to find any PEM data in certificate input");
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())));
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  ERR_clear_error();
  if (!key) return Status(500, "InternalError", "tls: failed to find any PEM data in key input");
  if (X509_check_private_key(certs[0].get(), key.get()) != 1) {
    ERR_clear_error();
    return Status(500, "InternalError", "tls: private key does not match public key");
  }
  auto ck = std::make_shared<CertKey>();
  ck->chain.reset(sk_X509_new_null());
  for (size_t i = 1; i < certs.size(); ++i) sk_X509_push(ck->chain.get(), certs[i].release());
  ck->names = CertificateSniNames(CommonName(certs[0].get()), DnsSans(certs[0].get()));
  ck->leaf = std::move(certs[0]);
  ck->key = std::move(key);
  return std::shared_ptr<const CertKey>(std::move(ck));
}

std::string Describe(const CertKey& ck) {
  std::string out = "\"" + CommonName(ck.leaf.get()) + "\"";
  if (!ck.names.empty()) {
    out += " [";
    for (size_t i = 0; i < ck.names.size(); ++i) out += (i ? "," : "") + ck.names[i];
    out += "]";
  }
  return out;
}
}  // namespace

// One watched input: a pair of files (serving or SNI) or one CA bundle, with its last good content.
struct ServingCertificates::Source {
  enum class Kind { kServing, kSni, kClientCa } kind;
  std::string name;  // kube's content name, e.g. "serving-cert::a.crt::a.key"
  CertKeyFiles files;  // kClientCa: cert_file is the bundle
  std::string content;  // the last good bytes (cert + key)
  std::string failed;   // the last error logged (a broken content is logged once)
  std::shared_ptr<const CertKey> pair;
  std::vector<X509Ptr> cas;
  std::string pem;  // kClientCa: the bundle's PEM

  // Reads the files; an error when they cannot be read or parsed. Unchanged: ok, nothing done.
  StatusOr<bool> Refresh() {
    ASSIGN_OR_RETURN(std::string first, ReadWholeFile(files.cert_file));
    std::string second;
    if (kind != Kind::kClientCa) {
      ASSIGN_OR_RETURN(second, ReadWholeFile(files.key_file));
    }
    std::string bytes = first + '\0' + second;
    if (bytes == content) return false;
    if (kind == Kind::kClientCa) {
      if (first.empty()) return Status(500, "InternalError", "missing content for CA bundle \"" + name + "\"");
      auto certs = ReadCerts(first);
      if (certs.empty()) {
        return Status(500, "InternalError",
                      "error loading CA bundle for \"" + name + "\": data does not contain any valid RSA or ECDSA certificates");
      }
      cas = std::move(certs);
      pem = std::move(first);
    } else {
      if (first.empty() || second.empty()) {
        return Status(500, "InternalError", "missing content for serving cert \"" + name + "\"");
      }
      ASSIGN_OR_RETURN(pair, ParseCertKey(first, second));
    }
    content = std::move(bytes);
    return true;
  }
};

// What new connections get: pairs[0] is the default, pairs[1..] the SNI pairs in flag order.
struct ServingCertificates::Snapshot {
  std::vector<std::shared_ptr<const CertKey>> pairs;
  std::map<std::string, size_t> names;  // SNI name → index in pairs
  NamesPtr client_ca_names;
};

struct ServingCertificates::Impl {
  std::vector<Source> sources;  // the serving pair, the SNI pairs, the CA bundles; touched by Reload only
  std::mutex mu;
  std::shared_ptr<const Snapshot> current;  // guarded by mu
  std::vector<std::function<void(size_t, const std::string&)>> ca_listeners;  // guarded by mu
  std::mutex stop_mu;
  std::condition_variable stop_cv;
  bool stopping = false;  // guarded by stop_mu
  std::thread poller;
};

StatusOr<std::unique_ptr<ServingCertificates>> ServingCertificates::Load(Config config) {
  std::unique_ptr<ServingCertificates> c(new ServingCertificates());
  c->impl_ = std::make_unique<Impl>();
  auto& sources = c->impl_->sources;
  using Kind = Source::Kind;
  const CertKeyFiles& s = config.serving;
  sources.push_back({Kind::kServing, "serving-cert::" + s.cert_file + "::" + s.key_file, s});
  for (const auto& sni : config.sni) {
    sources.push_back({Kind::kSni, "sni-serving-cert::" + sni.cert_file + "::" + sni.key_file, sni});
  }
  for (const auto& ca : config.client_ca_files) sources.push_back({Kind::kClientCa, "client-ca-bundle::" + ca, {ca, "", {}}});
  for (auto& src : sources) {
    auto r = src.Refresh();
    if (r.ok()) continue;
    switch (src.kind) {
      case Kind::kServing: return r.status();
      case Kind::kSni: return Status(500, "InternalError", "failed to load SNI cert and key: " + r.status().message());
      case Kind::kClientCa: return Status(500, "InternalError", "unable to load client CA file: " + r.status().message());
    }
  }
  c->Publish();
  return c;
}

ServingCertificates::~ServingCertificates() { Stop(); }

void ServingCertificates::Publish() {
  auto snap = std::make_shared<Snapshot>();
  std::vector<SniNames> sni;
  snap->client_ca_names.reset(sk_X509_NAME_new_null());
  for (const auto& src : impl_->sources) {
    if (src.kind == Source::Kind::kClientCa) {
      // Go's CertPool.Subjects(): every certificate's subject, a repeated one once.
      auto* names = snap->client_ca_names.get();
      for (const auto& ca : src.cas) {
        const X509_NAME* subject = X509_get_subject_name(ca.get());
        bool seen = false;
        for (int i = 0; i < sk_X509_NAME_num(names) && !seen; ++i) seen = X509_NAME_cmp(sk_X509_NAME_value(names, i), subject) == 0;
        if (!seen) sk_X509_NAME_push(names, X509_NAME_dup(subject));
      }
      continue;
    }
    if (src.kind == Source::Kind::kSni) sni.push_back({src.files.names, src.pair->names});
    snap->pairs.push_back(src.pair);
  }
  for (auto [name, i] : BuildSniNameMap(sni)) snap->names.emplace(name, i + 1);
  std::lock_guard lock(impl_->mu);
  impl_->current = std::move(snap);
}

bool ServingCertificates::Reload() {
  bool changed = false;
  std::vector<std::pair<size_t, std::string>> ca_changes;
  size_t ca_index = 0;
  for (auto& src : impl_->sources) {
    const bool ca = src.kind == Source::Kind::kClientCa;
    auto r = src.Refresh();
    if (!r.ok()) {
      // Logged once per broken content; the last good content stays in use.
      if (r.status().message() != src.failed) {
        LogWarn("certificate reload failed, the previous content stays in use",
                {{"name", src.name}, {"error", r.status().message()}});
        src.failed = r.status().message();
      }
      if (ca) ++ca_index;
      continue;
    }
    src.failed.clear();
    if (*r) {
      changed = true;
      if (ca) {
        LogInfo("Loaded a new CA Bundle and Verifier", {{"name", src.name}});
        ca_changes.emplace_back(ca_index, src.pem);
      } else {
        LogInfo("Loaded a new cert/key pair", {{"name", src.name}, {"certificate", Describe(*src.pair)}});
      }
    }
    if (ca) ++ca_index;
  }
  if (!changed) return false;
  Publish();
  std::vector<std::function<void(size_t, const std::string&)>> listeners;
  {
    std::lock_guard lock(impl_->mu);
    listeners = impl_->ca_listeners;
  }
  for (const auto& [i, pem] : ca_changes) {
    for (const auto& l : listeners) l(i, pem);
  }
  return true;
}

void ServingCertificates::OnClientCaChange(std::function<void(size_t, const std::string&)> listener) {
  std::lock_guard lock(impl_->mu);
  impl_->ca_listeners.push_back(std::move(listener));
}

void ServingCertificates::StartPolling(std::chrono::milliseconds interval) {
  if (impl_->poller.joinable()) return;
  impl_->poller = std::thread([this, interval] {
    std::unique_lock lock(impl_->stop_mu);
    while (!impl_->stop_cv.wait_for(lock, interval, [this] { return impl_->stopping; })) {
      lock.unlock();
      Reload();
      lock.lock();
    }
  });
}

void ServingCertificates::Stop() {
  if (!impl_) return;
  {
    std::lock_guard lock(impl_->stop_mu);
    impl_->stopping = true;
  }
  impl_->stop_cv.notify_all();
  if (impl_->poller.joinable()) impl_->poller.join();
}

namespace {
// The local address of the connection, as a name (kube looks it up when the client sends no SNI).
std::string LocalAddress(SSL* ssl) {
  int fd = SSL_get_fd(ssl);
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  if (fd < 0 || getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "";
  char buf[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, buf, sizeof buf);
  } else if (addr.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr, buf, sizeof buf);
  }
  return buf;
}
}  // namespace

bool ServingCertificates::Apply(SSL* ssl) const {
  std::shared_ptr<const Snapshot> snap;
  {
    std::lock_guard lock(impl_->mu);
    snap = impl_->current;
  }
  if (!snap || snap->pairs.empty()) return false;
  size_t chosen = 0;
  const char* server_name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  if (server_name && *server_name) {
    if (auto i = LookupSniName(snap->names, server_name)) {
      chosen = *i;
    } else {
      // Go: the first certificate valid for the name, else the first one.
      for (size_t i = 0; i < snap->pairs.size(); ++i) {
        X509* leaf = snap->pairs[i]->leaf.get();
        if (X509_check_host(leaf, server_name, 0, 0, nullptr) == 1 || X509_check_ip_asc(leaf, server_name, 0) == 1) {
          chosen = i;
          break;
        }
      }
    }
  } else if (!snap->names.empty()) {
    if (auto it = snap->names.find(LocalAddress(ssl)); it != snap->names.end()) chosen = it->second;
  }
  const CertKey& ck = *snap->pairs[chosen];
  if (SSL_use_cert_and_key(ssl, ck.leaf.get(), ck.key.get(), ck.chain.get(), 1) != 1) {
    ERR_clear_error();
    return false;
  }
  if (STACK_OF(X509_NAME)* names = SSL_dup_CA_list(snap->client_ca_names.get())) SSL_set_client_CA_list(ssl, names);
  return true;
}

}  // namespace capstan::server
