// server/serving_certificates.h: the certificates the secure port serves, as kube's
// dynamiccertificates controllers keep them: the default serving pair (--tls-cert-file/
// --tls-private-key-file or the generated one), the SNI pairs (--tls-sni-cert-key, chosen by the name
// the client asks for) and the client CA bundles whose subjects the handshake names
// (--client-ca-file, --requestheader-client-ca-file).
//
// Every file is re-read by Reload() (a thread calls it every poll interval; kube polls every minute
// and on fsnotify events). Each source keeps its own last good content: a file whose bytes changed
// and parse replaces it, so new connections get the new material; a broken one keeps the old
// material and the reason is logged once per broken content. Connections already open keep what
// they were handed.
//
// SNI as kube builds its NameToCertificate map (dynamiccertificates/named_certificates.go): explicit
// names of a pair first, else its certificate's names (the CN when it is a DNS name or a wildcard, not
// an IP, then the DNS SANs); an earlier flag wins over a later one for the same name, and an explicit
// name over an extracted one. A client's name is looked up exactly (lower-cased), then with its first
// label as "*" (Go's lookup); no match: the first pair (default first, then the SNI pairs in flag
// order) whose certificate is valid for the name, else the default pair. Without SNI the local
// address is looked up as a name (kube's GetConfigForClient), else the default pair.
//
// Thread-safety: Apply() from any I/O thread; Reload() from one thread at a time (the poller).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

typedef struct ssl_st SSL;

namespace capstan::server {

struct CertKeyFiles {
  std::string cert_file;
  std::string key_file;
  std::vector<std::string> names;  // explicit SNI names (--tls-sni-cert-key "cert,key:names"); empty: the certificate's
};

// The SNI name map as kube builds it: for each pair (flag order) its explicit names, or when it has
// none the names from its certificate; the value is the pair's index.
struct SniNames {
  std::vector<std::string> explicit_names;
  std::vector<std::string> certificate_names;
};
std::map<std::string, size_t> BuildSniNameMap(const std::vector<SniNames>& pairs);
// The pair for a client's server name in the map: the exact (lower-cased) name, then the name with its
// first label replaced by "*".
std::optional<size_t> LookupSniName(const std::map<std::string, size_t>& names, std::string_view server_name);
// A certificate's names for SNI (Go's getCertificateNames): the CN when it is "*" or a DNS-1123
// subdomain (after a "*." prefix) and not an IP, then the DNS SANs in order.
std::vector<std::string> CertificateSniNames(const std::string& common_name, const std::vector<std::string>& dns_sans);

class ServingCertificates {
 public:
  struct Config {
    CertKeyFiles serving;
    std::vector<CertKeyFiles> sni;
    std::vector<std::string> client_ca_files;
  };
  // Reads every file once; any that cannot be read or parsed is a start-up error with kube's words.
  static StatusOr<std::unique_ptr<ServingCertificates>> Load(Config config);
  ~ServingCertificates();
  ServingCertificates(const ServingCertificates&) = delete;
  ServingCertificates& operator=(const ServingCertificates&) = delete;

  // Re-reads every file (see above); true when what new connections get changed.
  bool Reload();
  // A thread calls Reload() every `interval` until Stop() (or destruction).
  void StartPolling(std::chrono::milliseconds interval);
  void Stop();
  // Called after a reload in which a client CA bundle changed: (index in client_ca_files, its PEM).
  void OnClientCaChange(std::function<void(size_t, const std::string&)> listener);

  // During a handshake (OpenSSL's certificate callback): hands `ssl` the certificate, key and chain
  // chosen for its server name and the client CA names. False: nothing to serve.
  bool Apply(SSL* ssl) const;

  struct Snapshot;
  struct Source;

 private:
  ServingCertificates() = default;
  void Publish();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace capstan::server
