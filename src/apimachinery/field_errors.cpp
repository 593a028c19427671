#include "apimachinery/field_errors.h"

#include <boost/json/serialize.hpp>
#include <cstdio>
#include <set>

#include "util/go_float.h"
#include "apimachinery/schema_go_format.h"
#include "util/strings.h"

namespace capstan {

std::string_view FieldErrorCauseType(FieldErrorType t) {
  switch (t) {
    case FieldErrorType::kNotFound: return "FieldValueNotFound";
    case FieldErrorType::kRequired: return "FieldValueRequired";
    case FieldErrorType::kDuplicate: return "FieldValueDuplicate";
    case FieldErrorType::kInvalid: return "FieldValueInvalid";
    case FieldErrorType::kNotSupported: return "FieldValueNotSupported";
    case FieldErrorType::kForbidden: return "FieldValueForbidden";
    case FieldErrorType::kTooLong: return "FieldValueTooLong";
    case FieldErrorType::kTooMany: return "FieldValueTooMany";
    case FieldErrorType::kTooFew: return "FieldValueTooFew";
    case FieldErrorType::kInternal: return "InternalError";
    case FieldErrorType::kTypeInvalid: return "FieldValueTypeInvalid";
    case FieldErrorType::kTooShort: return "FieldValueTooShort";
  }
  return "FieldValueInvalid";
}

std::string_view FieldErrorTypeText(FieldErrorType t) {
  switch (t) {
    case FieldErrorType::kNotFound: return "Not found";
    case FieldErrorType::kRequired: return "Required value";
    case FieldErrorType::kDuplicate: return "Duplicate value";
    case FieldErrorType::kInvalid: return "Invalid value";
    case FieldErrorType::kNotSupported: return "Unsupported value";
    case FieldErrorType::kForbidden: return "Forbidden";
    case FieldErrorType::kTooLong: return "Too long";
    case FieldErrorType::kTooMany: return "Too many";
    case FieldErrorType::kTooFew: return "Too few";
    case FieldErrorType::kInternal: return "Internal error";
    case FieldErrorType::kTypeInvalid: return "Invalid value";
    case FieldErrorType::kTooShort: return "Too short";
  }
  return "Invalid value";
}

namespace {
std::string RenderValue(const boost::json::value& v) {
  switch (v.kind()) {
    case boost::json::kind::string: return GoQuote(std::string_view(v.get_string()));
    case boost::json::kind::bool_: return v.get_bool() ? "true" : "false";
    case boost::json::kind::int64: return std::to_string(v.get_int64());
    case boost::json::kind::uint64: return std::to_string(v.get_uint64());
    case boost::json::kind::double_:
      return FormatFloatG(v.get_double());  // Go's %v of a float64
    default: return boost::json::serialize(v);
  }
}
}  // namespace

std::string FieldError::Body() const {
  std::string s;
  switch (type) {
    case FieldErrorType::kRequired:
    case FieldErrorType::kForbidden:
    case FieldErrorType::kTooLong:
    case FieldErrorType::kTooShort:
    case FieldErrorType::kInternal:
      s = FieldErrorTypeText(type);
      break;
    default:
      s = FieldErrorTypeText(type);
      if (!omit_value) {
        s += ": ";
        s += unstructured_value && (bad_value.is_object() || bad_value.is_array()) ? apimachinery::GoSharpV(bad_value)
                                                                                    : RenderValue(bad_value);
      }
  }
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

std::string FieldError::ToString() const { return field + ": " + Body(); }

namespace {
FieldError Make(FieldErrorType t, const FieldPath& p, boost::json::value v, std::string detail) {
  FieldError e;
  e.type = t;
  e.field = p.str();
  e.bad_value = std::move(v);
  e.detail = std::move(detail);
  return e;
}
}  // namespace

FieldError RequiredError(const FieldPath& p, std::string detail) {
  return Make(FieldErrorType::kRequired, p, "", std::move(detail));
}
FieldError InvalidError(const FieldPath& p, FieldValue value, std::string detail) {
  return Make(FieldErrorType::kInvalid, p, std::move(value.v), std::move(detail));
}
FieldError DuplicateError(const FieldPath& p, FieldValue value) {
  return Make(FieldErrorType::kDuplicate, p, std::move(value.v), "");
}
FieldError NotFoundError(const FieldPath& p, FieldValue value) {
  return Make(FieldErrorType::kNotFound, p, std::move(value.v), "");
}
FieldError NotSupportedError(const FieldPath& p, FieldValue value, const std::vector<std::string>& valid) {
  std::string detail;
  if (!valid.empty()) {
    detail = "supported values: ";
    for (size_t i = 0; i < valid.size(); ++i) {
      if (i) detail += ", ";
      detail += GoQuote(valid[i]);
    }
  }
  return Make(FieldErrorType::kNotSupported, p, std::move(value.v), std::move(detail));
}
FieldError ForbiddenError(const FieldPath& p, std::string detail) {
  return Make(FieldErrorType::kForbidden, p, "", std::move(detail));
}
FieldError TooLongError(const FieldPath& p, int max_length) {
  std::string msg = max_length >= 0 ? "may not be more than " + std::to_string(max_length) +
                                           (max_length == 1 ? " byte" : " bytes")
                                     : "value is too long";
  return Make(FieldErrorType::kTooLong, p, "<value omitted>", std::move(msg));
}
FieldError TooLongCharactersError(const FieldPath& p, int max_length) {
  std::string msg = max_length >= 0 ? "may not be more than " + std::to_string(max_length) +
                                           (max_length == 1 ? " character" : " characters")
                                     : "value is too long";
  return Make(FieldErrorType::kTooLong, p, "<value omitted>", std::move(msg));
}
FieldError TooManyError(const FieldPath& p, int actual, int max_quantity) {
  std::string msg = max_quantity >= 0 ? "must have at most " + std::to_string(max_quantity) +
                                             (max_quantity == 1 ? " item" : " items")
                                       : "has too many items";
  FieldError e = Make(FieldErrorType::kTooMany, p, actual >= 0 ? boost::json::value(actual) : boost::json::value(),
                      std::move(msg));
  e.omit_value = actual < 0;
  return e;
}
FieldError TooShortError(const FieldPath& p, FieldValue value, int min_length) {
  std::string msg = min_length >= 0 ? "must be at least " + std::to_string(min_length) +
                                           (min_length == 1 ? " character" : " characters")
                                     : "value is too short";
  return Make(FieldErrorType::kTooShort, p, std::move(value.v), std::move(msg));
}
FieldError TypeInvalidError(const FieldPath& p, FieldValue value, std::string detail) {
  return Make(FieldErrorType::kTypeInvalid, p, std::move(value.v), std::move(detail));
}
FieldError InternalFieldError(const FieldPath& p, std::string detail) {
  return Make(FieldErrorType::kInternal, p, "", std::move(detail));
}

std::string AggregateMessage(const ErrorList& errs) {
  std::vector<std::string> msgs;
  std::set<std::string> seen;
  for (const auto& e : errs) {
    std::string m = e.ToString();
    if (seen.insert(m).second) msgs.push_back(std::move(m));
  }
  if (msgs.size() == 1) return msgs[0];
  return "[" + Join(msgs, ", ") + "]";
}

}  // namespace capstan
