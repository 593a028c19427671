#include "cel/value.h"

#include <cmath>
#include <cstdio>

#include "util/go_float.h"

namespace capstan::cel {

Value Value::String(std::string s) {
  Value v(Kind::kString);
  v.p_ = std::make_shared<const std::string>(std::move(s));
  return v;
}
Value Value::Bytes(std::string s) {
  Value v(Kind::kBytes);
  v.p_ = std::make_shared<const std::string>(std::move(s));
  return v;
}
Value Value::List(std::vector<Value> items) {
  auto l = std::make_shared<ListValue>();
  l->items = std::move(items);
  return List(std::move(l));
}
Value Value::List(std::shared_ptr<const ListValue> l) {
  Value v(Kind::kList);
  v.p_ = std::move(l);
  return v;
}
Value Value::Map(std::shared_ptr<const MapValue> m) {
  Value v(Kind::kMap);
  v.p_ = std::move(m);
  return v;
}
Value Value::Type(std::string name) {
  Value v(Kind::kType);
  v.p_ = std::make_shared<const std::string>(std::move(name));
  return v;
}
Value Value::OptionalOf(Value inner) {
  Value v(Kind::kOptional);
  v.p_ = std::make_shared<const Value>(std::move(inner));
  return v;
}
Value Value::Error(std::string message) {
  Value v(Kind::kError);
  v.p_ = std::make_shared<const std::string>(std::move(message));
  return v;
}
Value Value::Opaque(std::shared_ptr<const OpaqueValue> o) {
  Value v(Kind::kOpaque);
  v.p_ = std::move(o);
  return v;
}

namespace {

bool IsNumber(Kind k) { return k == Kind::kInt || k == Kind::kUint || k == Kind::kDouble; }

// Compares numbers of any of the three kinds exactly (no rounding through double for big ints).
std::optional<int> CompareNumbers(const Value& a, const Value& b, bool* nan) {
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  // cel-go's compareIntDouble / compareUintDouble: out-of-range doubles order outside, the rest
  // compare as doubles (lossy near 2^63, as cel-go is).
  auto dd = [&](double x, double y) -> std::optional<int> { return cmp(x, y); };
  auto int_double = [&](int64_t i, double d) -> std::optional<int> {
    if (std::isnan(d)) {
      if (nan) *nan = true;
      return std::nullopt;
    }
    if (d < -9223372036854775808.0) return 1;
    if (d > 9223372036854775807.0) return -1;
    return dd(static_cast<double>(i), d);
  };
  auto uint_double = [&](uint64_t u, double d) -> std::optional<int> {
    if (std::isnan(d)) {
      if (nan) *nan = true;
      return std::nullopt;
    }
    if (d < 0) return 1;
    if (d > 18446744073709551615.0) return -1;
    return dd(static_cast<double>(u), d);
  };
  Kind ka = a.kind(), kb = b.kind();
  if (ka == Kind::kInt && kb == Kind::kInt) return cmp(a.int_value(), b.int_value());
  if (ka == Kind::kUint && kb == Kind::kUint) return cmp(a.uint_value(), b.uint_value());
  if (ka == Kind::kDouble && kb == Kind::kDouble) {
    if (std::isnan(a.double_value()) || std::isnan(b.double_value())) {
      if (nan) *nan = true;
      return std::nullopt;
    }
    return cmp(a.double_value(), b.double_value());
  }
  if (ka == Kind::kInt && kb == Kind::kUint) {
    if (a.int_value() < 0) return -1;
    return cmp(static_cast<uint64_t>(a.int_value()), b.uint_value());
  }
  if (ka == Kind::kUint && kb == Kind::kInt) {
    if (b.int_value() < 0) return 1;
    return cmp(a.uint_value(), static_cast<uint64_t>(b.int_value()));
  }
  if (ka == Kind::kInt && kb == Kind::kDouble) return int_double(a.int_value(), b.double_value());
  if (ka == Kind::kDouble && kb == Kind::kInt) {
    auto r = int_double(b.int_value(), a.double_value());
    if (r) return -*r;
    return r;
  }
  if (ka == Kind::kUint && kb == Kind::kDouble) return uint_double(a.uint_value(), b.double_value());
  if (ka == Kind::kDouble && kb == Kind::kUint) {
    auto r = uint_double(b.uint_value(), a.double_value());
    if (r) return -*r;
    return r;
  }
  return std::nullopt;
}

// The key of a list-map item: the values of its map keys, compared with Equal.
bool SameMapKeys(const Value& a, const Value& b, const std::vector<std::string>& keys) {
  if (a.kind() != Kind::kMap || b.kind() != Kind::kMap) return false;
  for (const auto& k : keys) {
    const Value* x = a.map().FindString(k);
    const Value* y = b.map().FindString(k);
    if ((x == nullptr) != (y == nullptr)) return false;
    if (x && !Equal(*x, *y)) return false;
  }
  return true;
}

bool ListEqual(const ListValue& a, const ListValue& b) {
  if (a.items.size() != b.items.size()) return false;
  const ListValue* keyed = a.flavor == ListFlavor::kMap ? &a : (b.flavor == ListFlavor::kMap ? &b : nullptr);
  if (keyed) {
    // kube's map lists: equal when every item of one has an equal item with the same keys in the other.
    const ListValue& other = keyed == &a ? b : a;
    for (const auto& x : other.items) {
      bool found = false;
      for (const auto& y : keyed->items) {
        if (SameMapKeys(x, y, keyed->map_keys)) {
          if (!Equal(x, y)) return false;
          found = true;
          break;
        }
      }
      if (!found) return false;
    }
    return true;
  }
  if (a.flavor == ListFlavor::kSet || b.flavor == ListFlavor::kSet) {
    for (const auto& x : a.items) {
      bool found = false;
      for (const auto& y : b.items) {
        if (Equal(x, y)) { found = true; break; }
      }
      if (!found) return false;
    }
    return true;
  }
  for (size_t i = 0; i < a.items.size(); ++i) {
    if (!Equal(a.items[i], b.items[i])) return false;
  }
  return true;
}

}  // namespace

const Value* MapValue::Find(const Value& key) const {
  for (const auto& [k, v] : entries) {
    if (k.kind() == key.kind()) {
      switch (k.kind()) {
        case Kind::kString: if (k.str() == key.str()) return &v; break;
        case Kind::kInt: if (k.int_value() == key.int_value()) return &v; break;
        case Kind::kUint: if (k.uint_value() == key.uint_value()) return &v; break;
        case Kind::kBool: if (k.bool_value() == key.bool_value()) return &v; break;
        default: if (Equal(k, key)) return &v;
      }
    } else if (IsNumber(k.kind()) && IsNumber(key.kind())) {
      auto c = CompareNumbers(k, key, nullptr);
      if (c && *c == 0) return &v;
    }
  }
  return nullptr;
}

const Value* MapValue::FindString(std::string_view key) const {
  for (const auto& [k, v] : entries) {
    if (k.kind() == Kind::kString && k.str() == key) return &v;
  }
  return nullptr;
}

std::string TypeName(const Value& v) {
  switch (v.kind()) {
    case Kind::kNull: return "null_type";
    case Kind::kBool: return "bool";
    case Kind::kInt: return "int";
    case Kind::kUint: return "uint";
    case Kind::kDouble: return "double";
    case Kind::kString: return "string";
    case Kind::kBytes: return "bytes";
    case Kind::kList: return "list";
    case Kind::kMap: return v.map().object_type.empty() ? "map" : v.map().object_type;
    case Kind::kTimestamp: return "google.protobuf.Timestamp";
    case Kind::kDuration: return "google.protobuf.Duration";
    case Kind::kType: return "type";
    case Kind::kOptional: return "optional_type";
    case Kind::kError: return "error";
    case Kind::kOpaque: return std::string(v.opaque().TypeName());
  }
  return "dyn";
}

std::optional<Value> EqualityError(const Value& a, const Value& b) {
  if (a.IsError()) return a;
  if (b.IsError()) return b;
  return std::nullopt;
}

bool Equal(const Value& a, const Value& b) {
  if (IsNumber(a.kind()) && IsNumber(b.kind())) {
    auto c = CompareNumbers(a, b, nullptr);
    return c && *c == 0;
  }
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::kNull: return true;
    case Kind::kBool: return a.bool_value() == b.bool_value();
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kType:
    case Kind::kError: return a.str() == b.str();
    case Kind::kTimestamp: return a.seconds() == b.seconds() && a.nanos() == b.nanos();
    case Kind::kDuration: return a.duration_nanos() == b.duration_nanos();
    case Kind::kList: return ListEqual(a.list(), b.list());
    case Kind::kMap: {
      const MapValue& x = a.map();
      const MapValue& y = b.map();
      if (x.entries.size() != y.entries.size()) return false;
      for (const auto& [k, v] : x.entries) {
        const Value* o = y.Find(k);
        if (!o || !Equal(v, *o)) return false;
      }
      return true;
    }
    case Kind::kOptional:
      if (a.has_optional_value() != b.has_optional_value()) return false;
      return !a.has_optional_value() || Equal(a.optional_value(), b.optional_value());
    case Kind::kOpaque: return a.opaque().TypeName() == b.opaque().TypeName() && a.opaque().Equal(b.opaque());
    default: return false;
  }
}

std::optional<int> Compare(const Value& a, const Value& b, bool* nan) {
  if (IsNumber(a.kind()) && IsNumber(b.kind())) return CompareNumbers(a, b, nan);
  if (a.kind() != b.kind()) return std::nullopt;
  auto cmp = [](auto x, auto y) { return x < y ? -1 : (x > y ? 1 : 0); };
  switch (a.kind()) {
    case Kind::kBool: return cmp(a.bool_value(), b.bool_value());
    case Kind::kString:
    case Kind::kBytes: {
      int c = a.str().compare(b.str());
      return c < 0 ? -1 : (c > 0 ? 1 : 0);
    }
    case Kind::kTimestamp:
      if (a.seconds() != b.seconds()) return cmp(a.seconds(), b.seconds());
      return cmp(a.nanos(), b.nanos());
    case Kind::kDuration: return cmp(a.duration_nanos(), b.duration_nanos());
    default: return std::nullopt;
  }
}

std::string FormatDouble(double d);

std::string DebugString(const Value& v) {
  switch (v.kind()) {
    case Kind::kNull: return "null";
    case Kind::kBool: return v.bool_value() ? "true" : "false";
    case Kind::kInt: return std::to_string(v.int_value());
    case Kind::kUint: return std::to_string(v.uint_value());
    case Kind::kDouble: return FormatDouble(v.double_value());
    case Kind::kString:
    case Kind::kBytes:
    case Kind::kType:
    case Kind::kError: return v.str();
    case Kind::kList: {
      std::string s = "[";
      for (size_t i = 0; i < v.list().items.size(); ++i) s += (i ? ", " : "") + DebugString(v.list().items[i]);
      return s + "]";
    }
    case Kind::kMap: {
      std::string s = "{";
      bool first = true;
      for (const auto& [k, x] : v.map().entries) {
        s += (first ? "" : ", ") + DebugString(k) + ": " + DebugString(x);
        first = false;
      }
      return s + "}";
    }
    case Kind::kOptional: return v.has_optional_value() ? "optional(" + DebugString(v.optional_value()) + ")" : "optional.none()";
    default: return TypeName(v);
  }
}

std::string FormatDouble(double d) { return FormatFloatG(d); }

int64_t CodePointCount(std::string_view s) {
  int64_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

}  // namespace capstan::cel
