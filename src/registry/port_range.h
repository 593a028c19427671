// registry/port_range.h: a NodePort range (--service-node-port-range) as kube's portallocator sees it:
// "30000-32767" (also "30000+2767" and a single port), numbered as offsets from the base, with kube's
// static lower band and dynamic upper band. Immutable value type; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::registry {

class PortRange {
 public:
  // kube's utilnet.ParsePortRange; 400 BadRequest with its reason otherwise.
  static StatusOr<PortRange> Parse(std::string_view text);

  int base() const { return base_; }
  int size() const { return size_; }
  std::string String() const;  // "30000-32767"
  int64_t DynamicOffset() const { return dynamic_offset_; }
  bool Contains(int port) const { return port >= base_ && port < base_ + size_; }
  std::optional<int64_t> OffsetOf(int port) const {
    if (!Contains(port)) return std::nullopt;
    return port - base_;
  }
  int PortAt(int64_t offset) const { return base_ + static_cast<int>(offset); }

 private:
  int base_ = 0;
  int size_ = 0;
  int64_t dynamic_offset_ = 0;
};

}  // namespace capstan::registry
