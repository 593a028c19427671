// auth/authn/digest.h: the SHA-256 digests the token paths compute on every request, without
// OpenSSL 3's per-call algorithm lookup (one-shot SHA256() and HMAC() fetch the algorithm from the
// provider under a lock on each call, which costs more than hashing a token).
//
// Sha256Digest hashes with an algorithm fetched once per process. HmacSha256 keeps a context keyed
// once at construction and duplicates it per message. Both are thread-safe: the shared state is only
// read after construction.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace capstan::authn {

// SHA-256 of `s`, 32 raw bytes.
std::string Sha256Digest(std::string_view s);

class HmacSha256 {
 public:
  explicit HmacSha256(std::string_view key);
  ~HmacSha256();
  HmacSha256(const HmacSha256&) = delete;
  HmacSha256& operator=(const HmacSha256&) = delete;

  // HMAC-SHA256(key, message), 32 raw bytes.
  std::string Sum(std::string_view message) const;

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

}  // namespace capstan::authn
