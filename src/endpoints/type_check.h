// endpoints/type_check.h: the type errors kube's typed JSON decoder reports for built-in kinds
// (a number where a string belongs, an object where a list belongs), checked against the kind's schema:
//   json: cannot unmarshal number into Go struct field ConfigMap.data of type map[string]string
//   illegal base64 data at input byte 3        (a []byte field, format "byte", that is not base64)
// Pure function.
#pragma once

#include <boost/json/value.hpp>
#include <string>

#include "apimachinery/schema.h"

namespace capstan::endpoints {

// "" when every value has its schema's type; else the first error, worded as Go's decoder words it.
std::string CheckTypes(const boost::json::value& v, const apimachinery::Schema* schema, const std::string& kind);

}  // namespace capstan::endpoints
