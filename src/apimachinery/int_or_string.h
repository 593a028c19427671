// apimachinery/int_or_string.h: kube's intstr.IntOrString ("maxSurge: 25%" or "port: 8080").
//
// A JSON string reads as a string, a JSON integer as an int32 (Go's decoding of IntVal); anything else
// is not an IntOrString. ScaledValue resolves a percentage against a total as kube's
// GetScaledValueFromIntOrPercent, with its error texts:
//   invalid value for IntOrString: invalid type: string is not a percentage
//   invalid value for IntOrString: invalid value "x%": strconv.Atoi: parsing "x": invalid syntax
// A plain value type; thread-compatible.
#pragma once

#include <boost/json/value.hpp>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "apimachinery/status.h"
#include "util/strings.h"

namespace capstan::apimachinery {

class IntOrString {
 public:
  IntOrString() = default;
  static IntOrString FromInt(int32_t v) {
    IntOrString x;
    x.int_ = v;
    return x;
  }
  static IntOrString FromString(std::string s) {
    IntOrString x;
    x.is_string_ = true;
    x.str_ = std::move(s);
    return x;
  }
  // kube's intstr.Parse: an integer text becomes an int, anything else a string.
  static IntOrString Parse(std::string_view s) {
    int32_t v;
    auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (!s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size()) return FromInt(v);
    return FromString(std::string(s));
  }
  static std::optional<IntOrString> FromJson(const boost::json::value& v) {
    if (v.is_string()) return FromString(std::string(v.get_string()));
    if (v.is_int64() && v.get_int64() >= INT32_MIN && v.get_int64() <= INT32_MAX) {
      return FromInt(static_cast<int32_t>(v.get_int64()));
    }
    return std::nullopt;
  }

  bool is_string() const { return is_string_; }
  int32_t int_value() const { return int_; }
  const std::string& str_value() const { return str_; }
  boost::json::value ToJson() const { return is_string_ ? boost::json::value(str_) : boost::json::value(int_); }
  std::string String() const { return is_string_ ? str_ : std::to_string(int_); }
  bool operator==(const IntOrString&) const = default;

  // kube's GetScaledValueFromIntOrPercent.
  StatusOr<int64_t> ScaledValue(int64_t total, bool round_up) const {
    if (!is_string_) return static_cast<int64_t>(int_);
    auto fail = [](std::string m) { return Status(400, "BadRequest", "invalid value for IntOrString: " + m); };
    if (!EndsWith(str_, "%")) return fail("invalid type: string is not a percentage");
    std::string_view digits(str_.data(), str_.size() - 1);
    std::string_view num = digits;
    if (!num.empty() && num[0] == '+') num.remove_prefix(1);
    int64_t v;
    auto r = std::from_chars(num.data(), num.data() + num.size(), v);
    if (num.empty() || r.ptr != num.data() + num.size() || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)) {
      return fail("invalid value " + GoQuote(str_) + ": strconv.Atoi: parsing " + GoQuote(digits) + ": invalid syntax");
    }
    if (r.ec == std::errc::result_out_of_range) {
      return fail("invalid value " + GoQuote(str_) + ": strconv.Atoi: parsing " + GoQuote(digits) + ": value out of range");
    }
    double scaled = static_cast<double>(v) * static_cast<double>(total) / 100;
    return static_cast<int64_t>(round_up ? std::ceil(scaled) : std::floor(scaled));
  }

 private:
  bool is_string_ = false;
  int32_t int_ = 0;
  std::string str_;
};

}  // namespace capstan::apimachinery
