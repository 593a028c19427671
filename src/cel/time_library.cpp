// cel-go's timestamp and duration accessors: getFullYear, getMonth, getDate, getDayOfMonth,
// getDayOfWeek, getDayOfYear, getHours, getMinutes, getSeconds, getMilliseconds, each on a
// timestamp with an optional time zone (kube sets UTC as the default), and the duration forms.
#include "cel/functions.h"
#include "cel/time_values.h"

namespace capstan::cel {

namespace {

enum class Field { kYear, kMonth, kDate, kDayOfMonth, kDayOfWeek, kDayOfYear, kHours, kMinutes, kSeconds, kMillis };

template <Field kF>
Value Accessor(EvalContext&, const Value* a, size_t n) {
  if (n < 1 || n > 2) return NoSuchOverload();
  const Value& v = a[0];
  if (v.kind() == Kind::kDuration) {
    if (n != 1) return NoSuchOverload();
    int64_t d = v.duration_nanos();
    switch (kF) {
      case Field::kHours: return Value::Int(d / 3600000000000LL);
      case Field::kMinutes: return Value::Int(d / 60000000000LL);
      case Field::kSeconds: return Value::Int(d / 1000000000LL);
      case Field::kMillis: return Value::Int(d / 1000000LL);
      default: return NoSuchOverload();
    }
  }
  if (v.kind() != Kind::kTimestamp) return NoSuchOverload();
  int64_t off = 0;
  if (n == 2) {
    if (a[1].kind() != Kind::kString) return NoSuchOverload();
    auto o = ZoneOffset(a[1].str(), v.seconds());
    if (!o) return Value::Error("unknown time zone " + a[1].str());
    off = *o;
  }
  Civil c = ToCivil(v.seconds() + off);
  switch (kF) {
    case Field::kYear: return Value::Int(c.year);
    case Field::kMonth: return Value::Int(c.month - 1);
    case Field::kDate: return Value::Int(c.day);
    case Field::kDayOfMonth: return Value::Int(c.day - 1);
    case Field::kDayOfWeek: return Value::Int(c.weekday);
    case Field::kDayOfYear: return Value::Int(c.yday);
    case Field::kHours: return Value::Int(c.hour);
    case Field::kMinutes: return Value::Int(c.minute);
    case Field::kSeconds: return Value::Int(c.second);
    case Field::kMillis: return Value::Int(v.nanos() / 1000000);
  }
  return NoSuchOverload();
}

}  // namespace

void RegisterTimeLibrary(FunctionRegistry& r) {
  r.AddMember("getFullYear", Accessor<Field::kYear>);
  r.AddMember("getMonth", Accessor<Field::kMonth>);
  r.AddMember("getDate", Accessor<Field::kDate>);
  r.AddMember("getDayOfMonth", Accessor<Field::kDayOfMonth>);
  r.AddMember("getDayOfWeek", Accessor<Field::kDayOfWeek>);
  r.AddMember("getDayOfYear", Accessor<Field::kDayOfYear>);
  r.AddMember("getHours", Accessor<Field::kHours>);
  r.AddMember("getMinutes", Accessor<Field::kMinutes>);
  r.AddMember("getSeconds", Accessor<Field::kSeconds>);
  r.AddMember("getMilliseconds", Accessor<Field::kMillis>);
}

}  // namespace capstan::cel
