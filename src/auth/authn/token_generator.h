// auth/authn/token_generator.h: signs service-account tokens (kube's JWTTokenGenerator with its
// claims): bound tokens for the TokenRequest API (serviceaccounts/token) and, for tests and tools,
// legacy secret-based tokens.
//
// A bound token's claims are kube's: aud, exp, iat, iss (the first --service-account-issuer), jti (a
// fresh UUID, reported as the credential id), nbf, sub, and "kubernetes.io" with the namespace, the
// service account and the pod, secret or node the token is bound to (a pod-bound token also names the
// pod's node), plus "warnafter" for tokens whose expiry was extended. The signing key is
// --service-account-signing-key-file (RSA: RS256; ECDSA: ES256/384/512) and the header names its key
// id. Immutable after construction; thread-safe.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "auth/authn/keys.h"

namespace capstan::authn {

struct ObjectRef {
  std::string name;
  std::string uid;
};

struct BoundTokenSpec {
  std::string namespace_;
  ObjectRef service_account;
  std::optional<ObjectRef> pod;
  std::optional<ObjectRef> secret;
  std::optional<ObjectRef> node;
  std::vector<std::string> audiences;
  int64_t expiration_seconds = 3600;
  int64_t warn_after_seconds = 0;  // >0: "warnafter" = now + this
  std::chrono::system_clock::time_point now;
};

struct IssuedToken {
  std::string token;
  std::string jti;
};

class ServiceAccountTokenGenerator {
 public:
  ServiceAccountTokenGenerator(std::string issuer, JwsKey signing_key)
      : issuer_(std::move(issuer)), key_(std::move(signing_key)) {}

  StatusOr<IssuedToken> GenerateBound(const BoundTokenSpec& spec) const;
  // A legacy token as the old token controller wrote into kubernetes.io/service-account-token secrets.
  StatusOr<std::string> GenerateLegacy(const std::string& ns, const ObjectRef& service_account,
                                       const std::string& secret_name) const;

  const std::string& issuer() const { return issuer_; }
  const JwsKey& key() const { return key_; }

 private:
  std::string issuer_;
  JwsKey key_;
};

}  // namespace capstan::authn
