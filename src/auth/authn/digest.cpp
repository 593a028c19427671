#include "auth/authn/digest.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/params.h>
#include <openssl/sha.h>

#include "util/check.h"

namespace capstan::authn {

namespace {

const EVP_MD* Sha256Md() {
  static EVP_MD* md = [] {
    EVP_MD* m = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    CAPSTAN_CHECK(m != nullptr);
    return m;
  }();
  return md;
}

EVP_MAC* HmacMac() {
  static EVP_MAC* mac = [] {
    EVP_MAC* m = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    CAPSTAN_CHECK(m != nullptr);
    return m;
  }();
  return mac;
}

}  // namespace

std::string Sha256Digest(std::string_view s) {
  unsigned char md[SHA256_DIGEST_LENGTH];
  unsigned int len = 0;
  CAPSTAN_CHECK(EVP_Digest(s.data(), s.size(), md, &len, Sha256Md(), nullptr) == 1);
  return std::string(reinterpret_cast<char*>(md), len);
}

struct HmacSha256::Ctx {
  EVP_MAC_CTX* keyed = nullptr;
  ~Ctx() { EVP_MAC_CTX_free(keyed); }
};

HmacSha256::HmacSha256(std::string_view key) : ctx_(std::make_unique<Ctx>()) {
  ctx_->keyed = EVP_MAC_CTX_new(HmacMac());
  CAPSTAN_CHECK(ctx_->keyed != nullptr);
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_construct_end()};
  CAPSTAN_CHECK(EVP_MAC_init(ctx_->keyed, reinterpret_cast<const unsigned char*>(key.data()), key.size(), params) == 1);
}

HmacSha256::~HmacSha256() = default;

std::string HmacSha256::Sum(std::string_view message) const {
  EVP_MAC_CTX* c = EVP_MAC_CTX_dup(ctx_->keyed);
  CAPSTAN_CHECK(c != nullptr);
  unsigned char out[EVP_MAX_MD_SIZE];
  size_t len = 0;
  bool ok = EVP_MAC_update(c, reinterpret_cast<const unsigned char*>(message.data()), message.size()) == 1 &&
            EVP_MAC_final(c, out, &len, sizeof out) == 1;
  EVP_MAC_CTX_free(c);
  CAPSTAN_CHECK(ok);
  return std::string(reinterpret_cast<char*>(out), len);
}

}  // namespace capstan::authn
