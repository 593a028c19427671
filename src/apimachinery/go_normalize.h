// apimachinery/go_normalize.h: what a built-in object looks like after kube decodes it into its Go
// type and writes it back: absent non-pointer structs appear as {} (with their always-written fields),
// non-omitempty scalars appear with their zero value, a zero metav1.Time is null, and omitempty fields
// holding "", 0, false, an empty map or an empty list disappear (struct values never do). Applied to
// built-in objects before they are stored, so what clients read back is what kube-apiserver returns.
// Driven by the schema's x-proto (ptr, omitempty) and default (Go zero values); pure function.
#pragma once

#include <boost/json/value.hpp>

#include "apimachinery/schema.h"

namespace capstan::apimachinery {

void NormalizeAsGo(boost::json::value& v, const Schema* schema);

}  // namespace capstan::apimachinery
