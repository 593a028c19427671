// auth/authn/bearer_token.h: the request authenticators that carry a bearer token to the token
// authenticators: the "Authorization: Bearer <token>" header, and the WebSocket subprotocol
// "base64url.bearer.authorization.k8s.io.<token>" that browsers use because they cannot set headers.
//
// As kube: no header (or another scheme) is no opinion; a token nobody recognises is the error
// "invalid bearer token"; an empty token is no opinion. The parsers are exposed for tests and the
// fuzzer. Thread-safe.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "auth/authn/authenticator.h"
#include "server/http/headers.h"

namespace capstan::authn {

// The token of an Authorization header value ("Bearer abc" → "abc"; scheme case-insensitive), or
// nullopt when it is not a non-empty bearer token. The token is a view into `header_value`.
std::optional<std::string_view> ParseBearerToken(std::string_view header_value);

// The token carried in Sec-WebSocket-Protocol of a WebSocket upgrade request. nullopt: not a
// WebSocket request or no token protocol; an error for a malformed one (kube's messages).
StatusOr<std::optional<std::string>> ParseWebSocketBearerToken(const http::Headers& headers);

class BearerTokenAuthenticator : public RequestAuthenticator {
 public:
  explicit BearerTokenAuthenticator(std::shared_ptr<TokenAuthenticator> tokens) : tokens_(std::move(tokens)) {}
  Task<AuthResult> AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) override;

 private:
  std::shared_ptr<TokenAuthenticator> tokens_;
};

class WebSocketProtocolAuthenticator : public RequestAuthenticator {
 public:
  explicit WebSocketProtocolAuthenticator(std::shared_ptr<TokenAuthenticator> tokens) : tokens_(std::move(tokens)) {}
  Task<AuthResult> AuthenticateRequest(const http::HttpRequest& req, const Audiences& audiences) override;

 private:
  std::shared_ptr<TokenAuthenticator> tokens_;
};

}  // namespace capstan::authn
