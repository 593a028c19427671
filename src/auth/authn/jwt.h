// auth/authn/jwt.h: JSON Web Tokens in JWS compact serialization (RFC 7515/7519): parsing, signature
// verification and signing with RS256/384/512, PS256/384/512 and ES256/384/512 through OpenSSL.
//
// ParseJwt checks only the structure (three base64url parts, JSON object header and claims, a known
// "alg"); nothing in a parsed token is trusted until VerifyJwt succeeds with a key the caller chose.
// "none" and HMAC algorithms are rejected: a bearer token must be signed by a key the server trusts.
// Input is network input: any bytes give a result or an error, never a crash; tokens over
// kMaxJwtBytes are refused before decoding. Pure functions; thread-safe.
#pragma once

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"
#include "auth/authn/keys.h"

namespace capstan::authn {

inline constexpr size_t kMaxJwtBytes = 256 * 1024;

struct Jwt {
  std::string alg;
  std::string kid;
  boost::json::object header;
  boost::json::object claims;
  std::string signing_input;  // "<header>.<payload>" as sent
  std::string signature;      // decoded bytes
};

// The algorithms ParseJwt accepts.
bool IsSupportedJwsAlgorithm(std::string_view alg);

StatusOr<Jwt> ParseJwt(std::string_view token);

// The unverified "iss" of a compact JWT, or nullopt when the token is not one (kube's
// hasCorrectIssuer peek: used only to pick which authenticator should look at a token).
std::optional<std::string> PeekIssuer(std::string_view token);

// Verifies the signature with `key` (which must suit jwt.alg: RSA for RS/PS, the matching curve for ES).
Status VerifyJwt(const Jwt& jwt, const JwsKey& key);

// A compact JWT of `claims`, signed by the private `key` with its default algorithm, the header
// naming the key's id: {"alg":"RS256","kid":"..."}.
StatusOr<std::string> SignJwt(const boost::json::object& claims, const JwsKey& key);

// Claim accessors. A NumericDate claim is a JSON number (seconds since the epoch, fractions dropped);
// nullopt when absent; an error when present with another type.
StatusOr<std::optional<int64_t>> NumericDateClaim(const boost::json::object& claims, std::string_view name);
// "aud": a string or an array of strings; empty when absent.
StatusOr<std::vector<std::string>> AudienceClaim(const boost::json::object& claims);
// A string claim; nullopt when absent, an error when not a string.
StatusOr<std::optional<std::string>> StringClaim(const boost::json::object& claims, std::string_view name);

}  // namespace capstan::authn
