// apimachinery/schema_validator.h: the value validator behind schema_validate.h, a port of the
// algorithm of kube-openapi's validate.SchemaValidator as kube runs it on custom resources.
//
// It returns kube-openapi's raw result: errors carrying a code, the dotted "name" path (".spec.x" at
// the root for required and additional properties, as kube-openapi builds them), the offending value
// and kube-openapi's message text, plus the match count that picks the reported branch of a failed
// anyOf/oneOf. schema_validate.h turns that into kube's field errors. Stateless; thread-safe.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "apimachinery/schema.h"

namespace capstan::apimachinery {

struct OpenApiError {
  enum class Code {
    kPlain,      // an error that is not a validation error (range checks): reported at the root
    kComposite,  // anyOf/oneOf/allOf/not: reported at the root
    kInvalidType,
    kRequired,
    kTooLong,
    kTooShort,
    kPattern,
    kEnum,
    kMultipleOf,
    kMaximum,
    kMinimum,
    kUniqueItems,
    kMaxItems,
    kMinItems,
    kTooFewProperties,
    kTooManyProperties,
    kUnallowedProperty,
    kMultipleOfMustBePositive,
  };
  Code code = Code::kPlain;
  std::string name;                        // kube-openapi's path, e.g. "spec.replicas" or ".spec"
  std::optional<boost::json::value> value;  // nullopt: Go's nil
  std::optional<int64_t> valid;            // the limit, for length/items/properties errors
  std::vector<boost::json::value> enum_values;
  std::string message;
};

struct OpenApiResult {
  std::vector<OpenApiError> errors;  // distinct messages, in order
  int match_count = 0;

  bool ok() const { return errors.empty(); }
  void Add(OpenApiError e);
  void Merge(OpenApiResult other);
};

// Validates `value` against `schema` with kube-openapi's algorithm; `path` is the root name ("" for a
// whole object).
OpenApiResult ValidateOpenApi(const Schema& schema, const boost::json::value& value, const std::string& path = "");

}  // namespace capstan::apimachinery
