// cel/value.h: a CEL runtime value (cel-go's ref.Val): null, bool, int, uint, double, string, bytes,
// list, map, timestamp, duration, type, optional, error, and opaque values that libraries define
// (URL, IP, CIDR, Quantity, format).
//
// Values are small and cheap to copy: scalars inline, everything else behind a shared pointer to an
// immutable payload. An error is a value, as in cel-go, so that `&&`, `||` and the ternary can absorb
// it; Eval returns it as the result when nothing absorbed it. Lists and maps built from JSON keep the
// schema's list type (set, map with keys) because kube compares them by content, not order.
//
// Immutable once built; any number of threads may read a Value concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace capstan::cel {

enum class Kind : uint8_t {
  kNull, kBool, kInt, kUint, kDouble, kString, kBytes, kList, kMap, kTimestamp, kDuration, kType,
  kOptional, kError, kOpaque,
};

class Value;
struct ListValue;
struct MapValue;

// A library-defined value (kube's URL, IP, CIDR, Quantity, ...).
class OpaqueValue {
 public:
  virtual ~OpaqueValue() = default;
  virtual std::string_view TypeName() const = 0;
  virtual bool Equal(const OpaqueValue& o) const = 0;
};

class Value {
 public:
  Value() = default;  // null
  static Value Null() { return Value(); }
  static Value Bool(bool b) { Value v(Kind::kBool); v.s_.b = b; return v; }
  static Value Int(int64_t i) { Value v(Kind::kInt); v.s_.i = i; return v; }
  static Value Uint(uint64_t u) { Value v(Kind::kUint); v.s_.u = u; return v; }
  static Value Double(double d) { Value v(Kind::kDouble); v.s_.d = d; return v; }
  static Value String(std::string s);
  static Value Bytes(std::string s);
  static Value List(std::vector<Value> items);
  static Value List(std::shared_ptr<const ListValue> l);
  static Value Map(std::shared_ptr<const MapValue> m);
  // Seconds since the epoch and nanoseconds in [0, 1e9).
  static Value Timestamp(int64_t seconds, int32_t nanos) {
    Value v(Kind::kTimestamp); v.s_.i = seconds; v.nanos_ = nanos; return v;
  }
  static Value Duration(int64_t nanos) { Value v(Kind::kDuration); v.s_.i = nanos; return v; }
  static Value Type(std::string name);
  static Value OptionalNone() { return Value(Kind::kOptional); }
  static Value OptionalOf(Value inner);
  static Value Error(std::string message);
  static Value Opaque(std::shared_ptr<const OpaqueValue> o);

  Kind kind() const { return kind_; }
  bool IsError() const { return kind_ == Kind::kError; }
  bool IsBool() const { return kind_ == Kind::kBool; }
  bool bool_value() const { return s_.b; }
  int64_t int_value() const { return s_.i; }
  uint64_t uint_value() const { return s_.u; }
  double double_value() const { return s_.d; }
  int64_t seconds() const { return s_.i; }
  int32_t nanos() const { return nanos_; }
  int64_t duration_nanos() const { return s_.i; }
  // string, bytes, type name, error message.
  const std::string& str() const { return *static_cast<const std::string*>(p_.get()); }
  const ListValue& list() const { return *static_cast<const ListValue*>(p_.get()); }
  const MapValue& map() const { return *static_cast<const MapValue*>(p_.get()); }
  std::shared_ptr<const ListValue> list_ptr() const { return std::static_pointer_cast<const ListValue>(p_); }
  bool has_optional_value() const { return p_ != nullptr; }
  const Value& optional_value() const { return *static_cast<const Value*>(p_.get()); }
  const OpaqueValue& opaque() const { return *static_cast<const OpaqueValue*>(p_.get()); }
  template <class T> const T* opaque_as() const {
    return kind_ == Kind::kOpaque ? dynamic_cast<const T*>(static_cast<const OpaqueValue*>(p_.get())) : nullptr;
  }

 private:
  explicit Value(Kind k) : kind_(k) {}
  Kind kind_ = Kind::kNull;
  int32_t nanos_ = 0;
  union {
    bool b;
    int64_t i;
    uint64_t u;
    double d;
  } s_{};
  std::shared_ptr<const void> p_;
};

// How kube compares lists built from a schema's x-kubernetes-list-type.
enum class ListFlavor : uint8_t { kPlain, kSet, kMap };

struct ListValue {
  std::vector<Value> items;
  ListFlavor flavor = ListFlavor::kPlain;
  std::vector<std::string> map_keys;  // kMap: x-kubernetes-list-map-keys
};

struct MapValue {
  std::vector<std::pair<Value, Value>> entries;
  // Set for an object typed from a schema (a message-like type in kube): field access on a field
  // that is absent is "no such key", as for maps; the name is what type() prints.
  std::string object_type;
  // Lookup by key with CEL's heterogeneous numeric key equality; null when absent.
  const Value* Find(const Value& key) const;
  const Value* FindString(std::string_view key) const;
};

// The CEL type name of a value as type() and error texts print it: "int", "list", "map",
// "google.protobuf.Timestamp", "optional_type", ...
std::string TypeName(const Value& v);

// CEL equality (heterogeneous numerics, NaN != NaN, lists and maps by content). An error when
// either operand is an error (the first one).
std::optional<Value> EqualityError(const Value& a, const Value& b);
bool Equal(const Value& a, const Value& b);

// Ordering for <, <=, >, >=: -1, 0, 1; nullopt when the kinds are not comparable. NaN compares
// false to everything: `nan` is set and the result is nullopt.
std::optional<int> Compare(const Value& a, const Value& b, bool* nan = nullptr);

// cel-go's string() formatting of a value for error texts (`no such key: x`).
std::string DebugString(const Value& v);

// Number of Unicode code points in UTF-8 text (CEL string size and indexing are by code point).
int64_t CodePointCount(std::string_view s);

}  // namespace capstan::cel
