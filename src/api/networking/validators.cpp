#include "api/networking/validators.h"

#include <arpa/inet.h>

#include <cstdio>
#include <regex>

#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::catalog {

namespace am = capstan::apimachinery;

json::object& Child(json::object& o, std::string_view key) {
  json::value& v = o[key];
  if (!v.is_object()) v = json::object();
  return v.get_object();
}

std::vector<std::string> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (!v || !v->is_array()) return out;
  for (const auto& e : v->get_array()) {
    if (e.is_string()) out.emplace_back(e.get_string());
  }
  return out;
}

std::optional<std::string> OptString(const json::object* o, std::string_view key) {
  if (!o) return std::nullopt;
  const auto* v = o->if_contains(key);
  if (!v || !v->is_string()) return std::nullopt;
  return std::string(v->get_string());
}

std::optional<int64_t> OptInt(const json::object* o, std::string_view key) {
  if (!o) return std::nullopt;
  const auto* v = o->if_contains(key);
  if (!v) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->get_uint64());
  if (v->is_double()) return static_cast<int64_t>(v->get_double());
  return std::nullopt;
}

void DefaultField(json::object& o, std::string_view key, json::value v) {
  const auto* cur = o.if_contains(key);
  if (!cur || cur->is_null()) o[key] = std::move(v);
}

bool Has(const json::object* o, std::string_view key) {
  if (!o) return false;
  const auto* v = o->if_contains(key);
  return v && !v->is_null();
}

bool SameValue(const json::value* a, const json::value* b, bool empty_is_absent) {
  auto absent = [&](const json::value* v) {
    if (!v || v->is_null()) return true;
    if (!empty_is_absent) return false;
    return (v->is_object() && v->get_object().empty()) || (v->is_array() && v->get_array().empty());
  };
  if (absent(a) || absent(b)) return absent(a) && absent(b);
  return *a == *b;
}

void AddProblems(ErrorList& errs, const FieldPath& p, std::string_view value, const std::vector<std::string>& msgs) {
  for (const auto& m : msgs) errs.push_back(InvalidError(p, value, m));
}

FieldError InvalidGo(const FieldPath& p, std::string rendered, std::string_view detail) {
  FieldError e = InvalidError(p, "", std::string(detail));
  e.omit_value = true;
  e.detail = detail.empty() ? std::move(rendered) : rendered + ": " + std::string(detail);
  return e;
}

void CheckImmutable(ErrorList& errs, const json::value* now, const json::value* old, const FieldPath& p,
                    std::optional<std::string> rendered) {
  if (SameValue(now, old)) return;
  if (rendered) {
    errs.push_back(InvalidGo(p, *rendered, am::kFieldImmutableErrorMsg));
    return;
  }
  if (!now || now->is_null()) {
    errs.push_back(InvalidGo(p, "null", am::kFieldImmutableErrorMsg));
    return;
  }
  errs.push_back(InvalidError(p, *now, std::string(am::kFieldImmutableErrorMsg)));
}

std::string GoStringSlice(const std::vector<std::string>& v) {
  if (v.empty()) return "[]string(nil)";
  std::vector<std::string> q;
  for (const auto& s : v) q.push_back(GoQuote(s));
  return "[]string{" + Join(q, ", ") + "}";
}

std::string GoStringPtr(const std::optional<std::string>& v) { return v ? GoQuote(*v) : "(*string)(nil)"; }

std::string GoBytes(std::string_view bytes) {
  if (bytes.empty()) return "[]byte(nil)";
  std::string out = "[]byte{";
  char buf[8];
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::snprintf(buf, sizeof(buf), "0x%x", static_cast<unsigned char>(bytes[i]));
    if (i) out += ", ";
    out += buf;
  }
  out += "}";
  return out;
}

std::vector<std::string> PortNameProblems(std::string_view port) {
  std::vector<std::string> errs;
  if (port.size() > 15) errs.push_back(am::MaxLenError(15));
  bool charset = !port.empty();
  bool letter = false;
  for (char c : port) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) charset = false;
    if (c >= 'a' && c <= 'z') letter = true;
  }
  if (!charset) errs.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!letter) errs.push_back("must contain at least one letter (a-z)");
  if (port.find("--") != std::string_view::npos) errs.push_back("must not contain consecutive hyphens");
  if (!port.empty() && (port.front() == '-' || port.back() == '-')) errs.push_back("must not begin or end with a hyphen");
  return errs;
}

std::string InclusiveRangeError(int64_t lo, int64_t hi) {
  return "must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", inclusive";
}

std::vector<std::string> PortNumProblems(int64_t port) {
  if (port >= 1 && port <= 65535) return {};
  return {InclusiveRangeError(1, 65535)};
}

std::vector<std::string> WildcardDNS1123SubdomainProblems(std::string_view v) {
  static const std::regex re(R"(^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$)");
  std::vector<std::string> errs;
  if (v.size() > 253) errs.push_back(am::MaxLenError(253));
  if (!std::regex_match(v.begin(), v.end(), re)) {
    errs.push_back(am::RegexError(
        "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of "
        "lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character",
        R"(\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)", {"*.example.com"}));
  }
  return errs;
}

ErrorList FullyQualifiedName(const FieldPath& p, std::string_view name) {
  if (name.empty()) return {RequiredError(p, "")};
  if (auto errs = am::IsDNS1123Subdomain(name); !errs.empty()) return {InvalidError(p, name, Join(errs, ","))};
  if (Split(name, '.').size() < 3) {
    return {InvalidError(p, name, "should be a domain with at least three segments separated by dots")};
  }
  return {};
}

ErrorList FullyQualifiedDomainName(const FieldPath& p, std::string_view name) {
  if (name.empty()) return {RequiredError(p, "")};
  if (EndsWith(name, ".")) name.remove_suffix(1);
  if (auto errs = am::IsDNS1123Subdomain(name); !errs.empty()) return {InvalidError(p, name, Join(errs, ","))};
  auto labels = Split(name, '.');
  if (labels.size() < 2) return {InvalidError(p, name, "should be a domain with at least two segments separated by dots")};
  for (const auto& l : labels) {
    if (auto errs = am::IsDNS1123Label(l); !errs.empty()) return {InvalidError(p, l, Join(errs, ","))};
  }
  return {};
}

ErrorList QualifiedName(const FieldPath& p, std::string_view v) {
  ErrorList errs;
  AddProblems(errs, p, v, am::IsQualifiedName(v));
  return errs;
}

namespace {

// Dotted IPv4 as Go's old net.ParseIP (and kube's ParseIPSloppy) reads it: four decimal parts of at
// most 255, leading zeros allowed.
bool ParseIpv4(std::string_view s, uint8_t out[4]) {
  int part = 0;
  size_t i = 0;
  while (part < 4) {
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    int n = 0;
    size_t digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      n = n * 10 + (s[i] - '0');
      if (n > 255 || ++digits > 3) return false;
      ++i;
    }
    out[part++] = static_cast<uint8_t>(n);
    if (part < 4) {
      if (i >= s.size() || s[i] != '.') return false;
      ++i;
    }
  }
  return i == s.size();
}

}  // namespace

std::optional<Ip> ParseIp(std::string_view s) {
  Ip ip;
  if (s.find(':') == std::string_view::npos) {
    if (!ParseIpv4(s, ip.bytes)) return std::nullopt;
    return ip;
  }
  if (s.find('%') != std::string_view::npos) return std::nullopt;
  std::string text(s);
  // A trailing dotted IPv4 part may have leading zeros in the sloppy form; normalize it for inet_pton.
  if (size_t colon = text.rfind(':'); colon != std::string::npos && text.find('.', colon) != std::string::npos) {
    uint8_t v4[4];
    if (!ParseIpv4(std::string_view(text).substr(colon + 1), v4)) return std::nullopt;
    text = text.substr(0, colon + 1) + std::to_string(v4[0]) + "." + std::to_string(v4[1]) + "." +
           std::to_string(v4[2]) + "." + std::to_string(v4[3]);
  }
  uint8_t b[16];
  if (inet_pton(AF_INET6, text.c_str(), b) != 1) return std::nullopt;
  bool mapped = true;
  for (int i = 0; i < 10; ++i) mapped = mapped && b[i] == 0;
  mapped = mapped && b[10] == 0xff && b[11] == 0xff;
  if (mapped) {
    for (int i = 0; i < 4; ++i) ip.bytes[i] = b[12 + i];
    return ip;
  }
  ip.v6 = true;
  for (int i = 0; i < 16; ++i) ip.bytes[i] = b[i];
  return ip;
}

std::optional<Cidr> ParseCidr(std::string_view s) {
  size_t slash = s.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  std::string_view addr = s.substr(0, slash);
  std::string_view bits = s.substr(slash + 1);
  if (bits.empty() || bits.size() > 3) return std::nullopt;
  int prefix = 0;
  for (char c : bits) {
    if (c < '0' || c > '9') return std::nullopt;
    prefix = prefix * 10 + (c - '0');
  }
  // Go's ParseCIDR reads the address part as an IPv4 only when it has no colon.
  bool v6_text = addr.find(':') != std::string_view::npos;
  auto ip = ParseIp(addr);
  if (!ip) return std::nullopt;
  int max = v6_text ? 128 : 32;
  if (prefix > max) return std::nullopt;
  Cidr c;
  c.ip = *ip;
  if (v6_text && !ip->v6) {
    // An IPv4-mapped address with an IPv6 prefix: kube keeps it an IPv6 network.
    c.ip.v6 = true;
    uint8_t b[16] = {};
    b[10] = b[11] = 0xff;
    for (int i = 0; i < 4; ++i) b[12 + i] = ip->bytes[i];
    for (int i = 0; i < 16; ++i) c.ip.bytes[i] = b[i];
  }
  c.prefix = prefix;
  int n = c.ip.v6 ? 16 : 4;
  for (int i = 0; i < n; ++i) {
    int keep = std::max(0, std::min(8, prefix - i * 8));
    uint8_t mask = keep == 0 ? 0 : static_cast<uint8_t>(0xff << (8 - keep));
    c.ip.bytes[i] &= mask;
  }
  return c;
}

bool CidrContains(const Cidr& c, const Ip& ip) {
  if (c.ip.v6 != ip.v6) return false;
  int n = c.ip.v6 ? 16 : 4;
  for (int i = 0; i < n; ++i) {
    int keep = std::max(0, std::min(8, c.prefix - i * 8));
    uint8_t mask = keep == 0 ? 0 : static_cast<uint8_t>(0xff << (8 - keep));
    if ((ip.bytes[i] & mask) != c.ip.bytes[i]) return false;
  }
  return true;
}

bool IsLoopback(const Ip& ip) {
  if (!ip.v6) return ip.bytes[0] == 127;
  for (int i = 0; i < 15; ++i) {
    if (ip.bytes[i] != 0) return false;
  }
  return ip.bytes[15] == 1;
}

bool IsUnspecified(const Ip& ip) {
  int n = ip.v6 ? 16 : 4;
  for (int i = 0; i < n; ++i) {
    if (ip.bytes[i] != 0) return false;
  }
  return true;
}

bool IsLinkLocalUnicast(const Ip& ip) {
  if (!ip.v6) return ip.bytes[0] == 169 && ip.bytes[1] == 254;
  return ip.bytes[0] == 0xfe && (ip.bytes[1] & 0xc0) == 0x80;
}

bool IsLinkLocalMulticast(const Ip& ip) {
  if (!ip.v6) return ip.bytes[0] == 224 && ip.bytes[1] == 0 && ip.bytes[2] == 0;
  return ip.bytes[0] == 0xff && (ip.bytes[1] & 0x0f) == 0x02;
}

ErrorList NonSpecialIp(std::string_view text, const FieldPath& p) {
  ErrorList errs;
  auto ip = ParseIp(text);
  if (!ip) {
    errs.push_back(InvalidError(p, text, "must be a valid IP address"));
    return errs;
  }
  if (IsUnspecified(*ip)) errs.push_back(InvalidError(p, text, "may not be unspecified (" + std::string(text) + ")"));
  if (IsLoopback(*ip)) errs.push_back(InvalidError(p, text, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  if (IsLinkLocalUnicast(*ip)) {
    errs.push_back(InvalidError(p, text, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  }
  if (IsLinkLocalMulticast(*ip)) {
    errs.push_back(InvalidError(p, text, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"));
  }
  return errs;
}

}  // namespace capstan::api::catalog
