#include "apimachinery/quantity.h"

#include <algorithm>
#include <charconv>
#include <limits>

#include "util/go_float.h"
#include "util/strings.h"

namespace capstan::apimachinery {
namespace {

using BigInt = Quantity::BigInt;

constexpr int64_t kMaxBigExponent = std::numeric_limits<int32_t>::max();  // kube keeps scales in an int32

Status FormatError() { return Status(400, "BadRequest", std::string(kQuantityFormatError)); }
Status NumericError() { return Status(400, "BadRequest", std::string(kQuantityNumericError)); }
Status SuffixError() { return Status(400, "BadRequest", std::string(kQuantitySuffixError)); }

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// kube's parseQuantityString.
struct Parts {
  bool positive = true;
  std::string_view value, num, denom, suffix;
};

bool SplitQuantity(std::string_view str, Parts& p) {
  size_t pos = 0, end = str.size();
  if (pos < end && (str[0] == '-' || str[0] == '+')) {
    p.positive = str[0] != '-';
    ++pos;
  }
  while (pos < end && str[pos] == '0') ++pos;
  if (pos >= end) {
    p.num = "0";
    p.value = p.num;
    return true;
  }
  size_t i = pos;
  while (i < end && IsDigit(str[i])) ++i;
  if (i >= end) {
    p.num = str.substr(pos);
    p.value = str;
    return true;
  }
  p.num = str.substr(pos, i - pos);
  pos = i;
  if (p.num.empty()) p.num = "0";
  if (pos < end && str[pos] == '.') {
    ++pos;
    i = pos;
    while (i < end && IsDigit(str[i])) ++i;
    if (i >= end) {
      p.denom = str.substr(pos);
      p.value = str;
      return true;
    }
    p.denom = str.substr(pos, i - pos);
    pos = i;
  }
  p.value = str.substr(0, pos);
  size_t suffix_start = pos;
  i = pos;
  while (i < end && std::string_view("eEinumkKMGTP").find(str[i]) != std::string_view::npos) ++i;
  if (i >= end) {
    p.suffix = str.substr(suffix_start);
    return true;
  }
  pos = i;
  if (str[pos] == '-' || str[pos] == '+') ++pos;
  i = pos;
  while (i < end && IsDigit(str[i])) ++i;
  if (i >= end) {
    p.suffix = str.substr(suffix_start);
    return true;
  }
  return false;
}

// kube's suffixer.interpret.
bool InterpretSuffix(std::string_view s, int& base, int64_t& exponent, QuantityFormat& f) {
  struct Entry {
    std::string_view s;
    int base;
    int exp;
  };
  static constexpr Entry kTable[] = {{"", 10, 0},  {"n", 10, -9}, {"u", 10, -6}, {"m", 10, -3},  {"k", 10, 3},
                                     {"M", 10, 6}, {"G", 10, 9},  {"T", 10, 12}, {"P", 10, 15},  {"E", 10, 18},
                                     {"Ki", 2, 10}, {"Mi", 2, 20}, {"Gi", 2, 30}, {"Ti", 2, 40}, {"Pi", 2, 50},
                                     {"Ei", 2, 60}};
  for (const Entry& e : kTable) {
    if (e.s == s) {
      base = e.base;
      exponent = e.exp;
      f = e.base == 2 ? QuantityFormat::kBinarySI : QuantityFormat::kDecimalSI;
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    std::string_view digits = s.substr(1);
    if (digits[0] == '+') digits.remove_prefix(1);
    int64_t v;
    auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (r.ec != std::errc() || r.ptr != digits.data() + digits.size() || digits.empty()) return false;
    base = 10;
    exponent = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v)));  // Go's int32(x)
    f = QuantityFormat::kDecimalExponent;
    return true;
  }
  return false;
}

BigInt Pow10(int64_t n) {
  BigInt r = 1;
  BigInt b = 10;
  while (n > 0) {
    if (n & 1) r *= b;
    b *= b;
    n >>= 1;
  }
  return r;
}

size_t Digits(const BigInt& v) { return v == 0 ? 1 : (v < 0 ? BigInt(-v) : v).str().size(); }

// Removes factors of f from |v|; returns how many.
int64_t RemoveFactors(BigInt& v, unsigned f) {
  int64_t n = 0;
  if (v == 0) return 0;
  while (true) {
    BigInt q, r;
    divide_qr(v, BigInt(f), q, r);
    if (r != 0) break;
    v = q;
    ++n;
  }
  return n;
}

}  // namespace

Quantity Quantity::FromInt(int64_t v, QuantityFormat f) {
  Quantity q;
  q.unscaled_ = v;
  q.format_ = f;
  return q;
}

Quantity Quantity::FromMilli(int64_t milli, QuantityFormat f) {
  Quantity q;
  q.unscaled_ = milli;
  q.exp10_ = -3;
  q.format_ = f;
  return q;
}

StatusOr<Quantity> ParseQuantity(std::string_view str) {
  if (str.empty()) return FormatError();
  if (str == "0") {
    Quantity q;
    q.text_ = "0";
    return q;
  }
  Parts p;
  if (!SplitQuantity(str, p)) return FormatError();
  int base;
  int64_t exponent;
  QuantityFormat format;
  if (!InterpretSuffix(p.suffix, base, exponent, format)) return SuffixError();

  // kube's int64 fast path, which also decides whether the original text is kept.
  int64_t precision = 0, scale = 0, mantissa = 1;
  if (format == QuantityFormat::kBinarySI) {
    if (exponent >= 0 && p.denom.empty()) {
      mantissa = int64_t{1} << exponent;
      precision = 15 - static_cast<int64_t>(p.num.size()) - static_cast<int32_t>(static_cast<float>(exponent) * 3 / 10) - 1;
    } else {
      precision = -1;
    }
  } else {
    scale = exponent;
    precision = 18 - static_cast<int64_t>(p.num.size() + p.denom.size());
  }
  if (precision >= 0) {
    scale -= static_cast<int64_t>(p.denom.size());
    if (scale >= -9) {
      std::string shifted = std::string(p.num) + std::string(p.denom);
      int64_t value;
      auto r = std::from_chars(shifted.data(), shifted.data() + shifted.size(), value);
      if (r.ec != std::errc() || r.ptr != shifted.data() + shifted.size()) return NumericError();
      int64_t result;
      if (!__builtin_mul_overflow(value, mantissa, &result)) {
        if (!p.positive) result = -result;
        Quantity q;
        q.unscaled_ = result;
        q.exp10_ = scale;
        q.format_ = format;
        bool keep;
        if (format == QuantityFormat::kBinarySI) {
          keep = exponent % 10 == 0 && (value & 0x07) != 0;
        } else {
          keep = scale % 3 == 0 && !EndsWith(shifted, "000") && shifted[0] != '0';
        }
        if (keep) q.text_ = std::string(str);
        return q;
      }
    }
  }

  // The general path: exact decimal arithmetic, rounded up to nano precision.
  std::string_view v = p.value;
  if (!v.empty() && (v[0] == '+' || v[0] == '-')) v.remove_prefix(1);
  if (v.find_first_of("0123456789") == std::string_view::npos) return NumericError();
  size_t dot = v.find('.');
  std::string digits(v.substr(0, dot));
  int64_t exp10 = 0;
  if (dot != std::string_view::npos) {
    digits += v.substr(dot + 1);
    exp10 = -static_cast<int64_t>(v.size() - dot - 1);
  }
  if (digits.size() > 10000) return NumericError();
  // cpp_int reads a leading 0 as an octal prefix: strip leading zeros first.
  size_t nz = digits.find_first_not_of('0');
  digits = nz == std::string::npos ? "0" : digits.substr(nz);
  BigInt amount(digits);
  if (base == 10) {
    exp10 += exponent;
  } else {
    amount <<= static_cast<unsigned>(exponent);
  }
  if (exp10 > kMaxBigExponent) return NumericError();
  if (amount != 0 && exp10 < -9) {
    int64_t shift = -9 - exp10;
    if (static_cast<int64_t>(Digits(amount)) < shift) {
      amount = 1;  // below one nano: rounds up to 1n
    } else {
      BigInt q, r;
      divide_qr(amount, Pow10(shift), q, r);
      amount = r != 0 ? q + 1 : q;
    }
    exp10 = -9;
  }
  Quantity q;
  q.unscaled_ = amount;
  q.exp10_ = exp10;
  q.format_ = format;
  if (format == QuantityFormat::kBinarySI) {
    Quantity max = Quantity::FromInt(std::numeric_limits<int64_t>::max());
    if (q.Cmp(max) > 0) {
      q.unscaled_ = std::numeric_limits<int64_t>::max();
      q.exp10_ = 0;
    }
    if (q.Cmp(Quantity::FromInt(1)) < 0 && q.Sign() > 0) q.format_ = QuantityFormat::kDecimalSI;
  }
  if (!p.positive) q.unscaled_ = -q.unscaled_;
  return q;
}

StatusOr<Quantity> ParseQuantityJson(const boost::json::value& v) {
  if (v.is_string()) return ParseQuantity(TrimSpace(std::string_view(v.get_string())));
  if (v.is_int64()) return ParseQuantity(std::to_string(v.get_int64()));
  if (v.is_uint64()) return ParseQuantity(std::to_string(v.get_uint64()));
  if (v.is_double()) return ParseQuantity(FormatFloatJson(v.get_double()));
  return FormatError();
}

int Quantity::Cmp(const Quantity& o) const {
  int a = Sign(), b = o.Sign();
  if (a != b) return a < b ? -1 : 1;
  if (a == 0) return 0;
  // Same sign: compare magnitudes by order of magnitude first, then exactly.
  int64_t ma = static_cast<int64_t>(Digits(unscaled_)) + exp10_;
  int64_t mb = static_cast<int64_t>(Digits(o.unscaled_)) + o.exp10_;
  int mag;
  if (ma != mb) {
    mag = ma < mb ? -1 : 1;
  } else {
    BigInt x = unscaled_ < 0 ? BigInt(-unscaled_) : unscaled_;
    BigInt y = o.unscaled_ < 0 ? BigInt(-o.unscaled_) : o.unscaled_;
    int64_t e = std::min(exp10_, o.exp10_);
    x *= Pow10(exp10_ - e);
    y *= Pow10(o.exp10_ - e);
    mag = x < y ? -1 : (x > y ? 1 : 0);
  }
  return a > 0 ? mag : -mag;
}

int64_t Quantity::ScaledValue(int scale) const {
  // value / 10^scale, rounded away from zero, saturated to int64.
  int64_t shift = exp10_ - scale;
  BigInt r;
  if (shift >= 0) {
    if (shift > 40) return Sign() > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    r = unscaled_ * Pow10(shift);
  } else {
    if (static_cast<int64_t>(Digits(unscaled_)) < -shift) return Sign();
    BigInt q, rem;
    divide_qr(unscaled_, Pow10(-shift), q, rem);
    r = rem != 0 ? q + Sign() : q;
  }
  if (r > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (r < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(r);
}

int64_t Quantity::Value() const { return ScaledValue(0); }
int64_t Quantity::MilliValue() const { return ScaledValue(-3); }

std::optional<int64_t> Quantity::AsInt64() const {
  if (IsZero()) return 0;
  BigInt v = unscaled_;
  int64_t e = exp10_;
  if (e < 0) {
    int64_t stripped = RemoveFactors(v, 10);
    if (stripped < -e) return std::nullopt;
    v *= Pow10(stripped + e);
    e = 0;
  }
  if (e > 19) return std::nullopt;
  v *= Pow10(e);
  if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min()) return std::nullopt;
  return static_cast<int64_t>(v);
}

Quantity Quantity::Add(const Quantity& o) const {
  Quantity r;
  r.format_ = IsZero() ? o.format_ : format_;
  int64_t e = std::min(exp10_, o.exp10_);
  r.unscaled_ = unscaled_ * Pow10(exp10_ - e) + o.unscaled_ * Pow10(o.exp10_ - e);
  r.exp10_ = r.unscaled_ == 0 ? 0 : e;
  return r;
}

Quantity Quantity::Sub(const Quantity& o) const {
  Quantity neg = o;
  neg.unscaled_ = -neg.unscaled_;
  return Add(neg);
}

std::string Quantity::String() const { return text_.empty() ? CanonicalString() : text_; }

std::string Quantity::CanonicalString() const {
  if (IsZero()) return "0";
  QuantityFormat f = format_;
  std::optional<BigInt> integral;
  if (f == QuantityFormat::kBinarySI) {
    if (Cmp(FromInt(-1024)) > 0 && Cmp(FromInt(1024)) < 0) {
      f = QuantityFormat::kDecimalSI;
    } else {
      BigInt v = unscaled_;
      int64_t e = exp10_;
      int64_t stripped = e < 0 ? RemoveFactors(v, 10) : 0;
      if (e < 0 && stripped < -e) {
        f = QuantityFormat::kDecimalSI;  // has a fraction
      } else {
        integral = e < 0 ? BigInt(v * Pow10(stripped + e)) : BigInt(v * Pow10(e));
      }
    }
  }
  if (f != QuantityFormat::kBinarySI) {
    BigInt m = unscaled_;
    int64_t e = exp10_ + RemoveFactors(m, 10);
    while (e % 3 != 0) {
      m *= 10;
      --e;
    }
    std::string out = m.str();
    if (f == QuantityFormat::kDecimalExponent) {
      if (e != 0) out += "e" + std::to_string(e);
      return out;
    }
    static constexpr std::string_view kSuffixes[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    if (e >= -9 && e <= 18) out += kSuffixes[(e + 9) / 3];
    return out;  // kube prints no suffix for other exponents
  }
  BigInt m = *integral;
  int64_t times = RemoveFactors(m, 1024);
  std::string out = m.str();
  static constexpr std::string_view kBin[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  if (times >= 1 && times <= 6) out += kBin[times];
  return out;
}

}  // namespace capstan::apimachinery
