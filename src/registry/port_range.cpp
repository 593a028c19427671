#include "registry/port_range.h"

#include <charconv>

namespace capstan::registry {

namespace {

std::optional<int> ParsePort(std::string_view s) {
  int v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// kube's calculateRangeOffset for node ports: min(max(16, size/32), 128), 0 for tiny ranges.
int64_t DynamicOffsetFor(int size) {
  constexpr int kMin = 16, kMax = 128, kStep = 32;
  if (size <= kMin) return 0;
  int offset = size / kStep;
  if (offset < kMin) return kMin;
  if (offset > kMax) return kMax;
  return offset;
}

}  // namespace

StatusOr<PortRange> PortRange::Parse(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Status(400, "BadRequest", "unable to parse port range: " + std::string(text) + ": " + why);
  };
  if (text.empty()) return bad("empty");
  int low = 0, high = 0;
  if (size_t dash = text.find('-'); dash != std::string_view::npos) {
    auto a = ParsePort(text.substr(0, dash));
    auto b = ParsePort(text.substr(dash + 1));
    if (!a || !b) return bad("invalid syntax");
    low = *a;
    high = *b;
  } else if (size_t plus = text.find('+'); plus != std::string_view::npos) {
    auto a = ParsePort(text.substr(0, plus));
    auto n = ParsePort(text.substr(plus + 1));
    if (!a || !n) return bad("invalid syntax");
    low = *a;
    high = *a + *n;
  } else {
    auto a = ParsePort(text);
    if (!a) return bad("invalid syntax");
    low = high = *a;
  }
  if (low < 0 || high > 65535 || high < low) return bad("range out of bounds");
  PortRange r;
  r.base_ = low;
  r.size_ = high - low + 1;
  r.dynamic_offset_ = DynamicOffsetFor(r.size_);
  return r;
}

std::string PortRange::String() const {
  if (size_ == 0) return "";
  return std::to_string(base_) + "-" + std::to_string(base_ + size_ - 1);
}

}  // namespace capstan::registry
