// cmd/authentication.h: wires authentication into the process: the HTTPS client engine (OIDC, token
// webhook), the authenticator chain built from the flags (auth/authn/build.h), the objects it reads
// (through the served REST storages), the authentication.k8s.io API and serviceaccounts/token, and
// the service-account issuer's discovery endpoints. With --authentication-config the file's periodic
// reload starts at Create.
//
// Capstan's defaults where kube has none: the service-account issuer is
// https://kubernetes.default.svc.cluster.local and the signing key is the generated DATA/pki/sa.key.
// Built once at start by App; thread-safe afterwards.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "auth/authn/build.h"
#include "cmd/options.h"
#include "cmd/pki.h"
#include "endpoints/api_registry.h"
#include "registry/rest_resource.h"
#include "server/http_client.h"
#include "server/router.h"
#include "util/metrics.h"

namespace capstan::cmd {

inline constexpr const char* kDefaultServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local";

class AuthenticationSetup {
 public:
  // `apis` must outlive the setup; `server_url` gives the serving URL once the port is known.
  static StatusOr<std::unique_ptr<AuthenticationSetup>> Create(const Options& options, const Pki& pki,
                                                               const endpoints::ApiRegistry& apis,
                                                               std::function<std::string()> server_url,
                                                               MetricsRegistry* metrics = nullptr,
                                                               std::string apiserver_id_hash = "");
  ~AuthenticationSetup();

  authn::RequestAuthenticator& authenticator() { return authn_->authenticator(); }
  authn::Authentication& authentication() { return *authn_; }
  // authentication.k8s.io/v1 (selfsubjectreviews, tokenreviews) and serviceaccounts/token.
  std::vector<registry::RestResource> AuthenticationApi(const registry::GroupDeps& deps);
  std::vector<registry::RestResource> ServiceAccountTokenApi(const registry::GroupDeps& deps);
  // /.well-known/openid-configuration and /openid/v1/jwks, when the issuer is an https URL.
  void InstallDiscoveryRoutes(server::Router& router);

 private:
  AuthenticationSetup() = default;
  // Declared first: destroyed last, after every client the authenticators hold.
  std::unique_ptr<server::HttpClientEngine> http_;
  std::unique_ptr<authn::Authentication> authn_;
  const endpoints::ApiRegistry* apis_ = nullptr;
  std::function<std::string()> server_url_;
};

}  // namespace capstan::cmd
