#include "registry/ip_range.h"

#include <arpa/inet.h>

#include <algorithm>

#include "util/strings.h"

namespace capstan::registry {

std::optional<IpAddress> IpAddress::Parse(std::string_view text) {
  if (text.empty() || text.size() > 64) return std::nullopt;
  std::string s(text);
  IpAddress ip;
  if (s.find(':') == std::string::npos) {
    if (inet_pton(AF_INET, s.c_str(), ip.bytes.data()) != 1) return std::nullopt;
    return ip;
  }
  ip.v6 = true;
  if (inet_pton(AF_INET6, s.c_str(), ip.bytes.data()) != 1) return std::nullopt;
  return ip;
}

std::string IpAddress::String() const {
  char buf[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof(buf));
  return buf;
}

unsigned __int128 IpAddress::Value() const {
  unsigned __int128 v = 0;
  const size_t n = v6 ? 16 : 4;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | bytes[i];
  return v;
}

IpAddress IpAddress::FromValue(unsigned __int128 v, bool v6) {
  IpAddress ip;
  ip.v6 = v6;
  const size_t n = v6 ? 16 : 4;
  for (size_t i = 0; i < n; ++i) {
    ip.bytes[n - 1 - i] = static_cast<uint8_t>(v & 0xff);
    v >>= 8;
  }
  return ip;
}

bool IpAddress::IsLoopback() const {
  if (!v6) return bytes[0] == 127;
  // ::1, and IPv4-mapped 127/8.
  static const std::array<uint8_t, 16> kLoop = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  if (bytes == kLoop) return true;
  bool mapped = std::all_of(bytes.begin(), bytes.begin() + 10, [](uint8_t b) { return b == 0; }) && bytes[10] == 0xff &&
                bytes[11] == 0xff;
  return mapped && bytes[12] == 127;
}

bool IpAddress::IsUnspecified() const {
  const size_t n = v6 ? 16 : 4;
  return std::all_of(bytes.begin(), bytes.begin() + static_cast<long>(n), [](uint8_t b) { return b == 0; });
}

namespace {

// kube's calculateRangeOffset for service IPs: min(max(16, size/16), 256), 0 for tiny ranges.
int64_t DynamicOffsetFor(unsigned __int128 cidr_size) {
  constexpr int64_t kMin = 16, kMax = 256, kStep = 16;
  if (cidr_size <= static_cast<unsigned __int128>(kMin)) return 0;
  unsigned __int128 offset = cidr_size / kStep;
  if (offset < static_cast<unsigned __int128>(kMin)) return kMin;
  if (offset > static_cast<unsigned __int128>(kMax)) return kMax;
  return static_cast<int64_t>(offset);
}

}  // namespace

StatusOr<IpRange> IpRange::Parse(std::string_view cidr) {
  auto bad = [&](const std::string& why) {
    return Status(400, "BadRequest", "invalid CIDR address: " + std::string(cidr) + (why.empty() ? "" : " (" + why + ")"));
  };
  size_t slash = cidr.find('/');
  if (slash == std::string_view::npos) return bad("");
  auto ip = IpAddress::Parse(cidr.substr(0, slash));
  if (!ip) return bad("");
  std::string_view bits = cidr.substr(slash + 1);
  if (bits.empty() || bits.size() > 3 || !std::all_of(bits.begin(), bits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return bad("");
  }
  int prefix = std::stoi(std::string(bits));
  const int width = ip->v6 ? 128 : 32;
  if (prefix > width) return bad("");
  IpRange r;
  r.prefix_ = prefix;
  const int host_bits = width - prefix;
  unsigned __int128 mask = host_bits >= 128 ? ~static_cast<unsigned __int128>(0)
                                            : ((static_cast<unsigned __int128>(1) << host_bits) - 1);
  r.network_ = IpAddress::FromValue(ip->Value() & ~mask, ip->v6);
  r.cidr_ = r.network_.String() + "/" + std::to_string(prefix);
  // kube's netutils.RangeSize: 2^host_bits, 0 when that overflows int64.
  unsigned __int128 cidr_size = host_bits >= 64 ? 0 : (static_cast<unsigned __int128>(1) << host_bits);
  int64_t max = 0;
  if (ip->v6) {
    max = (cidr_size == 0 || cidr_size > 65536) ? 65536 : static_cast<int64_t>(cidr_size);
  } else {
    max = static_cast<int64_t>(cidr_size) - 1;  // no broadcast address
  }
  max -= 1;  // no network address
  r.size_ = std::max<int64_t>(0, max);
  r.dynamic_offset_ = DynamicOffsetFor(cidr_size == 0 ? static_cast<unsigned __int128>(1) << 64 : cidr_size);
  if (r.dynamic_offset_ >= r.size_) r.dynamic_offset_ = 0;
  return r;
}

std::optional<int64_t> IpRange::OffsetOf(const IpAddress& ip) const {
  if (ip.v6 != network_.v6) return std::nullopt;
  unsigned __int128 base = network_.Value() + 1;
  unsigned __int128 v = ip.Value();
  if (v < base) return std::nullopt;
  unsigned __int128 off = v - base;
  if (off >= static_cast<unsigned __int128>(size_)) return std::nullopt;
  return static_cast<int64_t>(off);
}

IpAddress IpRange::AddressAt(int64_t offset) const {
  return IpAddress::FromValue(network_.Value() + 1 + static_cast<unsigned __int128>(offset), network_.v6);
}

}  // namespace capstan::registry
