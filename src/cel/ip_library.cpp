// kube's IP and CIDR libraries (apiserver/pkg/cel/library/ip.go, cidr.go, 1.30+): ip(), isIP(),
// ip.isCanonical(), family(), isUnspecified(), isLoopback(), isLinkLocalMulticast(),
// isLinkLocalUnicast(), isGlobalUnicast(); cidr(), isCIDR(), containsIP(), containsCIDR(), ip(),
// prefixLength(), masked(); string() of both. Addresses parse as Go's netip does (no leading
// zeros, no zones, no IPv4-mapped IPv6).
#include <array>
#include <cstdio>

#include "cel/functions.h"

namespace capstan::cel {

namespace {

struct Addr {
  std::array<uint8_t, 16> b{};
  bool v4 = false;
  bool operator==(const Addr& o) const { return v4 == o.v4 && b == o.b; }
};

bool ParseV4(std::string_view s, uint8_t out[4]) {
  int part = 0;
  size_t i = 0;
  while (part < 4) {
    if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    size_t start = i;
    int v = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
      v = v * 10 + (s[i] - '0');
      if (v > 255) return false;
      ++i;
    }
    if (i - start > 1 && s[start] == '0') return false;  // leading zeros
    out[part++] = static_cast<uint8_t>(v);
    if (part < 4) {
      if (i >= s.size() || s[i] != '.') return false;
      ++i;
    }
  }
  return i == s.size();
}

bool ParseV6(std::string_view s, std::array<uint8_t, 16>& out) {
  int ellipsis = -1;
  int n = 0;  // bytes written
  size_t i = 0;
  if (s.size() >= 2 && s[0] == ':' && s[1] == ':') {
    ellipsis = 0;
    i = 2;
    if (i == s.size()) {
      out.fill(0);
      return true;
    }
  }
  while (i < s.size()) {
    size_t start = i;
    uint32_t v = 0;
    while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i])) && i - start < 5) {
      v = v * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(s[i])) ? s[i] - '0' : (std::tolower(s[i]) - 'a' + 10));
      ++i;
    }
    size_t len = i - start;
    if (len == 0 || len > 4) return false;
    if (i < s.size() && s[i] == '.') {  // embedded IPv4 at the end
      if (n > 12) return false;
      uint8_t v4[4];
      if (!ParseV4(s.substr(start), v4)) return false;
      for (int k = 0; k < 4; ++k) out[static_cast<size_t>(n++)] = v4[k];
      i = s.size();
      break;
    }
    if (n >= 16) return false;
    out[static_cast<size_t>(n++)] = static_cast<uint8_t>(v >> 8);
    out[static_cast<size_t>(n++)] = static_cast<uint8_t>(v);
    if (i == s.size()) break;
    if (s[i] != ':') return false;
    ++i;
    if (i < s.size() && s[i] == ':') {
      if (ellipsis >= 0) return false;
      ellipsis = n;
      ++i;
      if (i == s.size()) break;
    } else if (i == s.size()) {
      return false;
    }
  }
  if (ellipsis >= 0) {
    int gap = 16 - n;
    if (gap < 2) return false;
    for (int k = n - 1; k >= ellipsis; --k) out[static_cast<size_t>(k + gap)] = out[static_cast<size_t>(k)];
    for (int k = ellipsis; k < ellipsis + gap; ++k) out[static_cast<size_t>(k)] = 0;
  } else if (n != 16) {
    return false;
  }
  return true;
}

bool IsV4Mapped(const Addr& a) {
  if (a.v4) return false;
  for (int i = 0; i < 10; ++i) {
    if (a.b[static_cast<size_t>(i)] != 0) return false;
  }
  return a.b[10] == 0xff && a.b[11] == 0xff;
}

// Go's netip.ParseAddr plus kube's rules; the error text otherwise.
std::optional<Addr> ParseAddr(std::string_view s, std::string& err) {
  Addr a;
  if (s.find('%') != std::string_view::npos) {
    err = "IP address \"" + std::string(s) + "\" with zone value is not allowed";
    return std::nullopt;
  }
  bool ok = false;
  if (s.find(':') != std::string_view::npos) {
    ok = ParseV6(s, a.b);
  } else {
    uint8_t v4[4];
    ok = ParseV4(s, v4);
    if (ok) {
      a.v4 = true;
      for (int i = 0; i < 4; ++i) a.b[static_cast<size_t>(i)] = v4[i];
    }
  }
  if (!ok) {
    err = "IP Address \"" + std::string(s) + "\" parse error during conversion from string: ParseAddr(\"" + std::string(s) +
          "\"): unable to parse IP";
    return std::nullopt;
  }
  if (IsV4Mapped(a)) {
    err = "IPv4-mapped IPv6 address \"" + std::string(s) + "\" is not allowed";
    return std::nullopt;
  }
  return a;
}

std::string AddrString(const Addr& a) {
  char buf[64];
  if (a.v4) {
    std::snprintf(buf, sizeof buf, "%u.%u.%u.%u", a.b[0], a.b[1], a.b[2], a.b[3]);
    return buf;
  }
  uint16_t w[8];
  for (int i = 0; i < 8; ++i) w[i] = static_cast<uint16_t>(a.b[static_cast<size_t>(2 * i)] << 8 | a.b[static_cast<size_t>(2 * i + 1)]);
  int best = -1, best_len = 0;
  for (int i = 0; i < 8;) {
    if (w[i] != 0) {
      ++i;
      continue;
    }
    int j = i;
    while (j < 8 && w[j] == 0) ++j;
    if (j - i > best_len && j - i >= 2) {
      best = i;
      best_len = j - i;
    }
    i = j;
  }
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == best) {
      out += "::";
      i += best_len - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ":";
    std::snprintf(buf, sizeof buf, "%x", w[i]);
    out += buf;
  }
  return out;
}

int Bits(const Addr& a) { return a.v4 ? 32 : 128; }

Addr Mask(Addr a, int prefix) {
  int nbytes = Bits(a) / 8;
  for (int i = 0; i < nbytes; ++i) {
    int keep = std::max(0, std::min(8, prefix - i * 8));
    uint8_t m = keep == 0 ? 0 : static_cast<uint8_t>(0xff << (8 - keep));
    a.b[static_cast<size_t>(i)] &= m;
  }
  return a;
}

class IpValue : public OpaqueValue {
 public:
  explicit IpValue(Addr a) : a(a) {}
  std::string_view TypeName() const override { return "net.IP"; }
  bool Equal(const OpaqueValue& o) const override {
    const auto* x = dynamic_cast<const IpValue*>(&o);
    return x && x->a == a;
  }
  Addr a;
};

class CidrValue : public OpaqueValue {
 public:
  CidrValue(Addr a, int prefix) : a(a), prefix(prefix) {}
  std::string_view TypeName() const override { return "net.CIDR"; }
  bool Equal(const OpaqueValue& o) const override {
    const auto* x = dynamic_cast<const CidrValue*>(&o);
    return x && x->a == a && x->prefix == prefix;
  }
  Addr a;
  int prefix;
};

Value MakeIp(const Addr& a) { return Value::Opaque(std::make_shared<const IpValue>(a)); }
Value MakeCidr(const Addr& a, int p) { return Value::Opaque(std::make_shared<const CidrValue>(a, p)); }

std::optional<std::pair<Addr, int>> ParseCidr(std::string_view s, std::string& err) {
  size_t slash = s.find('/');
  auto fail = [&]() {
    err = "network address parse error during conversion from string: netip.ParsePrefix(\"" + std::string(s) + "\"): invalid prefix";
    return std::nullopt;
  };
  if (slash == std::string_view::npos) {
    err = "network address parse error during conversion from string: netip.ParsePrefix(\"" + std::string(s) + "\"): no '/'";
    return std::nullopt;
  }
  std::string e;
  auto a = ParseAddr(s.substr(0, slash), e);
  if (!a) {
    if (e.find("IPv4-mapped") != std::string::npos) {
      err = "IPv4-mapped IPv6 address \"" + std::string(s) + "\" is not allowed";
      return std::nullopt;
    }
    return fail();
  }
  std::string_view bits = s.substr(slash + 1);
  if (bits.empty() || bits.size() > 3 || (bits.size() > 1 && bits[0] == '0')) return fail();
  int p = 0;
  for (char c : bits) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return fail();
    p = p * 10 + (c - '0');
  }
  if (p > Bits(*a)) return fail();
  return std::make_pair(*a, p);
}

const IpValue* AsIp(const Value& v) { return v.opaque_as<IpValue>(); }
const CidrValue* AsCidr(const Value& v) { return v.opaque_as<CidrValue>(); }

Value Ip(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  if (const CidrValue* c = AsCidr(a[0])) return MakeIp(c->a);  // <cidr>.ip()
  if (a[0].kind() != Kind::kString) return NoSuchOverload();
  std::string err;
  auto x = ParseAddr(a[0].str(), err);
  if (!x) return Value::Error(err);
  return MakeIp(*x);
}

Value IsIp(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  std::string err;
  return Value::Bool(ParseAddr(a[0].str(), err).has_value());
}

Value IsCanonical(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  std::string err;
  auto x = ParseAddr(a[0].str(), err);
  if (!x) return Value::Error(err);
  return Value::Bool(AddrString(*x) == a[0].str());
}

template <int kWhat>
Value IpPredicate(EvalContext&, const Value* a, size_t n) {
  const IpValue* ip = n == 1 ? AsIp(a[0]) : nullptr;
  if (!ip) return NoSuchOverload();
  const Addr& x = ip->a;
  const auto& b = x.b;
  bool all_zero = true;
  for (int i = 0; i < (x.v4 ? 4 : 16); ++i) all_zero &= b[static_cast<size_t>(i)] == 0;
  switch (kWhat) {
    case 0: return Value::Int(x.v4 ? 4 : 6);
    case 1: return Value::Bool(all_zero);
    case 2: {  // loopback
      if (x.v4) return Value::Bool(b[0] == 127);
      bool lb = true;
      for (int i = 0; i < 15; ++i) lb &= b[static_cast<size_t>(i)] == 0;
      return Value::Bool(lb && b[15] == 1);
    }
    case 3:  // link-local multicast
      return Value::Bool(x.v4 ? (b[0] == 224 && b[1] == 0 && b[2] == 0) : (b[0] == 0xff && (b[1] & 0x0f) == 0x02));
    case 4:  // link-local unicast
      return Value::Bool(x.v4 ? (b[0] == 169 && b[1] == 254) : (b[0] == 0xfe && (b[1] & 0xc0) == 0x80));
    case 5: {  // global unicast: not unspecified, loopback, multicast, link-local, broadcast
      if (all_zero) return Value::Bool(false);
      if (x.v4) {
        if (b[0] == 127 || b[0] >= 224 || (b[0] == 169 && b[1] == 254)) return Value::Bool(false);
        if (b[0] == 255 && b[1] == 255 && b[2] == 255 && b[3] == 255) return Value::Bool(false);
        return Value::Bool(true);
      }
      bool lb = true;
      for (int i = 0; i < 15; ++i) lb &= b[static_cast<size_t>(i)] == 0;
      if (lb && b[15] == 1) return Value::Bool(false);
      if (b[0] == 0xff || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)) return Value::Bool(false);
      return Value::Bool(true);
    }
  }
  return NoSuchOverload();
}

Value Cidr(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  std::string err;
  auto c = ParseCidr(a[0].str(), err);
  if (!c) return Value::Error(err);
  return MakeCidr(c->first, c->second);
}

Value IsCidr(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  std::string err;
  return Value::Bool(ParseCidr(a[0].str(), err).has_value());
}

bool Contains(const CidrValue& c, const Addr& x) {
  if (c.a.v4 != x.v4) return false;
  return Mask(x, c.prefix) == Mask(c.a, c.prefix);
}

Value ContainsIp(EvalContext&, const Value* a, size_t n) {
  const CidrValue* c = n == 2 ? AsCidr(a[0]) : nullptr;
  if (!c) return NoSuchOverload();
  Addr x;
  if (const IpValue* ip = AsIp(a[1])) {
    x = ip->a;
  } else if (a[1].kind() == Kind::kString) {
    std::string err;
    auto p = ParseAddr(a[1].str(), err);
    if (!p) return Value::Error(err);
    x = *p;
  } else {
    return NoSuchOverload();
  }
  return Value::Bool(Contains(*c, x));
}

Value ContainsCidr(EvalContext&, const Value* a, size_t n) {
  const CidrValue* c = n == 2 ? AsCidr(a[0]) : nullptr;
  if (!c) return NoSuchOverload();
  Addr x;
  int p = 0;
  if (const CidrValue* o = AsCidr(a[1])) {
    x = o->a;
    p = o->prefix;
  } else if (a[1].kind() == Kind::kString) {
    std::string err;
    auto o = ParseCidr(a[1].str(), err);
    if (!o) return Value::Error(err);
    x = o->first;
    p = o->second;
  } else {
    return NoSuchOverload();
  }
  return Value::Bool(p >= c->prefix && Contains(*c, x));
}

Value PrefixLength(EvalContext&, const Value* a, size_t n) {
  const CidrValue* c = n == 1 ? AsCidr(a[0]) : nullptr;
  if (!c) return NoSuchOverload();
  return Value::Int(c->prefix);
}

Value Masked(EvalContext&, const Value* a, size_t n) {
  const CidrValue* c = n == 1 ? AsCidr(a[0]) : nullptr;
  if (!c) return NoSuchOverload();
  return MakeCidr(Mask(c->a, c->prefix), c->prefix);
}

Value ToString(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  if (const IpValue* ip = AsIp(a[0])) return Value::String(AddrString(ip->a));
  if (const CidrValue* c = AsCidr(a[0])) return Value::String(AddrString(c->a) + "/" + std::to_string(c->prefix));
  return NoSuchOverload();
}

}  // namespace

void RegisterKubeIpLibrary(FunctionRegistry& r) {
  r.AddGlobal("ip", Ip);
  r.AddMember("ip", Ip);
  r.AddGlobal("isIP", IsIp);
  r.AddGlobal("ip.isCanonical", IsCanonical);
  r.AddMember("family", IpPredicate<0>);
  r.AddMember("isUnspecified", IpPredicate<1>);
  r.AddMember("isLoopback", IpPredicate<2>);
  r.AddMember("isLinkLocalMulticast", IpPredicate<3>);
  r.AddMember("isLinkLocalUnicast", IpPredicate<4>);
  r.AddMember("isGlobalUnicast", IpPredicate<5>);
  r.AddGlobal("cidr", Cidr);
  r.AddGlobal("isCIDR", IsCidr);
  r.AddMember("containsIP", ContainsIp);
  r.AddMember("containsCIDR", ContainsCidr);
  r.AddMember("prefixLength", PrefixLength);
  r.AddMember("masked", Masked);
  r.AddGlobal("string", ToString);
}

}  // namespace capstan::cel
