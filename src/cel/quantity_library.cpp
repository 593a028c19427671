// kube's quantity library (apiserver/pkg/cel/library/quantity.go): quantity(), isQuantity() and
// the kubernetes.Quantity methods sign, isGreaterThan, isLessThan, compareTo, asApproximateFloat,
// asInteger, isInteger, add and sub, over apimachinery's resource.Quantity.
#include <cmath>
#include <cstdlib>

#include "apimachinery/quantity.h"
#include "cel/functions.h"

namespace capstan::cel {

namespace {

namespace am = capstan::apimachinery;

class QuantityValue : public OpaqueValue {
 public:
  explicit QuantityValue(am::Quantity q) : q_(std::move(q)) {}
  std::string_view TypeName() const override { return "kubernetes.Quantity"; }
  bool Equal(const OpaqueValue& o) const override {
    const auto* x = dynamic_cast<const QuantityValue*>(&o);
    return x && x->q_.Cmp(q_) == 0;
  }
  const am::Quantity& q() const { return q_; }

 private:
  am::Quantity q_;
};

Value Make(am::Quantity q) { return Value::Opaque(std::make_shared<const QuantityValue>(std::move(q))); }
const am::Quantity* Q(const Value& v) {
  const auto* x = v.opaque_as<QuantityValue>();
  return x ? &x->q() : nullptr;
}

// float64 of the canonical text ("1536Mi", "100m", "2e3"), as AsApproximateFloat64 gives it.
double ApproximateFloat(const am::Quantity& q) {
  std::string s = q.CanonicalString();
  char* end = nullptr;
  double m = std::strtod(s.c_str(), &end);
  std::string suffix(end);
  static const std::pair<const char*, double> kSuffixes[] = {
      {"n", 1e-9}, {"u", 1e-6}, {"m", 1e-3}, {"", 1}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12},
      {"P", 1e15}, {"E", 1e18}, {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0},
      {"Ti", 1099511627776.0}, {"Pi", 1125899906842624.0}, {"Ei", 1152921504606846976.0}};
  for (const auto& [name, mult] : kSuffixes) {
    if (suffix == name) return m * mult;
  }
  if (!suffix.empty() && (suffix[0] == 'e' || suffix[0] == 'E')) return m * std::pow(10.0, std::atof(suffix.c_str() + 1));
  return m;
}

Value ToQuantity(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  auto q = am::ParseQuantity(a[0].str());
  if (!q.ok()) return Value::Error(q.status().message());
  return Make(*q);
}

Value IsQuantity(EvalContext&, const Value* a, size_t n) {
  if (n != 1 || a[0].kind() != Kind::kString) return NoSuchOverload();
  return Value::Bool(am::ParseQuantity(a[0].str()).ok());
}

Value Sign(EvalContext&, const Value* a, size_t n) {
  const am::Quantity* q = n == 1 ? Q(a[0]) : nullptr;
  if (!q) return NoSuchOverload();
  return Value::Int(q->Sign());
}

template <int kWhich>  // 1: isGreaterThan, -1: isLessThan, 0: compareTo
Value Compare2(EvalContext&, const Value* a, size_t n) {
  const am::Quantity* x = n == 2 ? Q(a[0]) : nullptr;
  const am::Quantity* y = n == 2 ? Q(a[1]) : nullptr;
  if (!x || !y) return NoSuchOverload();
  int c = x->Cmp(*y);
  if (kWhich == 0) return Value::Int(c);
  return Value::Bool(c == kWhich);
}

Value AsFloat(EvalContext&, const Value* a, size_t n) {
  const am::Quantity* q = n == 1 ? Q(a[0]) : nullptr;
  if (!q) return NoSuchOverload();
  return Value::Double(ApproximateFloat(*q));
}

Value AsInteger(EvalContext&, const Value* a, size_t n) {
  const am::Quantity* q = n == 1 ? Q(a[0]) : nullptr;
  if (!q) return NoSuchOverload();
  auto i = q->AsInt64();
  if (!i) return Value::Error("cannot convert value to integer");
  return Value::Int(*i);
}

Value IsInteger(EvalContext&, const Value* a, size_t n) {
  const am::Quantity* q = n == 1 ? Q(a[0]) : nullptr;
  if (!q) return NoSuchOverload();
  return Value::Bool(q->AsInt64().has_value());
}

template <bool kAdd>
Value AddSub(EvalContext&, const Value* a, size_t n) {
  const am::Quantity* x = n == 2 ? Q(a[0]) : nullptr;
  if (!x) return NoSuchOverload();
  am::Quantity y;
  if (const am::Quantity* q = Q(a[1])) {
    y = *q;
  } else if (a[1].kind() == Kind::kInt) {
    y = am::Quantity::FromInt(a[1].int_value(), x->format());
  } else {
    return NoSuchOverload();
  }
  return Make(kAdd ? x->Add(y) : x->Sub(y));
}

}  // namespace

void RegisterKubeQuantityLibrary(FunctionRegistry& r) {
  r.AddGlobal("quantity", ToQuantity);
  r.AddGlobal("isQuantity", IsQuantity);
  r.AddMember("sign", Sign);
  r.AddMember("isGreaterThan", Compare2<1>);
  r.AddMember("isLessThan", Compare2<-1>);
  r.AddMember("compareTo", Compare2<0>);
  r.AddMember("asApproximateFloat", AsFloat);
  r.AddMember("asInteger", AsInteger);
  r.AddMember("isInteger", IsInteger);
  r.AddMember("add", AddSub<true>);
  r.AddMember("sub", AddSub<false>);
}

}  // namespace capstan::cel
