// cel-go's optional types library (cel.OptionalTypes): optional.of, optional.none,
// optional.ofNonZeroValue, hasValue(), value(), orValue(), or(); the `.?`, `[?]` syntax and the
// optMap/optFlatMap macros live in the parser and interpreter.
#include "cel/functions.h"

namespace capstan::cel {

namespace {

bool IsZero(const Value& v) {
  switch (v.kind()) {
    case Kind::kNull: return true;
    case Kind::kBool: return !v.bool_value();
    case Kind::kInt: return v.int_value() == 0;
    case Kind::kUint: return v.uint_value() == 0;
    case Kind::kDouble: return v.double_value() == 0;
    case Kind::kString: case Kind::kBytes: return v.str().empty();
    case Kind::kList: return v.list().items.empty();
    case Kind::kMap: return v.map().entries.empty();
    case Kind::kDuration: return v.duration_nanos() == 0;
    case Kind::kTimestamp: return v.seconds() == 0 && v.nanos() == 0;
    case Kind::kOptional: return !v.has_optional_value();
    default: return false;
  }
}

Value Of(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  return Value::OptionalOf(a[0]);
}
Value None(EvalContext&, const Value*, size_t n) {
  if (n != 0) return NoSuchOverload();
  return Value::OptionalNone();
}
Value OfNonZero(EvalContext&, const Value* a, size_t n) {
  if (n != 1) return NoSuchOverload();
  return IsZero(a[0]) ? Value::OptionalNone() : Value::OptionalOf(a[0]);
}
Value HasValue(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kOptional) return NoSuchOverload();
  return Value::Bool(a[0].has_optional_value());
}
Value GetValue(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kOptional) return NoSuchOverload();
  if (!a[0].has_optional_value()) return Value::Error("optional.none() dereference");
  return a[0].optional_value();
}
Value OrValue(EvalContext&, const Value* a, size_t n) {
  if (n != 2 || a[0].kind() != Kind::kOptional) return NoSuchOverload();
  return a[0].has_optional_value() ? a[0].optional_value() : a[1];
}
Value Or(EvalContext&, const Value* a, size_t n) {
  if (n != 2 || a[0].kind() != Kind::kOptional || a[1].kind() != Kind::kOptional) return NoSuchOverload();
  return a[0].has_optional_value() ? a[0] : a[1];
}

}  // namespace

void RegisterOptionalLibrary(FunctionRegistry& r) {
  r.AddGlobal("optional.of", Of);
  r.AddGlobal("optional.none", None);
  r.AddGlobal("optional.ofNonZeroValue", OfNonZero);
  r.AddMember("hasValue", HasValue);
  r.AddMember("value", GetValue);
  r.AddMember("orValue", OrValue);
  r.AddMember("or", Or);
}

}  // namespace capstan::cel
