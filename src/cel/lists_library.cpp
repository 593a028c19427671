// kube's lists library (apiserver/pkg/cel/library/lists.go): isSorted, sum, min, max, indexOf and
// lastIndexOf on lists, with its texts ("min called on empty list").
#include "cel/functions.h"

namespace capstan::cel {

namespace {

bool IsList(const Value* a, size_t n, size_t want) { return n == want && a[0].kind() == Kind::kList; }

Value IsSorted(EvalContext& ctx, const Value* a, size_t n) {
  if (!IsList(a, n, 1)) return NoSuchOverload();
  const auto& items = a[0].list().items;
  ctx.Charge(SizeCost(a[0]));
  for (size_t i = 1; i < items.size(); ++i) {
    auto c = Compare(items[i - 1], items[i]);
    if (!c) return NoSuchOverload();
    if (*c > 0) return Value::Bool(false);
  }
  return Value::Bool(true);
}

Value Sum(EvalContext& ctx, const Value* a, size_t n) {
  if (!IsList(a, n, 1)) return NoSuchOverload();
  const auto& items = a[0].list().items;
  ctx.Charge(SizeCost(a[0]));
  if (items.empty()) return Value::Int(0);
  Value acc = items[0];
  for (size_t i = 1; i < items.size(); ++i) {
    const Value& x = items[i];
    if (acc.kind() != x.kind()) return NoSuchOverload();
    switch (acc.kind()) {
      case Kind::kInt: {
        int64_t r;
        if (__builtin_add_overflow(acc.int_value(), x.int_value(), &r)) return Value::Error("integer overflow");
        acc = Value::Int(r);
        break;
      }
      case Kind::kUint: {
        uint64_t r;
        if (__builtin_add_overflow(acc.uint_value(), x.uint_value(), &r)) return Value::Error("unsigned integer overflow");
        acc = Value::Uint(r);
        break;
      }
      case Kind::kDouble: acc = Value::Double(acc.double_value() + x.double_value()); break;
      case Kind::kDuration: {
        int64_t r;
        if (__builtin_add_overflow(acc.duration_nanos(), x.duration_nanos(), &r)) return Value::Error("duration overflow");
        acc = Value::Duration(r);
        break;
      }
      default: return NoSuchOverload();
    }
  }
  return acc;
}

template <int kPrefer>
Value MinMax(EvalContext& ctx, const Value* a, size_t n) {
  if (!IsList(a, n, 1)) return NoSuchOverload();
  const auto& items = a[0].list().items;
  ctx.Charge(SizeCost(a[0]));
  if (items.empty()) return Value::Error(std::string(kPrefer > 0 ? "min" : "max") + " called on empty list");
  const Value* best = &items[0];
  for (size_t i = 1; i < items.size(); ++i) {
    auto c = Compare(*best, items[i]);
    if (!c) return NoSuchOverload();
    if (*c == kPrefer) best = &items[i];
  }
  return *best;
}

template <bool kLast>
Value IndexOf(EvalContext& ctx, const Value* a, size_t n) {
  if (!IsList(a, n, 2)) return NoSuchOverload();
  const auto& items = a[0].list().items;
  ctx.Charge(SizeCost(a[0]));
  for (size_t k = 0; k < items.size(); ++k) {
    size_t i = kLast ? items.size() - 1 - k : k;
    if (Equal(items[i], a[1])) return Value::Int(static_cast<int64_t>(i));
  }
  return Value::Int(-1);
}

}  // namespace

void RegisterKubeListsLibrary(FunctionRegistry& r) {
  r.AddMember("isSorted", IsSorted);
  r.AddMember("sum", Sum);
  r.AddMember("min", MinMax<1>);
  r.AddMember("max", MinMax<-1>);
  r.AddMember("indexOf", IndexOf<false>);
  r.AddMember("lastIndexOf", IndexOf<true>);
}

}  // namespace capstan::cel
