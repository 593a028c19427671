// cel-go's standard library (checker/decls standard declarations, interpreter functions): operators,
// size, string predicates, matches, the type conversions, type() and dyn().
#include <re2/re2.h>

#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "util/go_float.h"
#include "apimachinery/time_util.h"
#include "apimachinery/utf8.h"
#include "cel/functions.h"
#include "cel/regex_cache.h"
#include "cel/time_values.h"
#include "util/duration.h"

namespace capstan::cel {

namespace {

namespace am = capstan::apimachinery;

Value IntOverflow() { return Value::Error("integer overflow"); }
Value UintOverflow() { return Value::Error("unsigned integer overflow"); }

bool IsNum(const Value& v) { return v.kind() == Kind::kInt || v.kind() == Kind::kUint || v.kind() == Kind::kDouble; }

Value Add(EvalContext& ctx, const Value* a, size_t n) {
  if (n != 2) return NoSuchOverload();
  const Value& x = a[0];
  const Value& y = a[1];
  if (x.kind() != y.kind()) {
    if (x.kind() == Kind::kTimestamp && y.kind() == Kind::kDuration) return AddTimestamp(x, y.duration_nanos());
    if (x.kind() == Kind::kDuration && y.kind() == Kind::kTimestamp) return AddTimestamp(y, x.duration_nanos());
    return NoSuchOverload();
  }
  switch (x.kind()) {
    case Kind::kInt: {
      int64_t r;
      if (__builtin_add_overflow(x.int_value(), y.int_value(), &r)) return IntOverflow();
      return Value::Int(r);
    }
    case Kind::kUint: {
      uint64_t r;
      if (__builtin_add_overflow(x.uint_value(), y.uint_value(), &r)) return UintOverflow();
      return Value::Uint(r);
    }
    case Kind::kDouble: return Value::Double(x.double_value() + y.double_value());
    case Kind::kString:
      ctx.Charge(SizeCost(x) + SizeCost(y));
      return Value::String(x.str() + y.str());
    case Kind::kBytes:
      ctx.Charge(SizeCost(x) + SizeCost(y));
      return Value::Bytes(x.str() + y.str());
    case Kind::kList: {
      std::vector<Value> items = x.list().items;
      items.insert(items.end(), y.list().items.begin(), y.list().items.end());
      ctx.Charge(SizeCost(x) + SizeCost(y));
      return Value::List(std::move(items));
    }
    case Kind::kDuration: {
      int64_t r;
      if (__builtin_add_overflow(x.duration_nanos(), y.duration_nanos(), &r)) return Value::Error("duration overflow");
      return Value::Duration(r);
    }
    default: return NoSuchOverload();
  }
}

Value Sub(EvalContext&, const Value* a, size_t n) {
  if (n != 2) return NoSuchOverload();
  const Value& x = a[0];
  const Value& y = a[1];
  if (x.kind() == Kind::kTimestamp && y.kind() == Kind::kDuration) {
    if (y.duration_nanos() == INT64_MIN) return Value::Error("timestamp overflow");
    return AddTimestamp(x, -y.duration_nanos());
  }
  if (x.kind() == Kind::kTimestamp && y.kind() == Kind::kTimestamp) return SubTimestamps(x, y);
  if (x.kind() != y.kind()) return NoSuchOverload();
  switch (x.kind()) {
    case Kind::kInt: {
      int64_t r;
      if (__builtin_sub_overflow(x.int_value(), y.int_value(), &r)) return IntOverflow();
      return Value::Int(r);
    }
    case Kind::kUint: {
      uint64_t r;
      if (__builtin_sub_overflow(x.uint_value(), y.uint_value(), &r)) return UintOverflow();
      return Value::Uint(r);
    }
    case Kind::kDouble: return Value::Double(x.double_value() - y.double_value());
    case Kind::kDuration: {
      int64_t r;
      if (__builtin_sub_overflow(x.duration_nanos(), y.duration_nanos(), &r)) return Value::Error("duration overflow");
      return Value::Duration(r);
    }
    default: return NoSuchOverload();
  }
}

Value Mul(EvalContext&, const Value* a, size_t n) {
  if (n != 2 || a[0].kind() != a[1].kind()) return NoSuchOverload();
  const Value& x = a[0];
  const Value& y = a[1];
  switch (x.kind()) {
    case Kind::kInt: {
      int64_t r;
      if (__builtin_mul_overflow(x.int_value(), y.int_value(), &r)) return IntOverflow();
      return Value::Int(r);
    }
    case Kind::kUint: {
      uint64_t r;
      if (__builtin_mul_overflow(x.uint_value(), y.uint_value(), &r)) return UintOverflow();
      return Value::Uint(r);
    }
    case Kind::kDouble: return Value::Double(x.double_value() * y.double_value());
    default: return NoSuchOverload();
  }
}

Value Div(EvalContext&, const Value* a, size_t n) {
  if (n != 2 || a[0].kind() != a[1].kind()) return NoSuchOverload();
  const Value& x = a[0];
  const Value& y = a[1];
  switch (x.kind()) {
    case Kind::kInt:
      if (y.int_value() == 0) return Value::Error("division by zero");
      if (x.int_value() == INT64_MIN && y.int_value() == -1) return IntOverflow();
      return Value::Int(x.int_value() / y.int_value());
    case Kind::kUint:
      if (y.uint_value() == 0) return Value::Error("division by zero");
      return Value::Uint(x.uint_value() / y.uint_value());
    case Kind::kDouble: return Value::Double(x.double_value() / y.double_value());
    default: return NoSuchOverload();
  }
}

Value Mod(EvalContext&, const Value* a, size_t n) {
  if (n != 2 || a[0].kind() != a[1].kind()) return NoSuchOverload();
  const Value& x = a[0];
  const Value& y = a[1];
  switch (x.kind()) {
    case Kind::kInt:
      if (y.int_value() == 0) return Value::Error("modulus by zero");
      if (x.int_value() == INT64_MIN && y.int_value() == -1) return IntOverflow();
      return Value::Int(x.int_value() % y.int_value());
    case Kind::kUint:
      if (y.uint_value() == 0) return Value::Error("modulus by zero");
      return Value::Uint(x.uint_value() % y.uint_value());
    default: return NoSuchOverload();
  }
}

Value Negate(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  if (a[0].kind() == Kind::kInt) {
    if (a[0].int_value() == INT64_MIN) return IntOverflow();
    return Value::Int(-a[0].int_value());
  }
  if (a[0].kind() == Kind::kDouble) return Value::Double(-a[0].double_value());
  return NoSuchOverload();
}

Value Not(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || !a[0].IsBool()) return NoSuchOverload();
  return Value::Bool(!a[0].bool_value());
}

bool Comparable(const Value& a, const Value& b) {
  if (IsNum(a) && IsNum(b)) return true;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kBool: case Kind::kString: case Kind::kBytes: case Kind::kTimestamp: case Kind::kDuration: return true;
    default: return false;
  }
}

template <int kWant1, int kWant2>
Value Cmp(EvalContext&, const Value* a, size_t n) {
  if (n != 2 || !Comparable(a[0], a[1])) return NoSuchOverload();
  bool nan = false;
  auto c = Compare(a[0], a[1], &nan);
  if (!c) return Value::Bool(false);
  return Value::Bool(*c == kWant1 || *c == kWant2);
}

Value Eq(EvalContext&, const Value* a, size_t n) {
  if (n != 2) return NoSuchOverload();
  return Value::Bool(Equal(a[0], a[1]));
}
Value Ne(EvalContext&, const Value* a, size_t n) {
  if (n != 2) return NoSuchOverload();
  return Value::Bool(!Equal(a[0], a[1]));
}

Value In(EvalContext& ctx, const Value* a, size_t n) {
  if (n != 2) return NoSuchOverload();
  if (a[1].kind() == Kind::kList) {
    ctx.Charge(SizeCost(a[1]));
    for (const auto& x : a[1].list().items) {
      if (Equal(a[0], x)) return Value::Bool(true);
    }
    return Value::Bool(false);
  }
  if (a[1].kind() == Kind::kMap) return Value::Bool(a[1].map().Find(a[0]) != nullptr);
  return NoSuchOverload();
}

Value Size(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  switch (a[0].kind()) {
    case Kind::kString: return Value::Int(CodePointCount(a[0].str()));
    case Kind::kBytes: return Value::Int(static_cast<int64_t>(a[0].str().size()));
    case Kind::kList: return Value::Int(static_cast<int64_t>(a[0].list().items.size()));
    case Kind::kMap: return Value::Int(static_cast<int64_t>(a[0].map().entries.size()));
    default: return NoSuchOverload();
  }
}

bool TwoStrings(const Value* a, size_t n) {
  return n == 2 && a[0].kind() == Kind::kString && a[1].kind() == Kind::kString;
}

Value Contains(EvalContext& ctx, const Value* a, size_t n) {
  if (!TwoStrings(a, n)) return NoSuchOverload();
  ctx.Charge(SizeCost(a[0]) + SizeCost(a[1]));
  return Value::Bool(a[0].str().find(a[1].str()) != std::string::npos);
}
Value StartsWith(EvalContext& ctx, const Value* a, size_t n) {
  if (!TwoStrings(a, n)) return NoSuchOverload();
  ctx.Charge(SizeCost(a[1]));
  return Value::Bool(a[0].str().compare(0, a[1].str().size(), a[1].str()) == 0 && a[0].str().size() >= a[1].str().size());
}
Value EndsWith(EvalContext& ctx, const Value* a, size_t n) {
  if (!TwoStrings(a, n)) return NoSuchOverload();
  ctx.Charge(SizeCost(a[1]));
  const std::string& s = a[0].str();
  const std::string& t = a[1].str();
  return Value::Bool(s.size() >= t.size() && s.compare(s.size() - t.size(), t.size(), t) == 0);
}
Value Matches(EvalContext& ctx, const Value* a, size_t n) {
  if (!TwoStrings(a, n)) return NoSuchOverload();
  ctx.Charge(SizeCost(a[0]) * SizeCost(a[1]) + 1);
  auto re = CompileRegex(a[1].str());
  if (!re.ok()) return Value::Error(re.error);
  return Value::Bool(RE2::PartialMatch(a[0].str(), *re.re));
}

Value ConvError(const Value& from, std::string_view to) {
  return Value::Error("type conversion error from '" + TypeName(from) + "' to '" + std::string(to) + "'");
}

Value ToInt(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  const Value& v = a[0];
  switch (v.kind()) {
    case Kind::kInt: return v;
    case Kind::kUint:
      if (v.uint_value() > static_cast<uint64_t>(INT64_MAX)) return IntOverflow();
      return Value::Int(static_cast<int64_t>(v.uint_value()));
    case Kind::kDouble: {
      double d = v.double_value();
      if (std::isnan(d) || std::isinf(d) || d <= -9223372036854775808.0 || d >= 9223372036854775807.0) return IntOverflow();
      return Value::Int(static_cast<int64_t>(d));
    }
    case Kind::kString: {
      const std::string& s = v.str();
      errno = 0;
      char* end = nullptr;
      if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return ConvError(v, "int");
      long long i = std::strtoll(s.c_str(), &end, 10);
      if (errno != 0 || end != s.c_str() + s.size()) return ConvError(v, "int");
      return Value::Int(i);
    }
    case Kind::kTimestamp: return Value::Int(v.seconds());
    case Kind::kDuration: return Value::Int(v.duration_nanos());
    default: return ConvError(v, "int");
  }
}

Value ToUint(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  const Value& v = a[0];
  switch (v.kind()) {
    case Kind::kUint: return v;
    case Kind::kInt:
      if (v.int_value() < 0) return UintOverflow();
      return Value::Uint(static_cast<uint64_t>(v.int_value()));
    case Kind::kDouble: {
      double d = v.double_value();
      if (std::isnan(d) || std::isinf(d) || d < 0 || d >= 18446744073709551615.0) return UintOverflow();
      return Value::Uint(static_cast<uint64_t>(d));
    }
    case Kind::kString: {
      const std::string& s = v.str();
      errno = 0;
      char* end = nullptr;
      if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return ConvError(v, "uint");
      unsigned long long u = std::strtoull(s.c_str(), &end, 10);
      if (errno != 0 || end != s.c_str() + s.size()) return ConvError(v, "uint");
      return Value::Uint(u);
    }
    default: return ConvError(v, "uint");
  }
}

// Go's strconv.ParseFloat: decimal and hex floats, "inf"/"infinity"/"nan" in any case, underscores
// not allowed outside base prefixes.
bool ParseGoFloat(const std::string& s, double& out) {
  if (s.empty()) return false;
  std::string lower;
  for (char c : s) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  std::string_view body = lower;
  bool neg = false;
  if (body[0] == '+' || body[0] == '-') {
    neg = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == "inf" || body == "infinity") {
    out = neg ? -INFINITY : INFINITY;
    return true;
  }
  if (body == "nan" && s[0] != '+' && s[0] != '-') {
    out = NAN;
    return true;
  }
  for (char c : body) {
    if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'p' || c == 'x' || c == '+' || c == '-')) return false;
  }
  errno = 0;
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  if (errno == ERANGE && std::isinf(d)) return false;
  out = d;
  return true;
}

Value ToDouble(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  const Value& v = a[0];
  switch (v.kind()) {
    case Kind::kDouble: return v;
    case Kind::kInt: return Value::Double(static_cast<double>(v.int_value()));
    case Kind::kUint: return Value::Double(static_cast<double>(v.uint_value()));
    case Kind::kString: {
      double d = 0;
      if (!ParseGoFloat(v.str(), d)) return ConvError(v, "double");
      return Value::Double(d);
    }
    default: return ConvError(v, "double");
  }
}

Value ToString(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  const Value& v = a[0];
  switch (v.kind()) {
    case Kind::kString: return v;
    case Kind::kInt: return Value::String(std::to_string(v.int_value()));
    case Kind::kUint: return Value::String(std::to_string(v.uint_value()));
    case Kind::kDouble: return Value::String(FormatFloatG(v.double_value()));
    case Kind::kBool: return Value::String(v.bool_value() ? "true" : "false");
    case Kind::kBytes:
      if (!am::IsValidUtf8(v.str())) return Value::Error("invalid UTF-8 in bytes, cannot convert to string");
      return Value::String(v.str());
    case Kind::kTimestamp: return Value::String(FormatTimestamp(v));
    case Kind::kDuration: return Value::String(FormatDurationSeconds(v.duration_nanos()));
    case Kind::kOpaque: return NoSuchOverload();  // a library's own string() (ip, cidr) may take it
    default: return ConvError(v, "string");
  }
}

Value ToBytes(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  if (a[0].kind() == Kind::kBytes) return a[0];
  if (a[0].kind() == Kind::kString) return Value::Bytes(a[0].str());
  return ConvError(a[0], "bytes");
}

Value ToBool(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  if (a[0].IsBool()) return a[0];
  if (a[0].kind() == Kind::kString) {
    static const char* kTrue[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char* kFalse[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (const char* t : kTrue) {
      if (a[0].str() == t) return Value::Bool(true);
    }
    for (const char* f : kFalse) {
      if (a[0].str() == f) return Value::Bool(false);
    }
  }
  return ConvError(a[0], "bool");
}

Value ToTimestamp(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  const Value& v = a[0];
  if (v.kind() == Kind::kTimestamp) return v;
  if (v.kind() == Kind::kInt) {
    if (v.int_value() < kMinTimestampSeconds || v.int_value() > kMaxTimestampSeconds) return Value::Error("timestamp overflow");
    return Value::Timestamp(v.int_value(), 0);
  }
  if (v.kind() == Kind::kString) {
    auto t = ParseTimestamp(v.str());
    if (!t) return ConvError(v, "google.protobuf.Timestamp");
    return *t;
  }
  return ConvError(v, "google.protobuf.Timestamp");
}

Value ToDuration(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  const Value& v = a[0];
  if (v.kind() == Kind::kDuration) return v;
  if (v.kind() == Kind::kString) {
    auto d = ParseGoDuration(v.str());
    if (!d) return ConvError(v, "google.protobuf.Duration");
    return Value::Duration(d->count());
  }
  return ConvError(v, "google.protobuf.Duration");
}

Value Dyn(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  return a[0];
}

Value TypeOf(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  return Value::Type(TypeName(a[0]));
}

}  // namespace

void RegisterStandardLibrary(FunctionRegistry& r) {
  r.AddGlobal("_+_", Add);
  r.AddGlobal("_-_", Sub);
  r.AddGlobal("_*_", Mul);
  r.AddGlobal("_/_", Div);
  r.AddGlobal("_%_", Mod);
  r.AddGlobal("-_", Negate);
  r.AddGlobal("!_", Not);
  r.AddGlobal("_<_", Cmp<-1, -1>);
  r.AddGlobal("_<=_", Cmp<-1, 0>);
  r.AddGlobal("_>_", Cmp<1, 1>);
  r.AddGlobal("_>=_", Cmp<1, 0>);
  r.AddGlobal("_==_", Eq);
  r.AddGlobal("_!=_", Ne);
  r.AddGlobal("@in", In);
  r.AddBoth("size", Size);
  r.AddMember("contains", Contains);
  r.AddMember("startsWith", StartsWith);
  r.AddMember("endsWith", EndsWith);
  r.AddBoth("matches", Matches);
  r.AddGlobal("int", ToInt);
  r.AddGlobal("uint", ToUint);
  r.AddGlobal("double", ToDouble);
  r.AddGlobal("string", ToString);
  r.AddGlobal("bytes", ToBytes);
  r.AddGlobal("bool", ToBool);
  r.AddGlobal("timestamp", ToTimestamp);
  r.AddGlobal("google.protobuf.Timestamp", ToTimestamp);
  r.AddGlobal("duration", ToDuration);
  r.AddGlobal("google.protobuf.Duration", ToDuration);
  r.AddGlobal("dyn", Dyn);
  r.AddGlobal("type", TypeOf);
}

}  // namespace capstan::cel
