// apimachinery/unstructured_convert.h: the error kube's DefaultUnstructuredConverter.FromUnstructured
// reports when a map (a strategic-merge-patched object) does not fit the kind's Go type. kube's
// strategic merge patch replaces a value whose type differs from the original's by the patch's value,
// and the conversion into the typed object then fails with, for the first field in Go struct order:
//   cannot restore map from string          (a map field given a string, a list, a number, a bool)
//   cannot restore slice from map           (a list field)
//   cannot restore struct from: string      (a struct field; note the colon)
//   unrecognized type: string               (a scalar given a value Go cannot convert to it)
//   cannot convert int64 to string          (an integer where a string goes; float64 to an int)
// Values with their own JSON unmarshalling (Quantity, Time, IntOrString, RawExtension, ...) are not
// checked here. Known gap: kube names a named Go type in the last form ("v1.RestartPolicy"); the
// schema does not carry Go type names, so "string" is written. Pure function.
#pragma once

#include <boost/json/value.hpp>
#include <string>

#include "apimachinery/schema.h"

namespace capstan::apimachinery {

// "" when the value converts; else the first error's text.
std::string FromUnstructuredError(const boost::json::value& v, const Schema* schema);

}  // namespace capstan::apimachinery
