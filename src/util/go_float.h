// util/go_float.h: float64 text forms exactly as Go prints them.
//
// kube's wire formats are produced by Go: encoding/json writes a float64 with 'f' notation, switching to
// 'e' below 1e-6 and from 1e21 on (1e+21, 1e-7); YAML output goes through strconv.FormatFloat(f, 'g',
// -1, 64) (1.2345675e+06, 0.5); map keys that are YAML floats use the float32 'g' form. Shortest
// round-trip digits in every case. Pure functions; thread-safe.
#pragma once

#include <string>

namespace capstan {

// encoding/json's float64 encoding. NaN and infinities have no JSON form: they print as "null".
std::string FormatFloatJson(double v);

// strconv.FormatFloat(v, 'g', -1, 64); with as_float32, strconv.FormatFloat(v, 'g', -1, 32).
// Infinities print "+Inf"/"-Inf", NaN prints "NaN", as Go does.
std::string FormatFloatG(double v, bool as_float32 = false);

}  // namespace capstan
