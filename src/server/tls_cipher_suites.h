// server/tls_cipher_suites.h: --tls-cipher-suites as kube reads it. kube takes Go's names (the IANA
// names crypto/tls lists in CipherSuites() and InsecureCipherSuites(), plus two legacy ChaCha20
// names; k8s.io/component-base/cli/flag/ciphersuites_flag.go); the server speaks OpenSSL, so each name
// maps to OpenSSL's name for the same suite. As in Go, the TLS 1.3 suites are accepted but not
// configurable (TLS 1.3 always offers its three). Pure functions; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace capstan::server {

struct TlsCipherSuite {
  std::string_view go_name;       // as --tls-cipher-suites takes it
  std::string_view openssl_name;  // OpenSSL's name; empty for the TLS 1.3 suites
  bool insecure;                  // in Go's InsecureCipherSuites()
};

// The suite a Go name stands for; nullopt: not a name kube knows.
std::optional<TlsCipherSuite> FindTlsCipherSuite(std::string_view go_name);

// kube's check of the flag's values: the first unknown name is
// "Cipher suite NAME not supported or doesn't exist".
std::optional<std::string> CheckTlsCipherSuites(const std::vector<std::string>& go_names);

// The OpenSSL cipher list (TLS 1.2 and below) for the Go names, in their order, TLS 1.3 names left
// out; with no names, the suites Go offers by default (ECDHE with AES-GCM, ChaCha20-Poly1305 and
// AES-CBC-SHA; no RSA key exchange, 3DES, RC4 or CBC-SHA256), in Go's order of preference.
std::vector<std::string> OpenSslCipherList(const std::vector<std::string>& go_names);

}  // namespace capstan::server
