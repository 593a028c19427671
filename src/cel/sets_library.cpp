// cel-go's ext.Sets: sets.contains(list, sublist), sets.equivalent(a, b), sets.intersects(a, b),
// with CEL equality between elements.
#include "cel/functions.h"

namespace capstan::cel {

namespace {

bool Has(const std::vector<Value>& items, const Value& x) {
  for (const auto& y : items) {
    if (Equal(x, y)) return true;
  }
  return false;
}

bool ContainsAll(const Value& a, const Value& b) {
  for (const auto& x : b.list().items) {
    if (!Has(a.list().items, x)) return false;
  }
  return true;
}

bool TwoLists(const Value* a, size_t n) { return n == 2 && a[0].kind() == Kind::kList && a[1].kind() == Kind::kList; }

Value Contains(EvalContext& ctx, const Value* a, size_t n) {
  if (!TwoLists(a, n)) return NoSuchOverload();
  ctx.Charge(a[0].list().items.size() * a[1].list().items.size() / 10 + 1);
  return Value::Bool(ContainsAll(a[0], a[1]));
}
Value Equivalent(EvalContext& ctx, const Value* a, size_t n) {
  if (!TwoLists(a, n)) return NoSuchOverload();
  ctx.Charge(a[0].list().items.size() * a[1].list().items.size() / 5 + 1);
  return Value::Bool(ContainsAll(a[0], a[1]) && ContainsAll(a[1], a[0]));
}
Value Intersects(EvalContext& ctx, const Value* a, size_t n) {
  if (!TwoLists(a, n)) return NoSuchOverload();
  ctx.Charge(a[0].list().items.size() * a[1].list().items.size() / 10 + 1);
  for (const auto& x : a[1].list().items) {
    if (Has(a[0].list().items, x)) return Value::Bool(true);
  }
  return Value::Bool(false);
}

}  // namespace

void RegisterSetsLibrary(FunctionRegistry& r) {
  r.AddGlobal("sets.contains", Contains);
  r.AddGlobal("sets.equivalent", Equivalent);
  r.AddGlobal("sets.intersects", Intersects);
}

}  // namespace capstan::cel
