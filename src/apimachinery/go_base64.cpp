#include "apimachinery/go_base64.h"

namespace capstan::apimachinery {
namespace {

bool IsAlphabet(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}
bool IsNewline(unsigned char c) { return c == '\n' || c == '\r'; }

// One quantum of Go's decoder (encoding/base64 decodeQuantum) from `si`; advances si. Returns -1 or
// the error offset; `done` is set when the input ended (cleanly) inside this call.
int64_t Quantum(std::string_view src, size_t& si, bool& done) {
  for (int j = 0; j < 4; ++j) {
    if (si == src.size()) {
      if (j == 0) {
        done = true;
        return -1;
      }
      // A short final group: Go wants padding (StdEncoding pads).
      return static_cast<int64_t>(si) - j;
    }
    auto in = static_cast<unsigned char>(src[si]);
    ++si;
    if (IsAlphabet(in)) continue;
    if (IsNewline(in)) {
      --j;
      continue;
    }
    if (in != '=') return static_cast<int64_t>(si) - 1;
    // Padding.
    switch (j) {
      case 0:
      case 1: return static_cast<int64_t>(si) - 1;
      case 2:
        while (si < src.size() && IsNewline(static_cast<unsigned char>(src[si]))) ++si;
        if (si == src.size()) return static_cast<int64_t>(src.size());
        if (src[si] != '=') return static_cast<int64_t>(si) - 1;
        ++si;
        break;
      default: break;
    }
    while (si < src.size() && IsNewline(static_cast<unsigned char>(src[si]))) ++si;
    if (si < src.size()) return static_cast<int64_t>(si);  // trailing garbage
    done = true;
    return -1;
  }
  return -1;
}

}  // namespace

int64_t GoBase64CorruptOffset(std::string_view in) {
  size_t si = 0;
  bool done = false;
  while (si < in.size() && !done) {
    int64_t err = Quantum(in, si, done);
    if (err >= 0) return err;
  }
  return -1;
}

std::string GoBase64ErrorText(int64_t offset) { return "illegal base64 data at input byte " + std::to_string(offset); }

}  // namespace capstan::apimachinery
