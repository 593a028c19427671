#include "server/tls_cipher_suites.h"

#include <array>

namespace capstan::server {

namespace {
// Go 1.23's crypto/tls: CipherSuites() (secure), the legacy ChaCha20 names kube keeps, then
// InsecureCipherSuites().
constexpr TlsCipherSuite kSuites[] = {
    {"TLS_AES_128_GCM_SHA256", "", false},
    {"TLS_AES_256_GCM_SHA384", "", false},
    {"TLS_CHACHA20_POLY1305_SHA256", "", false},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA-AES128-SHA", false},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA-AES256-SHA", false},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA-AES128-SHA", false},
    {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA-AES256-SHA", false},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA-AES128-GCM-SHA256", false},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA-AES256-GCM-SHA384", false},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA-AES128-GCM-SHA256", false},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA-AES256-GCM-SHA384", false},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA-CHACHA20-POLY1305", false},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA-CHACHA20-POLY1305", false},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA-CHACHA20-POLY1305", false},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA-CHACHA20-POLY1305", false},
    {"TLS_RSA_WITH_RC4_128_SHA", "RC4-SHA", true},
    {"TLS_RSA_WITH_3DES_EDE_CBC_SHA", "DES-CBC3-SHA", true},
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "AES128-SHA", true},
    {"TLS_RSA_WITH_AES_256_CBC_SHA", "AES256-SHA", true},
    {"TLS_RSA_WITH_AES_128_CBC_SHA256", "AES128-SHA256", true},
    {"TLS_RSA_WITH_AES_128_GCM_SHA256", "AES128-GCM-SHA256", true},
    {"TLS_RSA_WITH_AES_256_GCM_SHA384", "AES256-GCM-SHA384", true},
    {"TLS_ECDHE_ECDSA_WITH_RC4_128_SHA", "ECDHE-ECDSA-RC4-SHA", true},
    {"TLS_ECDHE_RSA_WITH_RC4_128_SHA", "ECDHE-RSA-RC4-SHA", true},
    {"TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA", "ECDHE-RSA-DES-CBC3-SHA", true},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", "ECDHE-ECDSA-AES128-SHA256", true},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", "ECDHE-RSA-AES128-SHA256", true},
};

// Go's default TLS 1.2 suites in its preference order (cipherSuitesPreferenceOrder, with AES hardware,
// minus the disabled and RSA key exchange suites).
constexpr std::array<std::string_view, 10> kGoDefaults = {
    "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",   "ECDHE-ECDSA-AES256-GCM-SHA384",
    "ECDHE-RSA-AES256-GCM-SHA384",   "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    "ECDHE-ECDSA-AES128-SHA",        "ECDHE-RSA-AES128-SHA",          "ECDHE-ECDSA-AES256-SHA",
    "ECDHE-RSA-AES256-SHA",
};
}  // namespace

std::optional<TlsCipherSuite> FindTlsCipherSuite(std::string_view go_name) {
  for (const auto& s : kSuites) {
    if (s.go_name == go_name) return s;
  }
  return std::nullopt;
}

std::optional<std::string> CheckTlsCipherSuites(const std::vector<std::string>& go_names) {
  for (const auto& name : go_names) {
    if (!FindTlsCipherSuite(name)) return "Cipher suite " + name + " not supported or doesn't exist";
  }
  return std::nullopt;
}

std::vector<std::string> OpenSslCipherList(const std::vector<std::string>& go_names) {
  std::vector<std::string> out;
  if (go_names.empty()) return {kGoDefaults.begin(), kGoDefaults.end()};
  for (const auto& name : go_names) {
    auto s = FindTlsCipherSuite(name);
    if (!s || s->openssl_name.empty()) continue;
    std::string n(s->openssl_name);
    bool seen = false;
    for (const auto& o : out) seen = seen || o == n;
    if (!seen) out.push_back(std::move(n));
  }
  return out;
}

}  // namespace capstan::server
