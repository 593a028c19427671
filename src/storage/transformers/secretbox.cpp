#include "storage/transformers/secretbox.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "util/check.h"

namespace capstan::storage::transformers {
namespace {

using Block = std::array<uint32_t, 16>;

uint32_t Load32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

void Store32(unsigned char* p, uint32_t v) {
  p[0] = static_cast<unsigned char>(v);
  p[1] = static_cast<unsigned char>(v >> 8);
  p[2] = static_cast<unsigned char>(v >> 16);
  p[3] = static_cast<unsigned char>(v >> 24);
}

uint32_t Rotl(uint32_t v, int n) { return (v << n) | (v >> (32 - n)); }

// The Salsa20 double round, applied 10 times (20 rounds) to x in place.
void SalsaRounds(Block& x) {
  for (int i = 0; i < 10; ++i) {
    // Column round.
    x[4] ^= Rotl(x[0] + x[12], 7);
    x[8] ^= Rotl(x[4] + x[0], 9);
    x[12] ^= Rotl(x[8] + x[4], 13);
    x[0] ^= Rotl(x[12] + x[8], 18);
    x[9] ^= Rotl(x[5] + x[1], 7);
    x[13] ^= Rotl(x[9] + x[5], 9);
    x[1] ^= Rotl(x[13] + x[9], 13);
    x[5] ^= Rotl(x[1] + x[13], 18);
    x[14] ^= Rotl(x[10] + x[6], 7);
    x[2] ^= Rotl(x[14] + x[10], 9);
    x[6] ^= Rotl(x[2] + x[14], 13);
    x[10] ^= Rotl(x[6] + x[2], 18);
    x[3] ^= Rotl(x[15] + x[11], 7);
    x[7] ^= Rotl(x[3] + x[15], 9);
    x[11] ^= Rotl(x[7] + x[3], 13);
    x[15] ^= Rotl(x[11] + x[7], 18);
    // Row round.
    x[1] ^= Rotl(x[0] + x[3], 7);
    x[2] ^= Rotl(x[1] + x[0], 9);
    x[3] ^= Rotl(x[2] + x[1], 13);
    x[0] ^= Rotl(x[3] + x[2], 18);
    x[6] ^= Rotl(x[5] + x[4], 7);
    x[7] ^= Rotl(x[6] + x[5], 9);
    x[4] ^= Rotl(x[7] + x[6], 13);
    x[5] ^= Rotl(x[4] + x[7], 18);
    x[11] ^= Rotl(x[10] + x[9], 7);
    x[8] ^= Rotl(x[11] + x[10], 9);
    x[9] ^= Rotl(x[8] + x[11], 13);
    x[10] ^= Rotl(x[9] + x[8], 18);
    x[12] ^= Rotl(x[15] + x[14], 7);
    x[13] ^= Rotl(x[12] + x[15], 9);
    x[14] ^= Rotl(x[13] + x[12], 13);
    x[15] ^= Rotl(x[14] + x[13], 18);
  }
}

// "expand 32-byte k"
constexpr uint32_t kSigma[4] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};

// The input block: constants on the diagonal, the key around them, 16 bytes of `in` in the middle.
Block Setup(const unsigned char key[32], const unsigned char in[16]) {
  Block s;
  s[0] = kSigma[0];
  s[5] = kSigma[1];
  s[10] = kSigma[2];
  s[15] = kSigma[3];
  for (int i = 0; i < 4; ++i) {
    s[1 + i] = Load32(key + 4 * i);
    s[11 + i] = Load32(key + 16 + 4 * i);
    s[6 + i] = Load32(in + 4 * i);
  }
  return s;
}

// HSalsa20: a subkey from a key and the first 16 bytes of an XSalsa20 nonce.
void HSalsa20(unsigned char out[32], const unsigned char key[32], const unsigned char nonce16[16]) {
  Block x = Setup(key, nonce16);
  SalsaRounds(x);
  const int words[8] = {0, 5, 10, 15, 6, 7, 8, 9};
  for (int i = 0; i < 8; ++i) Store32(out + 4 * i, x[words[i]]);
}

// XORs `len` bytes of the Salsa20 keystream (key, 8-byte nonce, starting at block 0) into data.
void Salsa20Xor(unsigned char* data, size_t len, const unsigned char key[32], const unsigned char nonce8[8]) {
  unsigned char in[16] = {0};
  std::memcpy(in, nonce8, 8);
  uint64_t counter = 0;
  unsigned char ks[64];
  for (size_t off = 0; off < len; off += 64, ++counter) {
    for (int i = 0; i < 8; ++i) in[8 + i] = static_cast<unsigned char>(counter >> (8 * i));
    Block input = Setup(key, in);
    Block x = input;
    SalsaRounds(x);
    for (int i = 0; i < 16; ++i) Store32(ks + 4 * i, x[i] + input[i]);
    size_t n = std::min<size_t>(64, len - off);
    for (size_t i = 0; i < n; ++i) data[off + i] ^= ks[i];
  }
  OPENSSL_cleanse(ks, sizeof(ks));
}

// XSalsa20 keystream XOR over `buf` (which starts with the 32 bytes that become the Poly1305 key).
void XSalsa20Xor(unsigned char* buf, size_t len, std::string_view nonce, std::string_view key) {
  unsigned char subkey[32];
  HSalsa20(subkey, reinterpret_cast<const unsigned char*>(key.data()),
           reinterpret_cast<const unsigned char*>(nonce.data()));
  Salsa20Xor(buf, len, subkey, reinterpret_cast<const unsigned char*>(nonce.data()) + 16);
  OPENSSL_cleanse(subkey, sizeof(subkey));
}

void Poly1305(unsigned char tag[16], const unsigned char key[32], const unsigned char* msg, size_t len) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "POLY1305", nullptr);
  CAPSTAN_CHECK(mac != nullptr);
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  CAPSTAN_CHECK(ctx != nullptr);
  CAPSTAN_CHECK(EVP_MAC_init(ctx, key, 32, nullptr) == 1);
  CAPSTAN_CHECK(EVP_MAC_update(ctx, msg, len) == 1);
  size_t out_len = 0;
  CAPSTAN_CHECK(EVP_MAC_final(ctx, tag, &out_len, 16) == 1 && out_len == 16);
  EVP_MAC_CTX_free(ctx);
  EVP_MAC_free(mac);
}

}  // namespace

std::string SecretboxSeal(std::string_view message, std::string_view nonce, std::string_view key) {
  CAPSTAN_CHECK(nonce.size() == kSecretboxNonceSize && key.size() == kSecretboxKeySize);
  // 32 zero bytes, then the message: the first 32 keystream bytes become the Poly1305 key.
  std::string buf(32 + message.size(), '\0');
  std::memcpy(buf.data() + 32, message.data(), message.size());
  auto* b = reinterpret_cast<unsigned char*>(buf.data());
  XSalsa20Xor(b, buf.size(), nonce, key);
  std::string out(kSecretboxOverhead + message.size(), '\0');
  auto* o = reinterpret_cast<unsigned char*>(out.data());
  Poly1305(o, b, b + 32, message.size());
  std::memcpy(o + kSecretboxOverhead, b + 32, message.size());
  OPENSSL_cleanse(b, 32);
  return out;
}

std::optional<std::string> SecretboxOpen(std::string_view box, std::string_view nonce, std::string_view key) {
  CAPSTAN_CHECK(nonce.size() == kSecretboxNonceSize && key.size() == kSecretboxKeySize);
  if (box.size() < kSecretboxOverhead) return std::nullopt;
  const size_t n = box.size() - kSecretboxOverhead;
  std::string buf(32 + n, '\0');
  std::memcpy(buf.data() + 32, box.data() + kSecretboxOverhead, n);
  auto* b = reinterpret_cast<unsigned char*>(buf.data());
  // The Poly1305 key is the first keystream block's first half: derive it, check the tag, then decrypt.
  unsigned char poly_key[64] = {0};
  XSalsa20Xor(poly_key, sizeof(poly_key), nonce, key);
  unsigned char tag[16];
  Poly1305(tag, poly_key, b + 32, n);
  OPENSSL_cleanse(poly_key, sizeof(poly_key));
  if (CRYPTO_memcmp(tag, box.data(), 16) != 0) return std::nullopt;
  XSalsa20Xor(b, buf.size(), nonce, key);
  return buf.substr(32);
}

namespace {

class SecretboxTransformer : public Transformer {
 public:
  explicit SecretboxTransformer(std::string key) : key_(std::move(key)) {}
  ~SecretboxTransformer() override { OPENSSL_cleanse(key_.data(), key_.size()); }

  StatusOr<std::string> ToStorage(std::string_view data, std::string_view) const override {
    std::string nonce(kSecretboxNonceSize, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(nonce.data()), static_cast<int>(nonce.size())) != 1) {
      return Status(500, "InternalError", "unable to read sufficient random bytes");
    }
    return nonce + SecretboxSeal(data, nonce, key_);
  }

  StatusOr<std::string> FromStorage(std::string_view stored, std::string_view, bool* stale) const override {
    if (stale) *stale = false;
    if (stored.size() < kSecretboxOverhead + kSecretboxNonceSize) {
      return Status(500, "InternalError", "the stored data was shorter than the required size");
    }
    auto plain = SecretboxOpen(stored.substr(kSecretboxNonceSize), stored.substr(0, kSecretboxNonceSize), key_);
    // kube's wording for a box that does not open (wrong key, tampered data).
    if (!plain) return Status(500, "InternalError", "output array was not large enough for encryption");
    return std::move(*plain);
  }

 private:
  std::string key_;
};

}  // namespace

std::unique_ptr<Transformer> NewSecretboxTransformer(std::string key) {
  return std::make_unique<SecretboxTransformer>(std::move(key));
}

}  // namespace capstan::storage::transformers
