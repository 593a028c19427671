#include "auth/authn/jwt.h"

#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <boost/json.hpp>
#include <cmath>

#include "util/strings.h"

namespace capstan::authn {

namespace json = boost::json;

namespace {

Status JwtError(std::string msg) { return Status(401, "Unauthorized", std::move(msg)); }

struct AlgInfo {
  const EVP_MD* md = nullptr;
  enum { kRsa, kPss, kEc } family = kRsa;
  int curve_bits = 0;
};

std::optional<AlgInfo> LookupAlg(std::string_view alg) {
  if (alg.size() != 5) return std::nullopt;
  std::string_view bits = alg.substr(2);
  const EVP_MD* md = bits == "256" ? EVP_sha256() : bits == "384" ? EVP_sha384() : bits == "512" ? EVP_sha512() : nullptr;
  if (!md) return std::nullopt;
  std::string_view fam = alg.substr(0, 2);
  AlgInfo info;
  info.md = md;
  if (fam == "RS") {
    info.family = AlgInfo::kRsa;
  } else if (fam == "PS") {
    info.family = AlgInfo::kPss;
  } else if (fam == "ES") {
    info.family = AlgInfo::kEc;
    info.curve_bits = bits == "256" ? 256 : bits == "384" ? 384 : 521;
  } else {
    return std::nullopt;
  }
  return info;
}

std::optional<json::object> ParseObject(std::string_view b64) {
  std::string raw;
  if (!Base64UrlDecode(b64, raw)) return std::nullopt;
  json::error_code ec;
  json::parse_options po;
  po.max_depth = 64;
  json::value v = json::parse(raw, ec, {}, po);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.get_object());
}

size_t EcCoordinateBytes(int bits) { return static_cast<size_t>((bits + 7) / 8); }

// JWS ECDSA signatures are r||s, each zero-padded to the coordinate size; OpenSSL speaks DER.
std::optional<std::string> EcRawToDer(std::string_view raw, int bits) {
  size_t n = EcCoordinateBytes(bits);
  if (raw.size() != 2 * n) return std::nullopt;
  BIGNUM* r = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data()), static_cast<int>(n), nullptr);
  BIGNUM* s = BN_bin2bn(reinterpret_cast<const unsigned char*>(raw.data() + n), static_cast<int>(n), nullptr);
  ECDSA_SIG* sig = ECDSA_SIG_new();
  if (!r || !s || !sig || ECDSA_SIG_set0(sig, r, s) != 1) {
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(sig);
    return std::nullopt;
  }
  unsigned char* der = nullptr;
  int len = i2d_ECDSA_SIG(sig, &der);
  ECDSA_SIG_free(sig);
  if (len <= 0) return std::nullopt;
  std::string out(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return out;
}

std::optional<std::string> EcDerToRaw(std::string_view der, int bits) {
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
  if (!sig) return std::nullopt;
  size_t n = EcCoordinateBytes(bits);
  std::string out(2 * n, '\0');
  const BIGNUM* r = ECDSA_SIG_get0_r(sig);
  const BIGNUM* s = ECDSA_SIG_get0_s(sig);
  bool ok = BN_bn2binpad(r, reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) > 0 &&
            BN_bn2binpad(s, reinterpret_cast<unsigned char*>(out.data() + n), static_cast<int>(n)) > 0;
  ECDSA_SIG_free(sig);
  if (!ok) return std::nullopt;
  return out;
}

Status CheckKeyFits(const AlgInfo& alg, const JwsKey& key) {
  if (alg.family == AlgInfo::kEc) {
    if (key.type() != JwsKey::Type::kEc || key.curve_bits() != alg.curve_bits) {
      return JwtError("square/go-jose: unexpected key type for the token's algorithm");
    }
  } else if (key.type() != JwsKey::Type::kRsa) {
    return JwtError("square/go-jose: unexpected key type for the token's algorithm");
  }
  return Status();
}

}  // namespace

bool IsSupportedJwsAlgorithm(std::string_view alg) { return LookupAlg(alg).has_value(); }

StatusOr<Jwt> ParseJwt(std::string_view token) {
  if (token.size() > kMaxJwtBytes) return JwtError("square/go-jose: token too large");
  size_t d1 = token.find('.');
  size_t d2 = d1 == std::string_view::npos ? d1 : token.find('.', d1 + 1);
  if (d2 == std::string_view::npos || token.find('.', d2 + 1) != std::string_view::npos) {
    return JwtError("square/go-jose: compact JWS format must have three parts");
  }
  Jwt jwt;
  auto header = ParseObject(token.substr(0, d1));
  if (!header) return JwtError("square/go-jose: invalid JWS header");
  jwt.header = std::move(*header);
  const auto* alg = jwt.header.if_contains("alg");
  if (!alg || !alg->is_string()) return JwtError("square/go-jose: missing algorithm in JWS header");
  jwt.alg = std::string(alg->get_string());
  if (!IsSupportedJwsAlgorithm(jwt.alg)) return JwtError("square/go-jose: unknown/unsupported algorithm " + GoQuote(jwt.alg));
  if (const auto* kid = jwt.header.if_contains("kid")) {
    if (!kid->is_string()) return JwtError("square/go-jose: invalid kid in JWS header");
    jwt.kid = std::string(kid->get_string());
  }
  if (const auto* crit = jwt.header.if_contains("crit"); crit && !crit->is_null()) {
    return JwtError("square/go-jose: unsupported crit header");
  }
  auto claims = ParseObject(token.substr(d1 + 1, d2 - d1 - 1));
  if (!claims) return JwtError("square/go-jose: invalid JWT claims");
  jwt.claims = std::move(*claims);
  if (!Base64UrlDecode(token.substr(d2 + 1), jwt.signature) || jwt.signature.empty()) {
    return JwtError("square/go-jose: invalid JWS signature");
  }
  jwt.signing_input = std::string(token.substr(0, d2));
  return jwt;
}

std::optional<std::string> PeekIssuer(std::string_view token) {
  if (token.size() > kMaxJwtBytes) return std::nullopt;
  if (StartsWith(TrimSpace(token), "{")) return std::nullopt;
  size_t d1 = token.find('.');
  if (d1 == std::string_view::npos) return std::nullopt;
  size_t d2 = token.find('.', d1 + 1);
  if (d2 == std::string_view::npos || token.find('.', d2 + 1) != std::string_view::npos) return std::nullopt;
  auto claims = ParseObject(token.substr(d1 + 1, d2 - d1 - 1));
  if (!claims) return std::nullopt;
  const auto* iss = claims->if_contains("iss");
  if (!iss) return std::string();
  if (!iss->is_string()) return std::nullopt;
  return std::string(iss->get_string());
}

Status VerifyJwt(const Jwt& jwt, const JwsKey& key) {
  auto alg = LookupAlg(jwt.alg);
  if (!alg) return JwtError("square/go-jose: unknown/unsupported algorithm");
  RETURN_IF_ERROR(CheckKeyFits(*alg, key));
  std::string sig = jwt.signature;
  if (alg->family == AlgInfo::kEc) {
    auto der = EcRawToDer(jwt.signature, alg->curve_bits);
    if (!der) return JwtError("square/go-jose: error in cryptographic primitive");
    sig = std::move(*der);
  }
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_PKEY_CTX* pctx = nullptr;
  bool ok = ctx && EVP_DigestVerifyInit(ctx, &pctx, alg->md, nullptr, key.evp()) == 1;
  if (ok && alg->family == AlgInfo::kPss) {
    ok = EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_AUTO) == 1;
  }
  ok = ok && EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                              reinterpret_cast<const unsigned char*>(jwt.signing_input.data()),
                              jwt.signing_input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  if (!ok) return JwtError("square/go-jose: error in cryptographic primitive");
  return Status();
}

StatusOr<std::string> SignJwt(const json::object& claims, const JwsKey& key) {
  if (!key.is_private()) return Status(500, "InternalError", "signing needs a private key");
  std::string alg_name = key.DefaultAlgorithm();
  auto alg = LookupAlg(alg_name);
  json::object header;
  header["alg"] = alg_name;
  header["kid"] = key.KeyId();
  std::string input = Base64UrlEncode(json::serialize(header)) + "." + Base64UrlEncode(json::serialize(claims));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  size_t len = 0;
  std::string sig;
  bool ok = ctx && EVP_DigestSignInit(ctx, nullptr, alg->md, nullptr, key.evp()) == 1 &&
            EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
  if (ok) {
    sig.resize(len);
    ok = EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                        reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
    sig.resize(len);
  }
  EVP_MD_CTX_free(ctx);
  if (!ok) return Status(500, "InternalError", "failed to sign the token");
  if (alg->family == AlgInfo::kEc) {
    auto raw = EcDerToRaw(sig, alg->curve_bits);
    if (!raw) return Status(500, "InternalError", "failed to sign the token");
    sig = std::move(*raw);
  }
  return input + "." + Base64UrlEncode(sig);
}

StatusOr<std::optional<int64_t>> NumericDateClaim(const json::object& claims, std::string_view name) {
  const auto* v = claims.if_contains(name);
  if (!v || v->is_null()) return std::optional<int64_t>();
  if (v->is_int64()) return std::optional<int64_t>(v->get_int64());
  if (v->is_uint64()) {
    if (v->get_uint64() > static_cast<uint64_t>(INT64_MAX)) return JwtError("square/go-jose/jwt: invalid " + std::string(name));
    return std::optional<int64_t>(static_cast<int64_t>(v->get_uint64()));
  }
  if (v->is_double()) {
    double d = v->get_double();
    if (!std::isfinite(d) || d > 9.2e18 || d < -9.2e18) return JwtError("square/go-jose/jwt: invalid " + std::string(name));
    return std::optional<int64_t>(static_cast<int64_t>(d));
  }
  return JwtError("square/go-jose/jwt: expected number for " + std::string(name));
}

StatusOr<std::vector<std::string>> AudienceClaim(const json::object& claims) {
  std::vector<std::string> out;
  const auto* v = claims.if_contains("aud");
  if (!v || v->is_null()) return out;
  if (v->is_string()) {
    out.emplace_back(v->get_string());
    return out;
  }
  if (v->is_array()) {
    for (const auto& a : v->get_array()) {
      if (!a.is_string()) return JwtError("square/go-jose/jwt: expected string or array value to unmarshal to Audience");
      out.emplace_back(a.get_string());
    }
    return out;
  }
  return JwtError("square/go-jose/jwt: expected string or array value to unmarshal to Audience");
}

StatusOr<std::optional<std::string>> StringClaim(const json::object& claims, std::string_view name) {
  const auto* v = claims.if_contains(name);
  if (!v || v->is_null()) return std::optional<std::string>();
  if (!v->is_string()) return JwtError("json: cannot unmarshal " + std::string(name) + " into Go value of type string");
  return std::optional<std::string>(std::string(v->get_string()));
}

}  // namespace capstan::authn
