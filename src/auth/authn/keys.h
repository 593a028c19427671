// auth/authn/keys.h: the public and private keys JWTs are signed and verified with (RSA, and ECDSA on
// P-256, P-384 and P-521), as PEM files and as JSON Web Keys.
//
// ParseKeysPem reads what kube's --service-account-key-file accepts: any mix of PUBLIC KEY, RSA PUBLIC
// KEY, PRIVATE KEY, RSA PRIVATE KEY, EC PRIVATE KEY and CERTIFICATE blocks (a private key or a
// certificate contributes its public key for verification). KeyId is kube's key id: the unpadded
// base64url SHA-256 of the public key's PKIX DER, so a JWT's "kid" names the key that signed it
// without revealing it. JWKs convert both ways (RFC 7517: n/e for RSA, crv/x/y for EC).
// A JwsKey is an immutable, shared handle: thread-safe.
#pragma once

#include <openssl/types.h>

#include <boost/json/object.hpp>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::authn {

class JwsKey {
 public:
  enum class Type { kRsa, kEc };

  JwsKey() = default;
  // Takes ownership of `pkey`.
  static StatusOr<JwsKey> FromEvp(EVP_PKEY* pkey);
  // An RSA or EC public key from a JWK object.
  static StatusOr<JwsKey> FromJwk(const boost::json::object& jwk);

  bool valid() const { return static_cast<bool>(pkey_); }
  Type type() const { return type_; }
  bool is_private() const { return private_; }
  // EC curve size: 256, 384 or 521; 0 for RSA.
  int curve_bits() const { return curve_bits_; }
  // The JWS algorithm kube signs with for this key: RS256 for RSA, ES256/ES384/ES512 by curve.
  std::string DefaultAlgorithm() const;
  // kube's key id (see above); computed once.
  const std::string& KeyId() const { return kid_; }
  // The public JWK: {"use":"sig","kty":..,"kid":..,"alg":..,"n"/"e" or "crv"/"x"/"y"}.
  boost::json::object PublicJwk() const;
  // A JwsKey holding only the public half.
  JwsKey PublicOnly() const;
  // The same key under another key id (a JWKS names its keys itself; "" when it does not).
  JwsKey WithKeyId(std::string kid) const {
    JwsKey k = *this;
    k.kid_ = std::move(kid);
    return k;
  }
  EVP_PKEY* evp() const { return pkey_.get(); }

 private:
  std::shared_ptr<EVP_PKEY> pkey_;
  Type type_ = Type::kRsa;
  bool private_ = false;
  int curve_bits_ = 0;
  std::string kid_;
};

// Every key in a PEM bundle. `source` names the file in errors. A bundle without any key is an
// error ("data does not contain any valid RSA or ECDSA public keys").
StatusOr<std::vector<JwsKey>> ParseKeysPem(std::string_view pem, std::string_view source);
StatusOr<std::vector<JwsKey>> LoadKeysFile(const std::string& path);
// Exactly one private key (the signing key).
StatusOr<JwsKey> LoadPrivateKeyFile(const std::string& path);
StatusOr<JwsKey> ParsePrivateKeyPem(std::string_view pem, std::string_view source);

// A JWKS document {"keys":[...]} of the public halves, deduplicated by key id.
boost::json::object JwksDocument(const std::vector<JwsKey>& keys);
// The keys of a JWKS document (keys of other types or uses are skipped, as go-jose does).
StatusOr<std::vector<JwsKey>> ParseJwks(const boost::json::object& doc);

}  // namespace capstan::authn
