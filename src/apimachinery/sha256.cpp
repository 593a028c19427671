#include "apimachinery/sha256.h"

#include <openssl/sha.h>

namespace capstan::apimachinery {

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : digest) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string Sha256Label(std::string_view data) { return data.empty() ? "" : "sha256:" + Sha256Hex(data); }

}  // namespace capstan::apimachinery
