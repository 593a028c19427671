// auth/authn/x509.h: client-certificate authentication (--client-ca-file): a chain that verifies
// against the CA bundle for client auth is the user CN in the groups O. No certificate: no opinion.
// A certificate that does not verify (unknown authority, expired, wrong usage): an error in Go's words
// ("verifying certificate failed: x509: certificate signed by unknown authority"). The same
// verification guards the front proxy (request_header.h). Thread-safe: the CA store is an immutable
// snapshot, replaced whole when the bundle file changes (ReplaceCaBundle, kube's dynamic CA content).
#pragma once

#include <memory>
#include <mutex>
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
  // Verifies with the CAs of `pem` from now on (chains verified before are verified again); a bundle
  // without a certificate is an error and changes nothing.
  Status ReplaceCaBundle(const std::string& pem);

  Task<AuthResult> AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) override;
  // The synchronous core, for tests and benchmarks: the user of a verified chain (leaf first).
  StatusOr<std::optional<UserInfo>> Verify(const std::vector<std::string>& chain_der) const;
  // The verified leaf's subject; nullopt for an empty chain; an error when it does not verify.
  StatusOr<std::optional<VerifiedChain>> VerifyChain(const std::vector<std::string>& chain_der) const;

 private:
  X509Authenticator() = default;
  struct Store;
  static StatusOr<std::shared_ptr<Store>> NewStore(const std::string& pem);
  std::shared_ptr<Store> CurrentStore() const;
  mutable std::mutex mu_;
  std::shared_ptr<Store> store_;  // guarded by mu_
};

}  // namespace capstan::authn
