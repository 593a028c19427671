// apimachinery/field_errors.h: field-level validation errors, as kube's field.Error / field.ErrorList.
//
// Validation code (ObjectMeta rules, strategies, structural schemas) returns an ErrorList; the registry
// turns it into a 422 Invalid Status with one cause per error (errors.h: InvalidStatus). Messages and
// cause types are kube's, byte for byte:
//   metadata.name: Invalid value: "Foo": a lowercase RFC 1123 subdomain must consist of ...
// Thread-compatible values.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace capstan {

// A field path such as spec.containers[0].image or metadata.labels[app].
class FieldPath {
 public:
  FieldPath() = default;
  explicit FieldPath(std::string root) : s_(std::move(root)) {}
  FieldPath Child(std::string_view name) const {
    FieldPath p(*this);
    if (!p.s_.empty()) p.s_.push_back('.');
    p.s_ += name;
    return p;
  }
  FieldPath Index(size_t i) const {
    FieldPath p(*this);
    p.s_ += "[" + std::to_string(i) + "]";
    return p;
  }
  FieldPath Key(std::string_view key) const {
    FieldPath p(*this);
    p.s_ += "[";
    p.s_ += key;
    p.s_ += "]";
    return p;
  }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

enum class FieldErrorType {
  kNotFound,
  kRequired,
  kDuplicate,
  kInvalid,
  kNotSupported,
  kForbidden,
  kTooLong,
  kTooMany,
  kTooFew,
  kInternal,
  kTypeInvalid,
  kTooShort,
};

// metav1.CauseType for the type, e.g. "FieldValueInvalid".
std::string_view FieldErrorCauseType(FieldErrorType t);
// The human text for the type, e.g. "Invalid value".
std::string_view FieldErrorTypeText(FieldErrorType t);

// A bad value as validation code has it at hand: a JSON value, a string or a number.
struct FieldValue {
  boost::json::value v;
  FieldValue(boost::json::value x) : v(std::move(x)) {}                            // NOLINT: implicit by design
  FieldValue(const std::string& s) : v(boost::json::string_view(s)) {}             // NOLINT
  FieldValue(std::string_view s) : v(boost::json::string_view(s.data(), s.size())) {}  // NOLINT
  FieldValue(const char* s) : v(s) {}                                              // NOLINT
  FieldValue(int x) : v(x) {}                                                      // NOLINT
  FieldValue(long x) : v(static_cast<int64_t>(x)) {}                               // NOLINT
  FieldValue(long long x) : v(static_cast<int64_t>(x)) {}                          // NOLINT
  FieldValue(unsigned x) : v(static_cast<uint64_t>(x)) {}                          // NOLINT
  FieldValue(unsigned long x) : v(static_cast<uint64_t>(x)) {}                     // NOLINT
  FieldValue(unsigned long long x) : v(static_cast<uint64_t>(x)) {}                // NOLINT
  FieldValue(double x) : v(x) {}                                                   // NOLINT
  FieldValue(bool x) : v(x) {}                                                     // NOLINT
};

struct FieldError {
  FieldErrorType type = FieldErrorType::kInvalid;
  std::string field;
  boost::json::value bad_value;  // rendered as kube renders it; null renders as null
  bool omit_value = false;       // kube's omitValue: print the type without a value
  // The value is an unstructured one (map[string]interface{} in kube, as custom resources are
  // validated): objects and lists render as Go's %#v of them, map[string]interface {}{"k":"v"}.
  bool unstructured_value = false;
  std::string detail;

  // "Invalid value: \"Foo\": detail" (kube's ErrorBody).
  std::string Body() const;
  // "field: body" (kube's Error()).
  std::string ToString() const;
};

using ErrorList = std::vector<FieldError>;

// Constructors with kube's semantics (field.Required, field.Invalid, ...).
FieldError RequiredError(const FieldPath& p, std::string detail);
FieldError InvalidError(const FieldPath& p, FieldValue value, std::string detail);
FieldError DuplicateError(const FieldPath& p, FieldValue value);
FieldError NotFoundError(const FieldPath& p, FieldValue value);
FieldError NotSupportedError(const FieldPath& p, FieldValue value, const std::vector<std::string>& valid);
FieldError ForbiddenError(const FieldPath& p, std::string detail);
FieldError TooLongError(const FieldPath& p, int max_length);             // "may not be more than N bytes"
FieldError TooLongCharactersError(const FieldPath& p, int max_length);   // "... N characters"
FieldError TooManyError(const FieldPath& p, int actual, int max_quantity);
FieldError TooShortError(const FieldPath& p, FieldValue value, int min_length);
FieldError TypeInvalidError(const FieldPath& p, FieldValue value, std::string detail);
FieldError InternalFieldError(const FieldPath& p, std::string detail);

// kube's ErrorList.ToAggregate().Error(): duplicates dropped; one error prints alone, several print
// as "[e1, e2]".
std::string AggregateMessage(const ErrorList& errs);

}  // namespace capstan
