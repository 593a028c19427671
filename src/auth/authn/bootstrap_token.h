// auth/authn/bootstrap_token.h: bootstrap tokens (--enable-bootstrap-token-auth), the short-lived
// "<id>.<secret>" tokens kubeadm gives joining nodes.
//
// A token of the form [a-z0-9]{6}.[a-z0-9]{16} is looked up as the secret kube-system/bootstrap-token-<id>
// of type bootstrap.kubernetes.io/token. It authenticates system:bootstrap:<id> in system:bootstrappers
// plus the groups of auth-extra-groups when the secret is not being deleted, its token-id and
// token-secret match (token-secret compared in constant time), it has not expired (an unparsable
// expiration counts as expired) and usage-bootstrap-authentication is "true". Every other case is no
// opinion, as kube (the bearer-token authenticator then answers "invalid bearer token"). Thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "auth/authn/authenticator.h"
#include "auth/authn/object_getter.h"
#include "util/clock.h"

namespace capstan::authn {

// "abcdef.0123456789abcdef" → {"abcdef", "0123456789abcdef"}; nullopt for other shapes.
std::optional<std::pair<std::string, std::string>> ParseBootstrapToken(std::string_view token);

class BootstrapTokenAuthenticator : public TokenAuthenticator {
 public:
  BootstrapTokenAuthenticator(ObjectGetter getter, const Clock* clock = &RealClock::Get())
      : getter_(std::move(getter)), clock_(clock) {}
  Task<AuthResult> AuthenticateToken(const std::string& token, const Audiences& audiences) override;

 private:
  ObjectGetter getter_;
  const Clock* clock_;
};

}  // namespace capstan::authn
