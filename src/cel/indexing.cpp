#include "cel/indexing.h"

#include <cmath>

#include "cel/functions.h"

namespace capstan::cel {

Value SelectField(const Value& target, std::string_view field, bool optional) {
  const Value* t = &target;
  if (t->kind() == Kind::kOptional) {
    if (!t->has_optional_value()) return target;
    t = &t->optional_value();
    optional = true;
  }
  if (t->kind() == Kind::kMap) {
    const Value* v = t->map().FindString(field);
    if (optional) return v ? Value::OptionalOf(*v) : Value::OptionalNone();
    if (!v) return Value::Error("no such key: " + std::string(field));
    return *v;
  }
  return NoSuchOverload();
}

Value IndexValue(const Value& target, const Value& key, bool optional, bool attribute) {
  const Value* t = &target;
  if (t->kind() == Kind::kOptional) {
    if (!t->has_optional_value()) return target;
    t = &t->optional_value();
    optional = true;
  }
  if (t->kind() == Kind::kList) {
    const auto& items = t->list().items;
    int64_t i = 0;
    if (key.kind() == Kind::kInt) {
      i = key.int_value();
    } else if (key.kind() == Kind::kUint) {
      i = key.uint_value() > INT64_MAX ? INT64_MAX : static_cast<int64_t>(key.uint_value());
    } else if (key.kind() == Kind::kDouble) {
      double d = key.double_value();
      if (std::trunc(d) != d || std::isnan(d) || d < -9.2e18 || d > 9.2e18) {
        return Value::Error("unsupported index value " + DebugString(key) + " in list");
      }
      i = static_cast<int64_t>(d);
    } else {
      return Value::Error("unsupported index type '" + TypeName(key) + "' in list");
    }
    if (i < 0 || i >= static_cast<int64_t>(items.size())) {
      if (optional) return Value::OptionalNone();
      if (attribute) return Value::Error("index out of bounds: " + std::to_string(i));
      return Value::Error("index '" + std::to_string(i) + "' out of range in list size '" + std::to_string(items.size()) + "'");
    }
    return optional ? Value::OptionalOf(items[static_cast<size_t>(i)]) : items[static_cast<size_t>(i)];
  }
  if (t->kind() == Kind::kMap) {
    Kind k = key.kind();
    if (k != Kind::kString && k != Kind::kInt && k != Kind::kUint && k != Kind::kBool && k != Kind::kDouble) {
      return Value::Error("unsupported key type");
    }
    const Value* v = t->map().Find(key);
    if (optional) return v ? Value::OptionalOf(*v) : Value::OptionalNone();
    if (!v) return Value::Error("no such key: " + DebugString(key));
    return *v;
  }
  return NoSuchOverload();
}

}  // namespace capstan::cel
