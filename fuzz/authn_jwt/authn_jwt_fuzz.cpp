// Fuzzes the credential parsers that read request headers: any input gives a value or a Status, never
// a crash. A parsed JWT must keep its signing input as sent and re-parse to the same header and claims.
#include <cstdint>
#include <string>
#include <string_view>

#include "auth/authn/basic_auth.h"
#include "auth/authn/bearer_token.h"
#include "auth/authn/jwt.h"

using namespace capstan;
using namespace capstan::authn;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);

  if (auto jwt = ParseJwt(in); jwt.ok()) {
    if (!IsSupportedJwsAlgorithm(jwt->alg)) __builtin_trap();
    if (in.substr(0, jwt->signing_input.size()) != jwt->signing_input) __builtin_trap();
    auto again = ParseJwt(in);
    if (!again.ok() || again->claims != jwt->claims || again->header != jwt->header) __builtin_trap();
    (void)NumericDateClaim(jwt->claims, "exp");
    (void)NumericDateClaim(jwt->claims, "nbf");
    (void)AudienceClaim(jwt->claims);
    (void)StringClaim(jwt->claims, "iss");
    (void)StringClaim(jwt->claims, "sub");
  }
  (void)PeekIssuer(in);

  if (auto token = ParseBearerToken(in)) {
    if (token->empty() || in.find(*token) == std::string_view::npos) __builtin_trap();
  }
  if (auto basic = ParseBasicAuth(in)) {
    if (basic->username.find(':') != std::string::npos) __builtin_trap();
  }

  // The WebSocket subprotocol form: the input as the Sec-WebSocket-Protocol header's value.
  http::Headers headers;
  headers.Add("Connection", "Upgrade");
  headers.Add("Upgrade", "websocket");
  headers.Add("Sec-WebSocket-Protocol", std::string(in));
  (void)ParseWebSocketBearerToken(headers);
  return 0;
}
