// cel/indexing.h: field selection and indexing of values (`a.b`, `a[k]`, `a.?b`, `a[?k]`) with
// cel-go's texts: "no such key: k", "index out of bounds: 3" for attributes of variables, "index '3'
// out of range in list size '2'" for computed lists, "unsupported index type 'string' in list".
// Optional operands chain: a field of optional.none() is none. Pure functions; thread-safe.
#pragma once

#include <string_view>

#include "cel/value.h"

namespace capstan::cel {

Value SelectField(const Value& target, std::string_view field, bool optional);
Value IndexValue(const Value& target, const Value& key, bool optional, bool attribute);

}  // namespace capstan::cel
