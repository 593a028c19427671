// auth/authn/x509.h: client-certificate authentication (--client-ca-file): a chain that verifies
// against the CA bundle for client auth is the user CN in the groups O. No certificate: no opinion.
// A certificate that does not verify (unknown authority, expired, wrong usage): an error in Go's words
// ("verifying certificate failed: x509: certificate signed by unknown authority"). The same
// verification guards the front proxy (request_header.h). Thread-safe (the CA store is read-only after
// construction).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "auth/authn/authenticator.h"

namespace capstan::authn {

struct VerifiedChain {
  std::string common_name;
  std::vector<std::string> organizations;
};

class X509Authenticator : public RequestAuthenticator {
 public:
  // Loads the PEM bundle at ca_file.
  static StatusOr<std::unique_ptr<X509Authenticator>> FromFile(const std::string& ca_file);
  static StatusOr<std::unique_ptr<X509Authenticator>> FromPem(const std::string& pem);
  ~X509Authenticator() override;

  Task<AuthResult> AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) override;
  // The synchronous core, for tests and benchmarks: the user of a verified chain (leaf first).
  StatusOr<std::optional<UserInfo>> Verify(const std::vector<std::string>& chain_der) const;
  // The verified leaf's subject; nullopt for an empty chain; an error when it does not verify.
  StatusOr<std::optional<VerifiedChain>> VerifyChain(const std::vector<std::string>& chain_der) const;

 private:
  X509Authenticator() = default;
  struct Store;
  std::unique_ptr<Store> store_;
};

}  // namespace capstan::authn
