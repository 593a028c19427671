// auth/authn/issuer_discovery.h: the service-account issuer's OpenID Connect discovery documents
// (kube's ServiceAccountIssuerDiscovery): /.well-known/openid-configuration names the issuer, the JWKS
// URI and the signing algorithms; /openid/v1/jwks lists the public keys that verify service-account
// tokens, so relying parties outside the cluster can check them.
//
// As kube, the documents exist only when the issuer is an https URL without query or fragment; the
// JWKS URI is --service-account-jwks-uri, else https://<the server's address>/openid/v1/jwks. Both are
// rendered once (the keys do not change while the server runs); cmd/ serves them with
// "Cache-Control: public, max-age=3600". Immutable; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "apimachinery/status.h"
#include "auth/authn/keys.h"

namespace capstan::authn {

inline constexpr const char* kOpenIdConfigurationPath = "/.well-known/openid-configuration";
inline constexpr const char* kJwksPath = "/openid/v1/jwks";

class IssuerDiscovery {
 public:
  static StatusOr<IssuerDiscovery> Create(const std::string& issuer, const std::string& jwks_uri,
                                          const std::vector<JwsKey>& keys);

  const std::string& configuration_json() const { return configuration_; }
  const std::string& jwks_json() const { return jwks_; }

 private:
  std::string configuration_;
  std::string jwks_;
};

}  // namespace capstan::authn
