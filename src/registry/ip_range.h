// registry/ip_range.h: a service IP range (--service-cluster-ip-range) as kube's ipallocator sees it:
// the CIDR's addresses minus the network address (and, for IPv4, the broadcast address), numbered as
// offsets 0..Size()-1 for a bitmap, with kube's split into a static lower band (IPs users ask for)
// and a dynamic upper band (where automatic allocation looks first). IPv6 ranges are capped at 65536
// addresses, as kube caps them. Immutable value type; thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::registry {

// An IPv4 or IPv6 address.
struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // IPv4 uses the first 4

  // Strict dotted-quad or RFC 4291 text; nullopt when it is neither.
  static std::optional<IpAddress> Parse(std::string_view text);
  std::string String() const;
  unsigned __int128 Value() const;
  static IpAddress FromValue(unsigned __int128 v, bool v6);
  bool IsLoopback() const;
  bool IsUnspecified() const;
  bool operator==(const IpAddress&) const = default;
};

class IpRange {
 public:
  // "10.0.0.0/24", "fd00::/108". 400 BadRequest with the reason when it is not a CIDR.
  static StatusOr<IpRange> Parse(std::string_view cidr);

  bool v6() const { return network_.v6; }
  const std::string& cidr() const { return cidr_; }  // canonical text, e.g. "10.0.0.0/24"
  // Number of allocatable addresses.
  int64_t Size() const { return size_; }
  // Offsets below this are the static band; automatic allocation prefers [DynamicOffset(), Size()).
  int64_t DynamicOffset() const { return dynamic_offset_; }

  // The offset of an address, or nullopt when it is outside the allocatable addresses.
  std::optional<int64_t> OffsetOf(const IpAddress& ip) const;
  IpAddress AddressAt(int64_t offset) const;
  // The first allocatable address (the `kubernetes` service's ClusterIP).
  IpAddress First() const { return AddressAt(0); }

 private:
  IpAddress network_;
  int prefix_ = 0;
  std::string cidr_;
  int64_t size_ = 0;
  int64_t dynamic_offset_ = 0;
};

}  // namespace capstan::registry
