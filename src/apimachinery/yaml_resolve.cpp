#include "apimachinery/yaml_resolve.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace capstan::apimachinery::yaml_internal {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char Lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$
bool MatchYamlFloat(std::string_view s) {
  size_t i = 0, n = s.size();
  if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
  if (i < n && s[i] == '.') {
    ++i;
    size_t d = i;
    while (i < n && IsDigit(s[i])) ++i;
    if (i == d) return false;
  } else {
    size_t d = i;
    while (i < n && IsDigit(s[i])) ++i;
    if (i == d) return false;
    if (i < n && s[i] == '.') {
      ++i;
      while (i < n && IsDigit(s[i])) ++i;
    }
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
    size_t d = i;
    while (i < n && IsDigit(s[i])) ++i;
    if (i == d) return false;
  }
  return i == n;
}

// Go's strconv.ParseFloat for decimal text: false on a syntax error or overflow.
bool GoParseFloat(std::string_view s, double& out) {
  if (s.empty()) return false;
  std::string copy(s);
  char* end = nullptr;
  errno = 0;
  double d = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return false;
  // strtod also reads hex floats, inf and nan; callers only pass decimal forms.
  if (std::isinf(d)) return false;
  out = d;
  return true;
}

// Go's getnum without the fixed-width rule: one or two digits.
bool Num12(std::string_view& s, int& out) {
  if (s.empty() || !IsDigit(s[0])) return false;
  if (s.size() < 2 || !IsDigit(s[1])) {
    out = s[0] - '0';
    s.remove_prefix(1);
    return true;
  }
  out = (s[0] - '0') * 10 + (s[1] - '0');
  s.remove_prefix(2);
  return true;
}

bool Num2Fixed(std::string_view s, int& out) {
  if (s.size() != 2 || !IsDigit(s[0]) || !IsDigit(s[1])) return false;
  out = (s[0] - '0') * 10 + (s[1] - '0');
  return true;
}

int DaysIn(int month, int year) {
  static const int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month == 2 && ((year % 4 == 0 && year % 100 != 0) || year % 400 == 0)) return 29;
  return kDays[month - 1];
}

// One of go-yaml's timestamp layouts: sep is 'T', 't' or ' ' (time part), 0 for a date only.
bool MatchTimestamp(std::string_view v, char sep) {
  int year = 0, month, day, h, m, sec;
  for (int i = 0; i < 4; ++i) year = year * 10 + (v[i] - '0');
  v.remove_prefix(4);
  if (v.empty() || v[0] != '-') return false;
  v.remove_prefix(1);
  if (!Num12(v, month) || month < 1 || month > 12) return false;
  if (v.empty() || v[0] != '-') return false;
  v.remove_prefix(1);
  if (!Num12(v, day)) return false;
  if (sep != 0) {
    if (v.empty() || v[0] != sep) return false;
    v.remove_prefix(1);
    if (!Num12(v, h) || h >= 24) return false;
    if (v.empty() || v[0] != ':') return false;
    v.remove_prefix(1);
    if (!Num12(v, m) || m >= 60) return false;
    if (v.empty() || v[0] != ':') return false;
    v.remove_prefix(1);
    if (!Num12(v, sec) || sec >= 60) return false;
    if (v.size() >= 2 && (v[0] == '.' || v[0] == ',') && IsDigit(v[1])) {
      size_t i = 1;
      while (i < v.size() && IsDigit(v[i])) ++i;
      v.remove_prefix(i);
    }
    if (sep != ' ') {
      if (!v.empty() && v[0] == 'Z') {
        v.remove_prefix(1);
      } else {
        int hr, mi;
        if (v.size() < 6 || v[3] != ':' || (v[0] != '+' && v[0] != '-')) return false;
        if (!Num2Fixed(v.substr(1, 2), hr) || !Num2Fixed(v.substr(4, 2), mi) || hr > 24 || mi > 60) return false;
        v.remove_prefix(6);
      }
    }
  }
  if (!v.empty()) return false;
  return day >= 1 && day <= DaysIn(month, year);
}

}  // namespace

bool GoParseUint(std::string_view s, int base, uint64_t& out) {
  if (s.empty()) return false;
  if (base == 0) {
    base = 10;
    if (s[0] == '0') {
      if (s.size() >= 3 && Lower(s[1]) == 'b') {
        base = 2;
        s.remove_prefix(2);
      } else if (s.size() >= 3 && Lower(s[1]) == 'o') {
        base = 8;
        s.remove_prefix(2);
      } else if (s.size() >= 3 && Lower(s[1]) == 'x') {
        base = 16;
        s.remove_prefix(2);
      } else {
        base = 8;
        s.remove_prefix(1);
      }
    }
  }
  uint64_t n = 0;
  for (char c : s) {
    int d;
    if (IsDigit(c)) d = c - '0';
    else if (Lower(c) >= 'a' && Lower(c) <= 'z') d = Lower(c) - 'a' + 10;
    else return false;
    if (d >= base) return false;
    if (n > (std::numeric_limits<uint64_t>::max() - d) / base) return false;
    n = n * base + d;
  }
  out = n;
  return true;
}

bool GoParseInt(std::string_view s, int base, int64_t& out) {
  if (s.empty()) return false;
  bool neg = false;
  if (s[0] == '+' || s[0] == '-') {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  uint64_t u;
  if (!GoParseUint(s, base, u)) return false;
  constexpr uint64_t kCutoff = uint64_t{1} << 63;
  if (!neg && u >= kCutoff) return false;
  if (neg && u > kCutoff) return false;
  out = neg ? static_cast<int64_t>(0 - u) : static_cast<int64_t>(u);
  return true;
}

bool IsYamlTimestamp(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && IsDigit(s[i])) ++i;
  if (i != 4 || i == s.size() || s[i] != '-') return false;
  return MatchTimestamp(s, 'T') || MatchTimestamp(s, 't') || MatchTimestamp(s, ' ') || MatchTimestamp(s, 0);
}

// ^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$
bool IsBase60Float(std::string_view s) {
  size_t i = 0, n = s.size();
  if (i < n && (s[i] == '-' || s[i] == '+')) ++i;
  if (i >= n || !IsDigit(s[i])) return false;
  ++i;
  while (i < n && (IsDigit(s[i]) || s[i] == '_')) ++i;
  int groups = 0;
  while (i < n && s[i] == ':') {
    ++i;
    // [0-5]?[0-9]
    if (i + 1 < n && s[i] >= '0' && s[i] <= '5' && IsDigit(s[i + 1])) {
      i += 2;
    } else if (i < n && IsDigit(s[i])) {
      ++i;
    } else {
      return false;
    }
    ++groups;
  }
  if (groups == 0) return false;
  if (i < n && s[i] == '.') {
    ++i;
    while (i < n && (IsDigit(s[i]) || s[i] == '_')) ++i;
  }
  return i == n;
}

Resolved ResolvePlain(std::string_view in) {
  Resolved r;
  char hint = 'N';
  if (!in.empty()) {
    char c = in[0];
    if (c == '+' || c == '-') hint = 'S';
    else if (IsDigit(c)) hint = 'D';
    else if (std::string_view("yYnNtTfFoO~").find(c) != std::string_view::npos) hint = 'M';
    else if (c == '.') hint = '.';
    else hint = 0;
  }
  if (hint == 0) return r;
  static const std::string_view kTrue[] = {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
  static const std::string_view kFalse[] = {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
  static const std::string_view kNull[] = {"", "~", "null", "Null", "NULL"};
  for (auto t : kTrue) {
    if (in == t) return {ScalarKind::kBool, true};
  }
  for (auto f : kFalse) {
    if (in == f) return {ScalarKind::kBool, false};
  }
  for (auto n : kNull) {
    if (in == n) return {ScalarKind::kNull};
  }
  if (in == ".nan" || in == ".NaN" || in == ".NAN") {
    r.kind = ScalarKind::kFloat;
    r.f = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  for (std::string_view inf : {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF"}) {
    if (in == inf) {
      r.kind = ScalarKind::kFloat;
      r.f = in[0] == '-' ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
      return r;
    }
  }
  if (in == "<<") return {ScalarKind::kMerge};
  if (hint == '.') {
    if (MatchYamlFloat(in) && GoParseFloat(in, r.f)) r.kind = ScalarKind::kFloat;
    return r;
  }
  if (hint == 'D' || hint == 'S') {
    if (IsYamlTimestamp(in)) return {ScalarKind::kTimestamp};
    std::string plain;
    for (char c : in) {
      if (c != '_') plain.push_back(c);
    }
    if (GoParseInt(plain, 0, r.i)) {
      r.kind = ScalarKind::kInt;
      return r;
    }
    if (GoParseUint(plain, 0, r.u)) {
      r.kind = ScalarKind::kUint;
      return r;
    }
    if (MatchYamlFloat(plain) && GoParseFloat(plain, r.f)) {
      r.kind = ScalarKind::kFloat;
      return r;
    }
  }
  return r;
}

}  // namespace capstan::apimachinery::yaml_internal
