// api/core/serviceaccount_token.h: serviceaccounts/token, the TokenRequest API (authentication.k8s.io/v1
// TokenRequest posted to a service account), which `kubectl create token` and the kubelet use.
//
// Create checks the request as kube does (names match the URL, expirationSeconds between 10 minutes
// and 2^32 seconds, default one hour; audiences default to the API audiences), looks up the service
// account and the object the token is bound to (a pod running as that service account, a secret or a
// node; a pod's node is named in the token too), shortens the lifetime to
// --service-account-max-token-expiration with a warning, extends kubelet's 3607-second projected tokens
// to a year when --service-account-extend-token-expiration is on, and returns the signed token with its
// expirationTimestamp. Nothing is stored.
//
// The API layer does not know how tokens are signed: cmd/ passes a TokenSigner (backed by
// auth/authn's ServiceAccountTokenGenerator) and an object getter (the served REST storages).
// Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "registry/rest_resource.h"

namespace capstan::api::core {

struct TokenClaimsSpec {
  struct Ref {
    std::string name;
    std::string uid;
  };
  std::string namespace_;
  Ref service_account;
  std::optional<Ref> pod;
  std::optional<Ref> secret;
  std::optional<Ref> node;
  std::vector<std::string> audiences;
  int64_t expiration_seconds = 3600;
  int64_t warn_after_seconds = 0;
  std::chrono::system_clock::time_point now;
};

using TokenSigner = std::function<StatusOr<std::string>(const TokenClaimsSpec&)>;
// Reads a served object: resource ("serviceaccounts", "pods", "secrets", "nodes"), namespace, name.
using ObjectGetFunc =
    std::function<Task<StatusOr<registry::Object>>(const std::string&, const std::string&, const std::string&)>;

struct ServiceAccountTokenOptions {
  TokenSigner sign;
  ObjectGetFunc get;
  std::vector<std::string> api_audiences;
  int64_t max_expiration_seconds = 0;  // 0: no limit
  bool extend_expiration = true;
};

// kube's WarnOnlyBoundTokenExpirationSeconds and ExpirationExtensionSeconds.
inline constexpr int64_t kWarnOnlyBoundTokenExpirationSeconds = 60 * 60 + 7;
inline constexpr int64_t kExpirationExtensionSeconds = 24LL * 365 * 60 * 60;

std::vector<registry::RestResource> ServiceAccountToken(const registry::GroupDeps& deps, ServiceAccountTokenOptions opts);

}  // namespace capstan::api::core
