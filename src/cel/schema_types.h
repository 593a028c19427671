// cel/schema_types.h: CEL types and values from a structural schema, as kube's apiserver/pkg/cel/common
// derives them (SchemaDeclType, UnstructuredToVal):
//   object with properties -> an object type whose fields are the escaped property names;
//   object with additionalProperties -> map(string, T); array -> list(T) (set and map lists keep
//   their list type for equality); string formats byte/duration/date/date-time -> bytes/duration/
//   timestamp; integer -> int; number -> double; boolean -> bool; int-or-string -> dyn.
// At a resource root (a custom resource, an x-kubernetes-embedded-resource) apiVersion, kind and
// metadata.name/generateName are always declared. Property names are escaped as kube escapes them
// (`__dot__`, `__dash__`, `__slash__`, `__underscores__`, `__in__` for reserved words); a name that
// cannot be escaped is not visible to rules.
//
// Pure functions over immutable schemas; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "apimachinery/schema.h"
#include "cel/types.h"
#include "cel/value.h"

namespace capstan::cel {

// kube's cel.Escape: nullopt when the name cannot be a CEL identifier.
std::optional<std::string> EscapeFieldName(std::string_view name);

// The type of values of `s`; null when kube gives the node no type (no rules run there).
TypePtr SchemaType(const apimachinery::Schema* s, bool resource_root);

// How many values of type t fit in one request (kube's MaxCardinality for a node under an
// unbounded list or map).
int64_t MaxCardinality(const TypePtr& t);

// The CEL value of `v` under schema `s` (null schema: plain JSON mapping). Data the schema does not
// describe becomes an error value with kube's text ("invalid data, expected ...").
Value JsonToValue(const boost::json::value& v, const apimachinery::Schema* s, bool resource_root);

}  // namespace capstan::cel
