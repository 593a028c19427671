// auth/authn/x509.h: client-certificate authentication (--client-ca-file): a chain that verifies
// against the CA bundle for client auth is the user CN in the groups O. No certificate: no opinion.
// A certificate that does not verify (unknown authority, expired): 401. Thread-safe (the CA store is
// read-only after construction).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "auth/authn/authenticator.h"

namespace capstan::authn {

class X509Authenticator : public RequestAuthenticator {
 public:
  // Loads the PEM bundle at ca_file.
  static StatusOr<std::unique_ptr<X509Authenticator>> FromFile(const std::string& ca_file);
  static StatusOr<std::unique_ptr<X509Authenticator>> FromPem(const std::string& pem);
  ~X509Authenticator() override;

  Task<StatusOr<std::optional<UserInfo>>> Authenticate(const http::HttpRequest& req) override;
  // The synchronous core, for tests and benchmarks.
  StatusOr<std::optional<UserInfo>> Verify(const std::vector<std::string>& chain_der) const;

 private:
  X509Authenticator() = default;
  struct Store;
  std::unique_ptr<Store> store_;

  // Verified chains by their SHA-256: a connection presents the same chain with every request, and
  // chain verification costs far more than the rest of a request. Entries live a minute (never past
  // the leaf's expiry); failures are not cached.
  struct CachedUser {
    UserInfo user;
    std::chrono::steady_clock::time_point expires;
  };
  mutable std::mutex cache_mu_;
  mutable std::unordered_map<std::string, CachedUser> cache_;  // GUARDED_BY(cache_mu_)
};

}  // namespace capstan::authn
