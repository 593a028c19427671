#include "apimachinery/names.h"

#include <openssl/rand.h>

#include <array>
#include <cstdint>

#include "util/check.h"

namespace capstan::apimachinery {
namespace {

void RandomBytes(unsigned char* buf, int n) { CAPSTAN_CHECK(RAND_bytes(buf, n) == 1); }

}  // namespace

std::string NewUid() {
  std::array<unsigned char, 16> b;
  RandomBytes(b.data(), static_cast<int>(b.size()));
  b[6] = (b[6] & 0x0f) | 0x40;  // version 4
  b[8] = (b[8] & 0x3f) | 0x80;  // RFC 4122 variant
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out.push_back('-');
    out.push_back(kHex[b[i] >> 4]);
    out.push_back(kHex[b[i] & 0xf]);
  }
  return out;
}

std::string RandomNameSuffix(size_t n) {
  std::string out;
  out.reserve(n);
  while (out.size() < n) {
    std::array<unsigned char, 16> b;
    RandomBytes(b.data(), static_cast<int>(b.size()));
    for (unsigned char c : b) {
      size_t idx = c & 0x1f;  // 5 bits, values past the alphabet are skipped as kube does
      if (idx < kNameSuffixAlphabet.size() && out.size() < n) out.push_back(kNameSuffixAlphabet[idx]);
    }
  }
  return out;
}

std::string GenerateName(std::string_view base) {
  if (base.size() > kMaxGeneratedNameLength) base = base.substr(0, kMaxGeneratedNameLength);
  return std::string(base) + RandomNameSuffix(5);
}

}  // namespace capstan::apimachinery
