#include "util/duration.h"

#include <cstdint>
#include <cstdio>

namespace capstan {

std::optional<std::chrono::nanoseconds> ParseGoDuration(std::string_view s) {
  if (s.empty()) return std::nullopt;
  bool neg = false;
  if (s[0] == '-' || s[0] == '+') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
  if (s.empty()) return std::nullopt;
  long double total = 0;
  while (!s.empty()) {
    // number: digits [. digits]
    size_t i = 0;
    long double v = 0;
    bool digits = false;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      v = v * 10 + (s[i] - '0');
      ++i;
      digits = true;
    }
    if (i < s.size() && s[i] == '.') {
      ++i;
      long double scale = 0.1L;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        v += (s[i] - '0') * scale;
        scale /= 10;
        ++i;
        digits = true;
      }
    }
    if (!digits) return std::nullopt;
    s.remove_prefix(i);
    size_t u = 0;
    while (u < s.size() && !(s[u] >= '0' && s[u] <= '9') && s[u] != '.') ++u;
    std::string_view unit = s.substr(0, u);
    s.remove_prefix(u);
    long double mult;
    if (unit == "ns") mult = 1;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") mult = 1e3L;
    else if (unit == "ms") mult = 1e6L;
    else if (unit == "s") mult = 1e9L;
    else if (unit == "m") mult = 60e9L;
    else if (unit == "h") mult = 3600e9L;
    else return std::nullopt;  // missing or unknown unit
    total += v * mult;
    if (total > 9.2e18L) return std::nullopt;
  }
  auto ns = static_cast<int64_t>(total + 0.5L);
  return std::chrono::nanoseconds(neg ? -ns : ns);
}

namespace {
// Appends v / 10^prec with trailing zeros of the fraction removed.
std::string Frac(uint64_t v, int prec) {
  uint64_t pow = 1;
  for (int i = 0; i < prec; ++i) pow *= 10;
  std::string out = std::to_string(v / pow);
  uint64_t frac = v % pow;
  if (frac) {
    std::string f = std::to_string(frac);
    f.insert(0, static_cast<size_t>(prec) - f.size(), '0');
    while (!f.empty() && f.back() == '0') f.pop_back();
    out += "." + f;
  }
  return out;
}
}  // namespace

std::string FormatGoDuration(std::chrono::nanoseconds d) {
  int64_t n = d.count();
  if (n == 0) return "0s";
  bool neg = n < 0;
  uint64_t u = neg ? static_cast<uint64_t>(-(n + 1)) + 1 : static_cast<uint64_t>(n);
  std::string out;
  if (u < 1000000000ULL) {
    if (u < 1000) out = std::to_string(u) + "ns";
    else if (u < 1000000) out = Frac(u, 3) + "\xC2\xB5s";
    else out = Frac(u, 6) + "ms";
  } else {
    uint64_t secs_ns = u % 60000000000ULL;
    uint64_t mins = u / 60000000000ULL;
    std::string s = Frac(secs_ns, 9) + "s";
    if (mins > 0) {
      uint64_t h = mins / 60;
      mins %= 60;
      s = std::to_string(mins) + "m" + s;
      if (h > 0) s = std::to_string(h) + "h" + s;
    }
    out = s;
  }
  return neg ? "-" + out : out;
}

}  // namespace capstan
