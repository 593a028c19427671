#include "storage/transformers/aes.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "util/check.h"

namespace capstan::storage::transformers {
namespace {

constexpr size_t kGcmNonce = 12;
constexpr size_t kGcmTag = 16;
constexpr size_t kBlock = 16;

Status Fail(const char* why) { return Status(500, "InternalError", why); }

const EVP_CIPHER* GcmCipher(size_t key_size) {
  return key_size == 16 ? EVP_aes_128_gcm() : key_size == 24 ? EVP_aes_192_gcm() : EVP_aes_256_gcm();
}

const EVP_CIPHER* CbcCipher(size_t key_size) {
  return key_size == 16 ? EVP_aes_128_cbc() : key_size == 24 ? EVP_aes_192_cbc() : EVP_aes_256_cbc();
}

struct CtxDeleter {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};
using Ctx = std::unique_ptr<EVP_CIPHER_CTX, CtxDeleter>;

auto* U(std::string& s) { return reinterpret_cast<unsigned char*>(s.data()); }
auto* U(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

class KeyHolder {
 public:
  explicit KeyHolder(std::string key) : key_(std::move(key)) {
    CAPSTAN_CHECK(key_.size() == 16 || key_.size() == 24 || key_.size() == 32);
  }
  ~KeyHolder() { OPENSSL_cleanse(key_.data(), key_.size()); }
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

class AesGcm : public Transformer {
 public:
  explicit AesGcm(std::string key) : k_(std::move(key)) {}

  StatusOr<std::string> ToStorage(std::string_view data, std::string_view ad) const override {
    std::string out(kGcmNonce + data.size() + kGcmTag, '\0');
    if (RAND_bytes(U(out), kGcmNonce) != 1) return Fail("failed to write nonce for AES-GCM");
    Ctx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    bool ok = ctx && EVP_EncryptInit_ex(ctx.get(), GcmCipher(k_.key().size()), nullptr, nullptr, nullptr) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kGcmNonce, nullptr) == 1 &&
              EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, U(k_.key()), U(out)) == 1 &&
              EVP_EncryptUpdate(ctx.get(), nullptr, &len, U(ad), static_cast<int>(ad.size())) == 1 &&
              EVP_EncryptUpdate(ctx.get(), U(out) + kGcmNonce, &len, U(data), static_cast<int>(data.size())) == 1 &&
              EVP_EncryptFinal_ex(ctx.get(), U(out) + kGcmNonce + len, &len) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kGcmTag, U(out) + kGcmNonce + data.size()) == 1;
    if (!ok) return Fail("AES-GCM encryption failed");
    return out;
  }

  StatusOr<std::string> FromStorage(std::string_view stored, std::string_view ad, bool* stale) const override {
    if (stale) *stale = false;
    if (stored.size() < kGcmNonce) return Fail("the stored data was shorter than the required size");
    if (stored.size() < kGcmNonce + kGcmTag) return Fail("cipher: message authentication failed");
    const size_t n = stored.size() - kGcmNonce - kGcmTag;
    std::string out(n, '\0');
    std::string tag(stored.substr(kGcmNonce + n));
    Ctx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    bool ok = ctx && EVP_DecryptInit_ex(ctx.get(), GcmCipher(k_.key().size()), nullptr, nullptr, nullptr) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kGcmNonce, nullptr) == 1 &&
              EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr, U(k_.key()), U(stored)) == 1 &&
              EVP_DecryptUpdate(ctx.get(), nullptr, &len, U(ad), static_cast<int>(ad.size())) == 1 &&
              EVP_DecryptUpdate(ctx.get(), U(out), &len, U(stored) + kGcmNonce, static_cast<int>(n)) == 1 &&
              EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kGcmTag, U(tag)) == 1 &&
              EVP_DecryptFinal_ex(ctx.get(), U(out) + len, &len) == 1;
    if (!ok) {
      OPENSSL_cleanse(out.data(), out.size());
      return Fail("cipher: message authentication failed");
    }
    return out;
  }

 private:
  KeyHolder k_;
};

class AesCbc : public Transformer {
 public:
  explicit AesCbc(std::string key) : k_(std::move(key)) {}

  StatusOr<std::string> ToStorage(std::string_view data, std::string_view) const override {
    const size_t pad = kBlock - data.size() % kBlock;
    std::string plain(data);
    plain.append(pad, static_cast<char>(pad));
    std::string out(kBlock + plain.size(), '\0');
    if (RAND_bytes(U(out), kBlock) != 1) return Fail("unable to read sufficient random bytes");
    Ctx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    bool ok = ctx && EVP_EncryptInit_ex(ctx.get(), CbcCipher(k_.key().size()), nullptr, U(k_.key()), U(out)) == 1 &&
              EVP_CIPHER_CTX_set_padding(ctx.get(), 0) == 1 &&
              EVP_EncryptUpdate(ctx.get(), U(out) + kBlock, &len, U(plain), static_cast<int>(plain.size())) == 1 &&
              EVP_EncryptFinal_ex(ctx.get(), U(out) + kBlock + len, &len) == 1;
    OPENSSL_cleanse(plain.data(), plain.size());
    if (!ok) return Fail("AES-CBC encryption failed");
    return out;
  }

  StatusOr<std::string> FromStorage(std::string_view stored, std::string_view, bool* stale) const override {
    if (stale) *stale = false;
    if (stored.size() < kBlock) return Fail("the stored data was shorter than the required size");
    std::string_view body = stored.substr(kBlock);
    if (body.size() % kBlock != 0) return Fail("the stored data is not a multiple of the block size");
    std::string out(body.size(), '\0');
    Ctx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    bool ok = ctx && EVP_DecryptInit_ex(ctx.get(), CbcCipher(k_.key().size()), nullptr, U(k_.key()), U(stored)) == 1 &&
              EVP_CIPHER_CTX_set_padding(ctx.get(), 0) == 1 &&
              EVP_DecryptUpdate(ctx.get(), U(out), &len, U(body), static_cast<int>(body.size())) == 1 &&
              EVP_DecryptFinal_ex(ctx.get(), U(out) + len, &len) == 1;
    if (!ok) return Fail("AES-CBC decryption failed");
    const size_t pad = out.empty() ? 0 : static_cast<unsigned char>(out.back());
    if (pad == 0 || pad > out.size()) return Fail("invalid PKCS7 data (empty or not padded)");
    for (size_t i = out.size() - pad; i < out.size(); ++i) {
      if (static_cast<unsigned char>(out[i]) != pad) return Fail("invalid padding on input");
    }
    out.resize(out.size() - pad);
    return out;
  }

 private:
  KeyHolder k_;
};

}  // namespace

std::unique_ptr<Transformer> NewAesGcmTransformer(std::string key) { return std::make_unique<AesGcm>(std::move(key)); }
std::unique_ptr<Transformer> NewAesCbcTransformer(std::string key) { return std::make_unique<AesCbc>(std::move(key)); }

}  // namespace capstan::storage::transformers
