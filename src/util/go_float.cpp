#include "util/go_float.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace capstan {
namespace {

// The shortest decimal digits of a finite, non-zero value: value = 0.d1d2...dn * 10^dp.
struct Digits {
  bool neg = false;
  std::string d;
  int dp = 0;
};

Digits Shortest(double v, bool as_float32) {
  char buf[64];
  std::to_chars_result r;
  if (as_float32) {
    r = std::to_chars(buf, buf + sizeof buf, static_cast<float>(v), std::chars_format::scientific);
  } else {
    r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  }
  std::string_view s(buf, r.ptr - buf);
  Digits out;
  size_t i = 0;
  if (s[i] == '-') {
    out.neg = true;
    ++i;
  }
  size_t e = s.find('e');
  for (; i < e; ++i) {
    if (s[i] != '.') out.d.push_back(s[i]);
  }
  int exp = std::atoi(std::string(s.substr(e + 1)).c_str());
  out.dp = exp + 1;
  return out;
}

void AppendE(std::string& out, const Digits& g) {
  if (g.neg) out.push_back('-');
  out.push_back(g.d[0]);
  if (g.d.size() > 1) {
    out.push_back('.');
    out.append(g.d, 1, std::string::npos);
  }
  out.push_back('e');
  int exp = g.dp - 1;
  out.push_back(exp < 0 ? '-' : '+');
  if (exp < 0) exp = -exp;
  if (exp < 10) out.push_back('0');
  out += std::to_string(exp);
}

void AppendF(std::string& out, const Digits& g) {
  if (g.neg) out.push_back('-');
  int nd = static_cast<int>(g.d.size());
  if (g.dp > 0) {
    int m = std::min(nd, g.dp);
    out.append(g.d, 0, m);
    for (int i = m; i < g.dp; ++i) out.push_back('0');
  } else {
    out.push_back('0');
  }
  int prec = std::max(nd - g.dp, 0);
  if (prec > 0) {
    out.push_back('.');
    for (int i = 1; i <= prec; ++i) {
      int j = g.dp + i - 1;
      out.push_back(j >= 0 && j < nd ? g.d[j] : '0');
    }
  }
}

}  // namespace

std::string FormatFloatJson(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  Digits g = Shortest(v, false);
  std::string out;
  double a = std::fabs(v);
  if (a < 1e-6 || a >= 1e21) {
    AppendE(out, g);
    // encoding/json trims a leading zero of a negative two-digit exponent: e-07 -> e-7.
    size_t n = out.size();
    if (n >= 4 && out[n - 4] == 'e' && out[n - 3] == '-' && out[n - 2] == '0') {
      out.erase(n - 2, 1);
    }
  } else {
    AppendF(out, g);
  }
  return out;
}

std::string FormatFloatG(double v, bool as_float32) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (as_float32 && std::isinf(static_cast<float>(v))) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0 || (as_float32 && static_cast<float>(v) == 0)) return std::signbit(v) ? "-0" : "0";
  Digits g = Shortest(v, as_float32);
  std::string out;
  int exp = g.dp - 1;
  if (exp < -4 || exp >= 6) {
    AppendE(out, g);
  } else {
    AppendF(out, g);
  }
  return out;
}

}  // namespace capstan
