// apimachinery/schema_go_format.h: Go's renderings of decoded JSON values, for messages that must read
// as kube's: fmt's %v (maps as map[k:v] with sorted keys, floats in shortest %g form), reflect type
// names of decoded values, strconv's 'f' form of floats, and encoding/json's Marshal (sorted keys,
// HTML escaping). Values are those Go decodes JSON into: integers that fit int64 are int64, every other
// number is float64. Pure functions, thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <string>

namespace capstan::apimachinery {

// fmt.Sprint(float64): shortest digits; exponent form (1e+06) when the exponent is < -4 or >= 6.
std::string GoFloatV(double f);
// strconv.FormatFloat(f, 'f', -1, 64).
std::string GoFloatF(double f);
// fmt.Sprint(v) of the decoded value.
std::string GoSprint(const boost::json::value& v);
// fmt.Sprintf("%#v", v) of the decoded value: map[string]interface {}{"a":1, "b":"x"} (sorted keys),
// []interface {}{"a", 1}, interface {}(nil), quoted strings.
std::string GoSharpV(const boost::json::value& v);
// reflect.TypeOf(v).String() of the decoded value; "%!s(<nil>)" for null, as %s prints a nil type.
std::string GoTypeName(const boost::json::value& v);
// json.Marshal(v) of the decoded value.
std::string GoJsonMarshal(const boost::json::value& v);

// Whether the number is an integer by swag.IsFloat64AJSONInteger's rules.
bool IsFloat64AJSONInteger(double f);

}  // namespace capstan::apimachinery
