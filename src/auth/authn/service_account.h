// auth/authn/service_account.h: service-account token authentication (kube's jwtTokenAuthenticator
// with its two validators).
//
// Bound tokens (TokenRequest, projected volumes) carry the issuer of --service-account-issuer, an
// audience, an expiry, a JTI and a "kubernetes.io" claim naming the service account and the pod,
// secret or node they are bound to. They are valid while unexpired (one minute of leeway, as go-jose)
// and while every object they name still exists with the same UID and is not being deleted: deleting
// the pod, the secret or the service account revokes them. Legacy tokens (issuer
// "kubernetes/serviceaccount", stored in kubernetes.io/service-account-token secrets) have no expiry;
// with --service-account-lookup they are valid while their secret holds exactly this token, is not
// marked with kubernetes.io/legacy-token-invalid-since, and the service account exists.
//
// A token whose unverified issuer is not ours is no opinion (another authenticator may know it); past
// that point every failure is an error. Audiences: a token without "aud" is valid for the implicit
// (--api-audiences) ones; otherwise for those it lists. The user is
// system:serviceaccount:<ns>:<name> in system:serviceaccounts and system:serviceaccounts:<ns>, with
// the pod, node and credential-id extras kube sets. Objects are read through an ObjectGetter.
// Thread-safe (immutable configuration).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "auth/authn/authenticator.h"
#include "auth/authn/jwt.h"
#include "auth/authn/keys.h"
#include "auth/authn/object_getter.h"
#include "util/clock.h"

namespace capstan::authn {

inline constexpr const char* kLegacyServiceAccountIssuer = "kubernetes/serviceaccount";
inline constexpr const char* kLegacyTokenInvalidSinceLabel = "kubernetes.io/legacy-token-invalid-since";
// go-jose's jwt.DefaultLeeway.
inline constexpr std::chrono::seconds kJwtLeeway{60};

// system:serviceaccount:<ns>:<name>, and the reverse (nullopt for other names).
std::string ServiceAccountUsername(const std::string& ns, const std::string& name);
UserInfo ServiceAccountUser(const std::string& ns, const std::string& name, const std::string& uid);

struct ServiceAccountAuthConfig {
  std::vector<std::string> issuers;  // for legacy tokens: {kLegacyServiceAccountIssuer}
  std::vector<JwsKey> keys;          // public (or private) keys that verify tokens
  Audiences implicit_audiences;      // --api-audiences
  bool lookup = true;                // legacy tokens only: --service-account-lookup
  ObjectGetter getter;
  const Clock* clock = &RealClock::Get();
};

class ServiceAccountTokenAuthenticator : public TokenAuthenticator {
 public:
  enum class Kind { kBound, kLegacy };
  ServiceAccountTokenAuthenticator(Kind kind, ServiceAccountAuthConfig config);

  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override;

 private:
  struct Verified {
    Jwt jwt;
    Audiences audiences;
    std::optional<int64_t> exp;
  };
  // Issuer, signature and audiences: nullopt when the token is not ours.
  StatusOr<std::optional<Verified>> VerifyToken(const std::string& token, const Audiences& audiences) const;
  Task<StatusOr<UserInfo>> ValidateBound(const Jwt& jwt);
  Task<StatusOr<UserInfo>> ValidateLegacy(const std::string& token, const Jwt& jwt);

  Kind kind_;
  ServiceAccountAuthConfig config_;
  std::multimap<std::string, JwsKey> keys_by_id_;
};

}  // namespace capstan::authn
