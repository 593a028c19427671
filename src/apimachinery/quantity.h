// apimachinery/quantity.h: resource.Quantity ("100m", "1.5Gi", "2e3"), as kube's api/resource.
//
// Parsing follows kube's ParseQuantity step by step: the number, the suffix (n u m "" k M G T P E,
// Ki Mi Gi Ti Pi Ei, or e/E with an exponent), rounding up to nano precision, BinarySI values capped
// at 2^63-1, and kube's habit of keeping the original text when it is already canonical-looking
// ("1.500" stays "1.500", "+1" stays "+1"). String() gives kube's canonical form otherwise ("1000" ->
// "1k", "0.1" -> "100m", "1024Mi" -> "1Gi", "1.5Gi" -> "1536Mi", "2e3" -> "2e3"). Errors are kube's:
//   quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'
//   unable to parse quantity's suffix
//   unable to parse numeric part of quantity
// Values never expand with the exponent ("1e1000000" is cheap). Thread-compatible value type.
#pragma once

#include <boost/json/value.hpp>
#include <boost/multiprecision/cpp_int.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

inline constexpr std::string_view kQuantityFormatError =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
inline constexpr std::string_view kQuantityNumericError = "unable to parse numeric part of quantity";
inline constexpr std::string_view kQuantitySuffixError = "unable to parse quantity's suffix";

enum class QuantityFormat { kDecimalExponent, kBinarySI, kDecimalSI };

class Quantity {
 public:
  using BigInt = boost::multiprecision::cpp_int;

  Quantity() = default;  // zero, DecimalSI
  static Quantity FromInt(int64_t v, QuantityFormat f = QuantityFormat::kDecimalSI);
  static Quantity FromMilli(int64_t milli, QuantityFormat f = QuantityFormat::kDecimalSI);

  QuantityFormat format() const { return format_; }
  bool IsZero() const { return unscaled_ == 0; }
  int Sign() const { return unscaled_ < 0 ? -1 : (unscaled_ > 0 ? 1 : 0); }
  // -1, 0, 1 as this is less than, equal to or greater than o (by value; format ignored).
  int Cmp(const Quantity& o) const;
  bool operator==(const Quantity& o) const { return Cmp(o) == 0; }

  // kube's Value() / MilliValue(): the value scaled and rounded away from zero; saturates.
  int64_t Value() const;
  int64_t MilliValue() const;
  // The exact integer value, when it is one and fits.
  std::optional<int64_t> AsInt64() const;
  // kube's Add / Sub: the exact sum or difference, with no cached text (String() is canonical). The
  // result keeps this quantity's format, or takes o's when this one is zero, as kube's do.
  Quantity Add(const Quantity& o) const;
  Quantity Sub(const Quantity& o) const;

  // kube's String(): the parsed text when kube keeps it, else the canonical form.
  std::string String() const;
  std::string CanonicalString() const;

 private:
  friend StatusOr<Quantity> ParseQuantity(std::string_view s);
  int64_t ScaledValue(int scale) const;

  BigInt unscaled_ = 0;  // value = unscaled_ * 10^exp10_
  int64_t exp10_ = 0;
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
  std::string text_;     // kube's cached string
};

// A 400 BadRequest with kube's message when s is not a quantity.
StatusOr<Quantity> ParseQuantity(std::string_view s);
// A quantity given in JSON: a string, or a number (as kube reads its text).
StatusOr<Quantity> ParseQuantityJson(const boost::json::value& v);

}  // namespace capstan::apimachinery
