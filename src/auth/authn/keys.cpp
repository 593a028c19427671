#include "auth/authn/keys.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

#include <boost/json.hpp>
#include <fstream>
#include <set>
#include <sstream>

#include "util/strings.h"

namespace capstan::authn {

namespace json = boost::json;

namespace {

std::string BnBytes(const BIGNUM* bn, size_t pad_to = 0) {
  size_t n = static_cast<size_t>(BN_num_bytes(bn));
  size_t len = std::max(n, pad_to);
  std::string out(len, '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(len));
  return out;
}

int CurveBits(const std::string& group) {
  if (group == "prime256v1" || group == "P-256" || group == "secp256r1") return 256;
  if (group == "secp384r1" || group == "P-384") return 384;
  if (group == "secp521r1" || group == "P-521") return 521;
  return 0;
}

const char* CurveJwkName(int bits) {
  switch (bits) {
    case 256: return "P-256";
    case 384: return "P-384";
    default: return "P-521";
  }
}

const char* CurveOsslName(int bits) {
  switch (bits) {
    case 256: return "prime256v1";
    case 384: return "secp384r1";
    default: return "secp521r1";
  }
}

size_t CoordinateBytes(int bits) { return static_cast<size_t>((bits + 7) / 8); }

bool HasPrivatePart(EVP_PKEY* pkey) {
  BIGNUM* d = nullptr;
  const char* name = EVP_PKEY_is_a(pkey, "RSA") ? OSSL_PKEY_PARAM_RSA_D : OSSL_PKEY_PARAM_PRIV_KEY;
  bool has = EVP_PKEY_get_bn_param(pkey, name, &d) == 1 && d != nullptr;
  BN_clear_free(d);
  return has;
}

StatusOr<std::string> JwkField(const json::object& jwk, const char* name) {
  const auto* v = jwk.if_contains(name);
  if (!v || !v->is_string()) return Status(400, "BadRequest", std::string("square/go-jose: invalid JWK, missing ") + name);
  std::string out;
  if (!Base64UrlDecode(v->get_string(), out)) {
    return Status(400, "BadRequest", std::string("square/go-jose: invalid JWK, bad base64 in ") + name);
  }
  return out;
}

BIGNUM* BnFrom(const std::string& bytes) {
  return BN_bin2bn(reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()), nullptr);
}

// EVP_PKEY from OSSL params (public key only).
EVP_PKEY* FromData(const char* type, OSSL_PARAM_BLD* bld) {
  OSSL_PARAM* params = OSSL_PARAM_BLD_to_param(bld);
  EVP_PKEY* pkey = nullptr;
  EVP_PKEY_CTX* ctx = EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr);
  if (params && ctx && EVP_PKEY_fromdata_init(ctx) == 1) {
    if (EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) != 1) pkey = nullptr;
  }
  EVP_PKEY_CTX_free(ctx);
  OSSL_PARAM_free(params);
  return pkey;
}

StatusOr<std::string> ReadFile(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status(500, "InternalError", std::string("failed to read ") + what + " " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

StatusOr<JwsKey> JwsKey::FromEvp(EVP_PKEY* pkey) {
  std::shared_ptr<EVP_PKEY> owned(pkey, EVP_PKEY_free);
  if (!pkey) return Status(500, "InternalError", "no key");
  JwsKey k;
  if (EVP_PKEY_is_a(pkey, "RSA")) {
    k.type_ = Type::kRsa;
    if (EVP_PKEY_get_bits(pkey) < 2048) return Status(500, "InternalError", "RSA keys must be at least 2048 bits");
  } else if (EVP_PKEY_is_a(pkey, "EC")) {
    k.type_ = Type::kEc;
    char group[64] = {0};
    size_t len = 0;
    if (EVP_PKEY_get_utf8_string_param(pkey, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, &len) != 1) {
      return Status(500, "InternalError", "EC key without a named curve");
    }
    k.curve_bits_ = CurveBits(group);
    if (k.curve_bits_ == 0) return Status(500, "InternalError", std::string("unsupported EC curve ") + group);
  } else {
    return Status(500, "InternalError", "only RSA and ECDSA keys are supported");
  }
  k.private_ = HasPrivatePart(pkey);
  k.pkey_ = std::move(owned);
  // kube's keyIDFromPublicKey.
  int der_len = i2d_PUBKEY(pkey, nullptr);
  if (der_len <= 0) return Status(500, "InternalError", "cannot encode the public key");
  std::string der(static_cast<size_t>(der_len), '\0');
  auto* p = reinterpret_cast<unsigned char*>(der.data());
  i2d_PUBKEY(pkey, &p);
  unsigned char md[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(der.data()), der.size(), md);
  k.kid_ = Base64UrlEncode(std::string_view(reinterpret_cast<char*>(md), sizeof md));
  return k;
}

std::string JwsKey::DefaultAlgorithm() const {
  if (type_ == Type::kRsa) return "RS256";
  switch (curve_bits_) {
    case 256: return "ES256";
    case 384: return "ES384";
    default: return "ES512";
  }
}

JwsKey JwsKey::PublicOnly() const {
  if (!private_) return *this;
  int len = i2d_PUBKEY(pkey_.get(), nullptr);
  std::string der(static_cast<size_t>(std::max(len, 0)), '\0');
  auto* w = reinterpret_cast<unsigned char*>(der.data());
  i2d_PUBKEY(pkey_.get(), &w);
  const auto* r = reinterpret_cast<const unsigned char*>(der.data());
  auto k = FromEvp(d2i_PUBKEY(nullptr, &r, static_cast<long>(der.size())));
  return k.ok() ? *k : *this;
}

json::object JwsKey::PublicJwk() const {
  json::object jwk;
  jwk["use"] = "sig";
  if (type_ == Type::kRsa) {
    BIGNUM* n = nullptr;
    BIGNUM* e = nullptr;
    EVP_PKEY_get_bn_param(pkey_.get(), OSSL_PKEY_PARAM_RSA_N, &n);
    EVP_PKEY_get_bn_param(pkey_.get(), OSSL_PKEY_PARAM_RSA_E, &e);
    jwk["kty"] = "RSA";
    jwk["kid"] = kid_;
    jwk["alg"] = DefaultAlgorithm();
    jwk["n"] = n ? Base64UrlEncode(BnBytes(n)) : "";
    jwk["e"] = e ? Base64UrlEncode(BnBytes(e)) : "";
    BN_free(n);
    BN_free(e);
  } else {
    BIGNUM* x = nullptr;
    BIGNUM* y = nullptr;
    EVP_PKEY_get_bn_param(pkey_.get(), OSSL_PKEY_PARAM_EC_PUB_X, &x);
    EVP_PKEY_get_bn_param(pkey_.get(), OSSL_PKEY_PARAM_EC_PUB_Y, &y);
    size_t size = CoordinateBytes(curve_bits_);
    jwk["kty"] = "EC";
    jwk["kid"] = kid_;
    jwk["crv"] = CurveJwkName(curve_bits_);
    jwk["alg"] = DefaultAlgorithm();
    jwk["x"] = x ? Base64UrlEncode(BnBytes(x, size)) : "";
    jwk["y"] = y ? Base64UrlEncode(BnBytes(y, size)) : "";
    BN_free(x);
    BN_free(y);
  }
  return jwk;
}

StatusOr<JwsKey> JwsKey::FromJwk(const json::object& jwk) {
  const auto* kty = jwk.if_contains("kty");
  std::string type = kty && kty->is_string() ? std::string(kty->get_string()) : "";
  OSSL_PARAM_BLD* bld = OSSL_PARAM_BLD_new();
  if (!bld) return Status(500, "InternalError", "out of memory");
  EVP_PKEY* pkey = nullptr;
  Status err;
  if (type == "RSA") {
    auto n = JwkField(jwk, "n");
    auto e = JwkField(jwk, "e");
    if (!n.ok() || !e.ok()) {
      err = !n.ok() ? n.status() : e.status();
    } else {
      BIGNUM* bn_n = BnFrom(*n);
      BIGNUM* bn_e = BnFrom(*e);
      OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, bn_n);
      OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, bn_e);
      pkey = FromData("RSA", bld);
      BN_free(bn_n);
      BN_free(bn_e);
    }
  } else if (type == "EC") {
    const auto* crv = jwk.if_contains("crv");
    int bits = crv && crv->is_string() ? CurveBits(std::string(crv->get_string())) : 0;
    auto x = JwkField(jwk, "x");
    auto y = JwkField(jwk, "y");
    if (bits == 0) {
      err = Status(400, "BadRequest", "square/go-jose: unsupported elliptic curve");
    } else if (!x.ok() || !y.ok()) {
      err = !x.ok() ? x.status() : y.status();
    } else if (x->size() != CoordinateBytes(bits) || y->size() != CoordinateBytes(bits)) {
      err = Status(400, "BadRequest", "square/go-jose: invalid EC key, wrong coordinate size");
    } else {
      std::string point = "\x04" + *x + *y;
      OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, CurveOsslName(bits), 0);
      OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point.data(), point.size());
      pkey = FromData("EC", bld);
    }
  } else {
    err = Status(400, "BadRequest", "square/go-jose: unknown json web key type '" + type + "'");
  }
  OSSL_PARAM_BLD_free(bld);
  if (!err.ok()) return err;
  if (!pkey) return Status(400, "BadRequest", "square/go-jose: invalid " + type + " key");
  return FromEvp(pkey);
}

StatusOr<std::vector<JwsKey>> ParseKeysPem(std::string_view pem, std::string_view source) {
  std::vector<JwsKey> keys;
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  for (;;) {
    char* name = nullptr;
    char* header = nullptr;
    unsigned char* data = nullptr;
    long len = 0;
    if (PEM_read_bio(bio, &name, &header, &data, &len) != 1) break;
    std::string block(name);
    const unsigned char* p = data;
    EVP_PKEY* pkey = nullptr;
    if (block == "PUBLIC KEY") {
      pkey = d2i_PUBKEY(nullptr, &p, len);
    } else if (block == "RSA PUBLIC KEY") {
      pkey = d2i_PublicKey(EVP_PKEY_RSA, nullptr, &p, len);
    } else if (block == "PRIVATE KEY") {
      pkey = d2i_AutoPrivateKey(nullptr, &p, len);
    } else if (block == "RSA PRIVATE KEY") {
      pkey = d2i_PrivateKey(EVP_PKEY_RSA, nullptr, &p, len);
    } else if (block == "EC PRIVATE KEY") {
      pkey = d2i_PrivateKey(EVP_PKEY_EC, nullptr, &p, len);
    } else if (block == "CERTIFICATE") {
      if (X509* cert = d2i_X509(nullptr, &p, len)) {
        pkey = X509_get_pubkey(cert);
        X509_free(cert);
      }
    }
    OPENSSL_free(name);
    OPENSSL_free(header);
    OPENSSL_free(data);
    if (!pkey) continue;
    auto k = JwsKey::FromEvp(pkey);
    if (!k.ok()) {
      BIO_free(bio);
      return Status(500, "InternalError", "error reading keys from " + std::string(source) + ": " + k.status().message());
    }
    keys.push_back(std::move(*k));
  }
  BIO_free(bio);
  if (keys.empty()) {
    return Status(500, "InternalError",
                  "error reading public key file " + std::string(source) + ": data does not contain any valid RSA or ECDSA public keys");
  }
  return keys;
}

StatusOr<std::vector<JwsKey>> LoadKeysFile(const std::string& path) {
  auto data = ReadFile(path, "key file");
  if (!data.ok()) return data.TakeStatus();
  return ParseKeysPem(*data, path);
}

StatusOr<JwsKey> ParsePrivateKeyPem(std::string_view pem, std::string_view source) {
  auto keys = ParseKeysPem(pem, source);
  if (!keys.ok()) return keys.TakeStatus();
  for (auto& k : *keys) {
    if (k.is_private()) return k;
  }
  return Status(500, "InternalError", "failed to parse service-account-signing-key-file " + std::string(source) +
                                          ": data does not contain a private key");
}

StatusOr<JwsKey> LoadPrivateKeyFile(const std::string& path) {
  auto data = ReadFile(path, "private key file");
  if (!data.ok()) return data.TakeStatus();
  return ParsePrivateKeyPem(*data, path);
}

json::object JwksDocument(const std::vector<JwsKey>& keys) {
  json::array arr;
  std::set<std::string> seen;
  for (const auto& k : keys) {
    if (!seen.insert(k.KeyId()).second) continue;
    arr.push_back(k.PublicJwk());
  }
  json::object doc;
  doc["keys"] = std::move(arr);
  return doc;
}

StatusOr<std::vector<JwsKey>> ParseJwks(const json::object& doc) {
  const auto* keys = doc.if_contains("keys");
  if (!keys || !keys->is_array()) return Status(400, "BadRequest", "oidc: failed to decode keys: no \"keys\" array");
  std::vector<JwsKey> out;
  for (const auto& v : keys->get_array()) {
    if (!v.is_object()) continue;
    const auto& o = v.get_object();
    if (const auto* use = o.if_contains("use"); use && use->is_string() && use->get_string() != "sig") continue;
    auto k = JwsKey::FromJwk(o);
    if (!k.ok()) continue;
    // A JWK names its own key id (or none); tokens are matched against that.
    const auto* kid = o.if_contains("kid");
    out.push_back(k->WithKeyId(kid && kid->is_string() ? std::string(kid->get_string()) : ""));
  }
  return out;
}

}  // namespace capstan::authn
