#include "auth/authn/bearer_token.h"

#include "apimachinery/utf8.h"
#include "util/strings.h"

namespace capstan::authn {

namespace {

constexpr std::string_view kBearerProtocolPrefix = "base64url.bearer.authorization.k8s.io.";

// A header list ("a, b,c") contains `token`, case-insensitively.
bool HeaderListHas(const http::Headers& headers, std::string_view name, std::string_view token) {
  for (auto v : headers.GetAll(name)) {
    for (const auto& part : Split(v, ',')) {
      if (EqualsIgnoreCase(TrimSpace(part), token)) return true;
    }
  }
  return false;
}

}  // namespace

std::optional<std::string_view> ParseBearerToken(std::string_view header_value) {
  std::string_view auth = TrimSpace(header_value);
  if (auth.empty()) return std::nullopt;
  // strings.SplitN(auth, " ", 3): the scheme, then the token up to the next space.
  size_t sp = auth.find(' ');
  if (sp == std::string_view::npos) return std::nullopt;
  if (!EqualsIgnoreCase(auth.substr(0, sp), "bearer")) return std::nullopt;
  std::string_view rest = auth.substr(sp + 1);
  std::string_view token = rest.substr(0, rest.find(' '));
  if (token.empty()) return std::nullopt;
  return token;
}

StatusOr<std::optional<std::string>> ParseWebSocketBearerToken(const http::Headers& headers) {
  if (!HeaderListHas(headers, "Connection", "upgrade") || !HeaderListHas(headers, "Upgrade", "websocket")) {
    return std::optional<std::string>();
  }
  std::string token;
  bool saw_token = false;
  size_t other_protocols = 0;
  for (auto value : headers.GetAll("Sec-WebSocket-Protocol")) {
    for (const auto& raw : Split(value, ',')) {
      std::string_view protocol = TrimSpace(raw);
      if (!StartsWith(protocol, kBearerProtocolPrefix)) {
        ++other_protocols;
        continue;
      }
      if (saw_token) return AuthError("multiple base64.bearer.authorization tokens specified");
      saw_token = true;
      std::string decoded;
      if (!Base64UrlDecode(protocol.substr(kBearerProtocolPrefix.size()), decoded)) {
        return AuthError("invalid base64.bearer.authorization token encoding");
      }
      if (!apimachinery::IsValidUtf8(decoded)) return AuthError("invalid base64.bearer.authorization token");
      token = std::move(decoded);
    }
  }
  if (!token.empty() && other_protocols == 0) return AuthError("missing additional subprotocol");
  if (token.empty()) return std::optional<std::string>();
  return std::optional<std::string>(std::move(token));
}

Task<AuthResult> BearerTokenAuthenticator::AuthenticateRequest(const http::HttpRequest& req,
                                                               const Audiences& audiences) {
  auto token = ParseBearerToken(req.headers.Get("Authorization"));
  if (!token) co_return std::optional<Response>();
  auto r = co_await tokens_->AuthenticateToken(std::string(*token), audiences);
  if (r.ok() && !r->has_value()) co_return AuthError("invalid bearer token");
  co_return r;
}

Task<AuthResult> WebSocketProtocolAuthenticator::AuthenticateRequest(const http::HttpRequest& req,
                                                                     const Audiences& audiences) {
  auto token = ParseWebSocketBearerToken(req.headers);
  if (!token.ok()) co_return token.TakeStatus();
  if (!token->has_value()) co_return std::optional<Response>();
  auto r = co_await tokens_->AuthenticateToken(**token, audiences);
  if (r.ok() && !r->has_value()) co_return AuthError("invalid bearer token");
  co_return r;
}

}  // namespace capstan::authn
