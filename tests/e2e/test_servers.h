// tests/e2e/test_servers.h: what the e2e tests' own HTTPS backends share (an aggregated API server,
// a fake kubelet): a serving certificate from a fresh CA, and the server options for it.
#pragma once

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "cmd/pki.h"
#include "server/http_server.h"

namespace capstan::e2e {

// Writes dir/ca.crt, dir/tls.crt and dir/tls.key: a certificate for `name` and `ip` from a CA named
// after it. Returns the CA's PEM.
inline std::string WriteServingCertificate(const std::string& dir, const std::string& name, const std::string& ip) {
  auto now = std::chrono::system_clock::now();
  auto ca = cmd::CreateSelfSignedCa(name + "-ca", now);
  std::string ca_pem = cmd::CertificateToPem(*ca->cert);
  std::ofstream(dir + "/ca.crt") << ca_pem;
  cmd::CertSpec spec;
  spec.common_name = name;
  spec.dns_names = {name};
  spec.ip_addresses = {ip};
  spec.server_auth = true;
  cmd::SetValidity(spec, now, std::chrono::hours(24));
  auto leaf = cmd::IssueCertAndKey(spec, *ca);
  std::ofstream(dir + "/tls.crt") << cmd::CertificateToPem(*leaf->cert);
  std::ofstream(dir + "/tls.key") << cmd::PrivateKeyToPem(*leaf->key);
  return ca_pem;
}

// Writes dir/client-ca.crt, dir/client.crt and dir/client.key: a client certificate for `cn` in
// `organizations` from a fresh CA. Returns the certificate's PEM.
inline std::string WriteClientCertificate(const std::string& dir, const std::string& cn,
                                          const std::vector<std::string>& organizations) {
  auto now = std::chrono::system_clock::now();
  auto ca = cmd::CreateSelfSignedCa(cn + "-ca", now);
  std::ofstream(dir + "/client-ca.crt") << cmd::CertificateToPem(*ca->cert);
  cmd::CertSpec spec;
  spec.common_name = cn;
  spec.organizations = organizations;
  spec.client_auth = true;
  cmd::SetValidity(spec, now, std::chrono::hours(24));
  auto leaf = cmd::IssueCertAndKey(spec, *ca);
  std::string cert_pem = cmd::CertificateToPem(*leaf->cert);
  std::ofstream(dir + "/client.crt") << cert_pem;
  std::ofstream(dir + "/client.key") << cmd::PrivateKeyToPem(*leaf->key);
  return cert_pem;
}

// An HTTPS server on every address and a free port, one I/O thread, serving dir/tls.crt.
inline server::HttpServerOptions TestServerOptions(const std::string& dir) {
  server::HttpServerOptions o;
  o.bind_address = "0.0.0.0";
  o.port = 0;
  o.tls_cert_file = dir + "/tls.crt";
  o.tls_private_key_file = dir + "/tls.key";
  o.io_threads = 1;
  return o;
}

}  // namespace capstan::e2e
