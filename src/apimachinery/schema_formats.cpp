#include "apimachinery/schema_formats.h"

#include <re2/re2.h>

#include <array>
#include <cstdint>
#include <string>

namespace capstan::apimachinery {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

RE2::Options FormatRegexOptions() {
  RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_max_mem(64 << 20);  // the hostname pattern has large counted repetitions
  return opts;
}

bool FullMatch(const RE2& re, std::string_view s) { return RE2::FullMatch(re2::StringPiece(s.data(), s.size()), re); }

// Go's net dtoi: decimal digits; fails on none or on reaching 0xFFFFFF.
bool Dtoi(std::string_view s, size_t& consumed, uint32_t& n) {
  n = 0;
  size_t i = 0;
  for (; i < s.size() && IsDigit(s[i]); ++i) {
    n = n * 10 + static_cast<uint32_t>(s[i] - '0');
    if (n >= 0xFFFFFF) return false;
  }
  consumed = i;
  return i > 0;
}

// Go's sloppy parseIPv4 (leading zeros allowed); `strict` rejects them as current Go does.
bool ParseIPv4(std::string_view s, std::array<uint8_t, 4>* out, bool strict) {
  for (int i = 0; i < 4; ++i) {
    if (s.empty()) return false;
    if (i > 0) {
      if (s[0] != '.') return false;
      s.remove_prefix(1);
    }
    size_t c;
    uint32_t n;
    if (!Dtoi(s, c, n) || n > 0xFF) return false;
    if (strict && (c > 3 || (c > 1 && s[0] == '0'))) return false;
    if (out) (*out)[i] = static_cast<uint8_t>(n);
    s.remove_prefix(c);
  }
  return s.empty();
}

bool Xtoi(std::string_view s, size_t& consumed, uint32_t& n) {
  n = 0;
  size_t i = 0;
  for (; i < s.size() && HexVal(s[i]) >= 0; ++i) {
    n = n * 16 + static_cast<uint32_t>(HexVal(s[i]));
    if (n >= 0xFFFFFF) return false;
  }
  consumed = i;
  return i > 0;
}

// Go's parseIPv6 (no zones). `strict`: at most four hex digits a group, strict embedded IPv4.
bool ParseIPv6(std::string_view s, bool strict) {
  int ellipsis = -1;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    s.remove_prefix(2);
    if (s.empty()) return true;
  }
  int i = 0;
  while (i < 16) {
    size_t c;
    uint32_t n;
    if (!Xtoi(s, c, n) || n > 0xFFFF || (strict && c > 4)) return false;
    if (c < s.size() && s[c] == '.') {
      if (ellipsis < 0 && i != 12) return false;
      if (i + 4 > 16) return false;
      if (!ParseIPv4(s, nullptr, strict)) return false;
      s = {};
      i += 4;
      break;
    }
    i += 2;
    s.remove_prefix(c);
    if (s.empty()) break;
    if (s[0] != ':' || s.size() == 1) return false;
    s.remove_prefix(1);
    if (s[0] == ':') {
      if (ellipsis >= 0) return false;
      ellipsis = i;
      s.remove_prefix(1);
      if (s.empty()) break;
    }
  }
  if (!s.empty()) return false;
  if (i < 16) return ellipsis >= 0;
  return ellipsis < 0;
}

// Go's ParseIP: the first '.' or ':' decides the family.
bool ParseIP(std::string_view s, bool strict) {
  for (char c : s) {
    if (c == '.') return ParseIPv4(s, nullptr, strict);
    if (c == ':') return ParseIPv6(s, strict);
  }
  return false;
}

bool IsUnreservedHostChar(unsigned char c) {
  if (IsAlpha(static_cast<char>(c)) || IsDigit(static_cast<char>(c))) return true;
  switch (c) {
    case '-': case '_': case '.': case '~': case '!': case '$': case '&': case '\'': case '(': case ')':
    case '*': case '+': case ',': case ';': case '=': case ':': case '[': case ']': case '<': case '>':
    case '"':
      return true;
    default:
      return c >= 0x80;
  }
}

bool ValidPercentEscapes(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') continue;
    if (i + 2 >= s.size() || HexVal(s[i + 1]) < 0 || HexVal(s[i + 2]) < 0) return false;
    i += 2;
  }
  return true;
}

bool ValidOptionalPort(std::string_view port) {
  if (port.empty()) return true;
  if (port[0] != ':') return false;
  for (char c : port.substr(1)) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

bool ValidHost(std::string_view host) {
  if (!host.empty() && host[0] == '[') {
    size_t i = host.rfind(']');
    if (i == std::string_view::npos) return false;
    if (!ValidOptionalPort(host.substr(i + 1))) return false;
    host = host.substr(0, i + 1);
  } else if (size_t i = host.rfind(':'); i != std::string_view::npos) {
    if (!ValidOptionalPort(host.substr(i))) return false;
  }
  for (size_t i = 0; i < host.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(host[i]);
    if (c == '%') {
      if (i + 2 >= host.size() || HexVal(host[i + 1]) < 0 || HexVal(host[i + 2]) < 0) return false;
      if (HexVal(host[i + 1]) < 8 && host.substr(i, 3) != "%25") return false;
      i += 2;
    } else if (!IsUnreservedHostChar(c)) {
      return false;
    }
  }
  return true;
}

bool ValidUserinfo(std::string_view s) {
  for (char c : s) {
    if (IsAlpha(c) || IsDigit(c)) continue;
    switch (c) {
      case '-': case '.': case '_': case ':': case '~': case '!': case '$': case '&': case '\'': case '(':
      case ')': case '*': case '+': case ',': case ';': case '=': case '%': case '@':
        continue;
      default:
        return false;
    }
  }
  return ValidPercentEscapes(s);
}

bool IsLeapYear(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

bool ValidDate(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!IsDigit(s[i])) return false;
  }
  int year = std::stoi(std::string(s.substr(0, 4)));
  int month = (s[5] - '0') * 10 + (s[6] - '0');
  int day = (s[8] - '0') * 10 + (s[9] - '0');
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1) return false;
  int max_day = kDays[month - 1] + (month == 2 && IsLeapYear(year) ? 1 : 0);
  return day <= max_day;
}

// Go's time.ParseDuration: [-+]?(number unit)+ or "0".
bool GoParseDuration(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s == "0") return true;
  if (s.empty()) return false;
  long double total = 0;
  while (!s.empty()) {
    if (!(s[0] == '.' || IsDigit(s[0]))) return false;
    size_t i = 0;
    long double v = 0;
    bool digits = false;
    for (; i < s.size() && IsDigit(s[i]); ++i) v = v * 10 + (s[i] - '0'), digits = true;
    if (i < s.size() && s[i] == '.') {
      ++i;
      long double scale = 1;
      for (; i < s.size() && IsDigit(s[i]); ++i) scale /= 10, v += (s[i] - '0') * scale, digits = true;
    }
    if (!digits) return false;
    size_t u = i;
    while (u < s.size() && s[u] != '.' && !IsDigit(s[u])) ++u;
    std::string_view unit = s.substr(i, u - i);
    long double mult;
    if (unit == "ns") mult = 1;
    else if (unit == "us" || unit == "\xc2\xb5s" || unit == "\xce\xbcs") mult = 1e3;
    else if (unit == "ms") mult = 1e6;
    else if (unit == "s") mult = 1e9;
    else if (unit == "m") mult = 60e9;
    else if (unit == "h") mult = 3600e9;
    else return false;
    total += v * mult;
    if (total > 9223372036854775807.0L) return false;
    s.remove_prefix(u);
  }
  return true;
}

// strfmt's fallback: any "<digits><spaces><letters>" group whose unit is known.
bool LooseDuration(std::string_view s) {
  static constexpr std::array<std::array<const char*, 3>, 8> kUnits = {{
      {"ns", "nano", nullptr}, {"us", "\xc2\xb5s", "micro"}, {"ms", "milli", nullptr}, {"s", "sec", nullptr},
      {"m", "min", nullptr},   {"h", "hr", "hour"},           {"d", "day", nullptr},   {"w", "wk", "week"},
  }};
  bool ok = false;
  size_t i = 0;
  while (i < s.size()) {
    if (!IsDigit(s[i])) {
      ++i;
      continue;
    }
    size_t d = i;
    while (d < s.size() && IsDigit(s[d])) ++d;
    std::string_view digits = s.substr(i, d - i);
    size_t w = d;
    while (w < s.size() && (s[w] == ' ' || s[w] == '\t' || s[w] == '\n' || s[w] == '\f' || s[w] == '\r')) ++w;
    size_t l = w;
    while (l < s.size()) {
      if (IsAlpha(s[l])) {
        ++l;
      } else if (s.substr(l, 2) == "\xc2\xb5") {
        l += 2;
      } else {
        break;
      }
    }
    if (l == w) {
      i = d;
      continue;
    }
    if (digits.size() > 18) return false;  // strconv.Atoi overflow fails the whole parse
    std::string unit;
    for (char c : s.substr(w, l - w)) unit.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    for (const auto& variants : kUnits) {
      int last = variants[2] ? 2 : 1;
      for (int k = 0; k <= last; ++k) {
        std::string_view v = variants[k];
        if ((k == last && unit.compare(0, v.size(), v) == 0) || unit == v) ok = true;
      }
    }
    i = l;
  }
  return ok;
}

bool ValidDateTime(std::string_view str) {
  if (str.size() < 4) return false;
  std::string lower(str);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  size_t t = lower.find('t');
  if (t == std::string::npos) return false;
  std::string_view date = std::string_view(lower).substr(0, t);
  std::string_view rest = std::string_view(lower).substr(t + 1);
  if (size_t t2 = rest.find('t'); t2 != std::string_view::npos) rest = rest.substr(0, t2);
  if (!ValidDate(date)) return false;
  static const RE2 re(R"(^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$)", FormatRegexOptions());
  std::string h, m, sec;
  if (!RE2::PartialMatch(re2::StringPiece(rest.data(), rest.size()), re, &h, &m, &sec)) return false;
  return h <= "23" && m <= "59" && sec <= "59";
}

bool ValidIsbn(std::string_view str, int version) {
  std::string s;
  for (char c : str) {
    if (c != '-' && c != ' ' && c != '\t' && c != '\n' && c != '\f' && c != '\r') s.push_back(c);
  }
  if (version == 10) {
    if (s.size() != 10) return false;
    for (int i = 0; i < 9; ++i) {
      if (!IsDigit(s[i])) return false;
    }
    if (!IsDigit(s[9]) && s[9] != 'X') return false;
    int sum = 0;
    for (int i = 0; i < 9; ++i) sum += (i + 1) * (s[i] - '0');
    sum += 10 * (s[9] == 'X' ? 10 : s[9] - '0');
    return sum % 11 == 0;
  }
  if (s.size() != 13) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  int sum = 0;
  for (int i = 0; i < 12; ++i) sum += (i % 2 == 0 ? 1 : 3) * (s[i] - '0');
  return (s[12] - '0') == (10 - sum % 10) % 10;
}

bool ValidCreditCard(std::string_view str) {
  std::string s;
  for (char c : str) {
    if (IsDigit(c)) s.push_back(c);
  }
  static const RE2 re(
      "^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|"
      "3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\\d{3})\\d{11})$", FormatRegexOptions());
  if (!FullMatch(re, s)) return false;
  int sum = 0;
  bool dbl = false;
  for (size_t i = s.size(); i-- > 0;) {
    int d = s[i] - '0';
    if (dbl) {
      d *= 2;
      sum += d >= 10 ? d % 10 + 1 : d;
    } else {
      sum += d;
    }
    dbl = !dbl;
  }
  return sum % 10 == 0;
}

bool ValidMac(std::string_view s) {
  auto xtoi2 = [](std::string_view p, char sep) {
    if (p.size() > 2 && p[2] != sep) return false;
    return p.size() >= 2 && HexVal(p[0]) >= 0 && HexVal(p[1]) >= 0;
  };
  if (s.size() < 14) return false;
  if (s[2] == ':' || s[2] == '-') {
    if ((s.size() + 1) % 3 != 0) return false;
    size_t n = (s.size() + 1) / 3;
    if (n != 6 && n != 8 && n != 20) return false;
    for (size_t i = 0, x = 0; i < n; ++i, x += 3) {
      if (!xtoi2(s.substr(x), s[2])) return false;
    }
    return true;
  }
  if (s[4] == '.') {
    if ((s.size() + 1) % 5 != 0) return false;
    size_t n = 2 * (s.size() + 1) / 5;
    if (n != 6 && n != 8 && n != 20) return false;
    for (size_t i = 0, x = 0; i < n; i += 2, x += 5) {
      if (!xtoi2(s.substr(x, 2), 0) || !xtoi2(s.substr(x + 2), s[4])) return false;
    }
    return true;
  }
  return false;
}

bool IsAtext(unsigned char c, bool dot) {
  if (c == '.') return dot;
  switch (c) {
    case '(': case ')': case '<': case '>': case '[': case ']': case ':': case ';': case '@': case '\\':
    case ',': case '"':
      return false;
    default:
      return (c >= '!' && c <= '~') || c >= 0x80;
  }
}

bool ValidDotAtom(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.' || s.find("..") != std::string_view::npos) return false;
  for (char c : s) {
    if (!IsAtext(static_cast<unsigned char>(c), true)) return false;
  }
  return true;
}

bool ValidQuoted(std::string_view s) {  // including the quotes
  if (s.size() < 2 || s.front() != '"' || s.back() != '"') return false;
  for (size_t i = 1; i + 1 < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\\') {
      if (++i + 1 >= s.size()) return false;
    } else if (c == '"' || (c < 0x20 && c != '\t')) {
      return false;
    }
  }
  return true;
}

bool ValidAddrSpec(std::string_view s) {
  size_t at = s.rfind('@');
  if (at == std::string_view::npos) return false;
  std::string_view local = s.substr(0, at), domain = s.substr(at + 1);
  bool local_ok = (!local.empty() && local[0] == '"') ? ValidQuoted(local) : ValidDotAtom(local);
  if (!local_ok || domain.empty()) return false;
  if (domain.front() == '[') return domain.back() == ']' && domain.find_first_of("[]\\", 1) == domain.size() - 1;
  return ValidDotAtom(domain);
}

std::string_view TrimWsp(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

bool IsIPv4Format(std::string_view s) { return ParseIP(s, false) && s.find('.') != std::string_view::npos; }
bool IsIPv6Format(std::string_view s) { return ParseIP(s, true) && s.find(':') != std::string_view::npos; }

bool IsCidrFormat(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) return false;
  std::string_view addr = s.substr(0, slash), mask = s.substr(slash + 1);
  int bits = 32;
  if (!ParseIPv4(addr, nullptr, false)) {
    bits = 128;
    if (!ParseIPv6(addr, false)) return false;
  }
  size_t c;
  uint32_t n;
  return Dtoi(mask, c, n) && c == mask.size() && n <= static_cast<uint32_t>(bits);
}

bool IsMacFormat(std::string_view s) { return ValidMac(s); }
bool IsDateFormat(std::string_view s) { return ValidDate(s); }
bool IsDateTimeFormat(std::string_view s) { return ValidDateTime(s); }
bool IsDurationFormat(std::string_view s) { return GoParseDuration(s) || LooseDuration(s); }

bool IsRequestUriFormat(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  if (s.empty()) return false;
  if (s == "*") return true;
  std::string_view scheme, rest = s;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (IsAlpha(c)) continue;
    if (IsDigit(c) || c == '+' || c == '-' || c == '.') {
      if (i == 0) break;
      continue;
    }
    if (c == ':') {
      if (i == 0) return false;  // missing protocol scheme
      scheme = s.substr(0, i);
      rest = s.substr(i + 1);
    }
    break;
  }
  size_t q = rest.find('?');
  if (q != std::string_view::npos) rest = rest.substr(0, q);
  if (rest.empty() || rest[0] != '/') return !scheme.empty();
  if (!scheme.empty() && rest.substr(0, 2) == "//") {
    std::string_view authority = rest.substr(2);
    size_t slash = authority.find('/');
    rest = slash == std::string_view::npos ? std::string_view() : authority.substr(slash);
    if (slash != std::string_view::npos) authority = authority.substr(0, slash);
    size_t at = authority.rfind('@');
    if (at != std::string_view::npos) {
      if (!ValidUserinfo(authority.substr(0, at))) return false;
      authority = authority.substr(at + 1);
    }
    if (!ValidHost(authority)) return false;
  }
  return ValidPercentEscapes(rest);
}

bool IsEmailFormat(std::string_view s) {
  s = TrimWsp(s);
  size_t lt = s.rfind('<');
  if (lt == std::string_view::npos) return ValidAddrSpec(s);
  if (s.back() != '>') return false;
  std::string_view name = TrimWsp(s.substr(0, lt));
  for (char c : name) {
    if (c == '<' || c == '>' || c == '@' || static_cast<unsigned char>(c) < 0x20) return false;
  }
  return ValidAddrSpec(s.substr(lt + 1, s.size() - lt - 2));
}

bool IsHostnameFormat(std::string_view s) {
  static const RE2 re(
      R"(^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$)", FormatRegexOptions());
  if (!RE2::PartialMatch(re2::StringPiece(s.data(), s.size()), re)) return false;
  if (s.size() > 255) return false;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    size_t len = (dot == std::string_view::npos ? s.size() : dot) - start;
    if (len > 63) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

StringFormat LookupStringFormat(std::string_view name) {
  std::string n;
  for (char c : name) {
    if (c != '-') n.push_back(c);
  }
  struct Entry {
    const char* name;
    StringFormat f;
  };
  static constexpr Entry kFormats[] = {
      {"bsonobjectid", StringFormat::kBsonObjectId}, {"uri", StringFormat::kUri},
      {"email", StringFormat::kEmail},               {"hostname", StringFormat::kHostname},
      {"ipv4", StringFormat::kIPv4},                 {"ipv6", StringFormat::kIPv6},
      {"cidr", StringFormat::kCidr},                 {"mac", StringFormat::kMac},
      {"uuid", StringFormat::kUuid},                 {"uuid3", StringFormat::kUuid3},
      {"uuid4", StringFormat::kUuid4},               {"uuid5", StringFormat::kUuid5},
      {"isbn", StringFormat::kIsbn},                 {"isbn10", StringFormat::kIsbn10},
      {"isbn13", StringFormat::kIsbn13},             {"creditcard", StringFormat::kCreditCard},
      {"ssn", StringFormat::kSsn},                   {"hexcolor", StringFormat::kHexColor},
      {"rgbcolor", StringFormat::kRgbColor},         {"byte", StringFormat::kByte},
      {"password", StringFormat::kPassword},         {"date", StringFormat::kDate},
      {"duration", StringFormat::kDuration},         {"datetime", StringFormat::kDateTime},
      {"k8sshortname", StringFormat::kK8sShortName}, {"k8slongname", StringFormat::kK8sLongName},
  };
  for (const auto& e : kFormats) {
    if (n == e.name) return e.f;
  }
  return StringFormat::kNone;
}

bool IsValidStringFormat(StringFormat f, std::string_view s) {
  switch (f) {
    case StringFormat::kNone:
    case StringFormat::kPassword:
      return true;
    case StringFormat::kBsonObjectId:
      if (s.size() != 24) return false;
      for (char c : s) {
        if (HexVal(c) < 0) return false;
      }
      return true;
    case StringFormat::kUri: return IsRequestUriFormat(s);
    case StringFormat::kEmail: return IsEmailFormat(s);
    case StringFormat::kHostname: return IsHostnameFormat(s);
    case StringFormat::kIPv4: return IsIPv4Format(s);
    case StringFormat::kIPv6: return IsIPv6Format(s);
    case StringFormat::kCidr: return IsCidrFormat(s);
    case StringFormat::kMac: return IsMacFormat(s);
    case StringFormat::kUuid: {
      static const RE2 re("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$", FormatRegexOptions());
      return FullMatch(re, s);
    }
    case StringFormat::kUuid3: {
      static const RE2 re("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$", FormatRegexOptions());
      return FullMatch(re, s);
    }
    case StringFormat::kUuid4: {
      static const RE2 re("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$", FormatRegexOptions());
      return FullMatch(re, s);
    }
    case StringFormat::kUuid5: {
      static const RE2 re("(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$", FormatRegexOptions());
      return FullMatch(re, s);
    }
    case StringFormat::kIsbn: return ValidIsbn(s, 10) || ValidIsbn(s, 13);
    case StringFormat::kIsbn10: return ValidIsbn(s, 10);
    case StringFormat::kIsbn13: return ValidIsbn(s, 13);
    case StringFormat::kCreditCard: return ValidCreditCard(s);
    case StringFormat::kSsn: {
      static const RE2 re(R"(^\d{3}[- ]?\d{2}[- ]?\d{4}$)", FormatRegexOptions());
      return s.size() == 11 && FullMatch(re, s);
    }
    case StringFormat::kHexColor: {
      static const RE2 re("^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$", FormatRegexOptions());
      return FullMatch(re, s);
    }
    case StringFormat::kRgbColor: {
      static const RE2 re(
          R"(^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$)", FormatRegexOptions());
      return FullMatch(re, s);
    }
    case StringFormat::kByte: {
      static const RE2 re(
          R"(^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$)", FormatRegexOptions());
      return FullMatch(re, s);
    }
    case StringFormat::kDate: return IsDateFormat(s);
    case StringFormat::kDuration: return IsDurationFormat(s);
    case StringFormat::kDateTime: return IsDateTimeFormat(s);
    case StringFormat::kK8sShortName: {
      static const RE2 re("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", FormatRegexOptions());
      return s.size() <= 63 && FullMatch(re, s);
    }
    case StringFormat::kK8sLongName: {
      static const RE2 re(R"(^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$)", FormatRegexOptions());
      return s.size() <= 253 && FullMatch(re, s);
    }
  }
  return true;
}

}  // namespace capstan::apimachinery
