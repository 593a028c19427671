// apimachinery/fields.h: field selectors, as kube's pkg/fields.
//
// ParseFieldSelector reads "metadata.name=x,spec.nodeName!=", with =, == and != and kube's escaping
// (\, \= and \\ in values; an unescaped ',' separates terms, an unescaped '=' in a value is an error).
// Terms are sorted as kube sorts them, String() is kube's canonical form, and Requirements() lists
// (field, op, value) so a storage can tell which fields a request uses (e.g. an exact
// metadata.name). Matching reads a flat map of an object's selectable field values; a field the
// object does not have reads as "". Errors are kube's texts:
//   invalid selector: 'a'; can't understand 'a'
//   invalid field selector: invalid escape sequence: \x
// A field a kind cannot be selected by is refused with its field label conversion's text: kube's
// default conversion (kinds without one of their own: metadata.name and metadata.namespace only)
//   "spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"
// or the kind's own function's, most often
//   field label not supported: spec.foo
// Values; a built selector is immutable and safe to share.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/status.h"

namespace capstan::apimachinery {

struct FieldRequirement {
  std::string field;
  bool not_equals = false;  // "!=", else "=" / "=="
  std::string value;
  bool operator==(const FieldRequirement&) const = default;
};

// An object's selectable fields: "metadata.name" -> "x", ...
using FieldSet = std::map<std::string, std::string, std::less<>>;

class FieldSelector {
 public:
  static FieldSelector Everything() { return FieldSelector(); }
  static FieldSelector Nothing() {
    FieldSelector s;
    s.nothing_ = true;
    return s;
  }
  explicit FieldSelector(std::vector<FieldRequirement> reqs = {}) : reqs_(std::move(reqs)) {}

  bool Matches(const FieldSet& fields) const;
  bool Empty() const { return !nothing_ && reqs_.empty(); }
  bool IsNothing() const { return nothing_; }
  std::string String() const;
  const std::vector<FieldRequirement>& Requirements() const { return reqs_; }
  // The value a matching object must have for field (an "=" term).
  std::optional<std::string> RequiresExactMatch(std::string_view field) const;

  // kube's Transform: rewrites each term's field/value (field label conversion). fn returns the new
  // pair or an error; an empty pair drops the term.
  using TransformFn = std::function<StatusOr<std::pair<std::string, std::string>>(const std::string& field,
                                                                                  const std::string& value)>;
  StatusOr<FieldSelector> Transform(const TransformFn& fn) const;

 private:
  std::vector<FieldRequirement> reqs_;
  bool nothing_ = false;
};

// A 400 BadRequest with kube's message on failure.
StatusOr<FieldSelector> ParseFieldSelector(std::string_view selector);

std::string EscapeFieldValue(std::string_view s);
StatusOr<std::string> UnescapeFieldValue(std::string_view s);

// The texts of kube's field label conversions for a label they refuse: runtime's
// DefaultMetaV1FieldSelectorConversion, and the "field label not supported" of most kinds' own.
std::string DefaultFieldLabelConversionError(std::string_view label);
std::string FieldLabelNotSupportedError(std::string_view label);
// The fields a kind without a conversion function of its own can be selected by.
std::vector<std::string> DefaultSelectableFieldNames();

// Checks every field of sel against the resource's selectable fields: a 400 BadRequest whose message
// is unsupported(field) for the first one that is not.
Status CheckFieldSelectorFields(const FieldSelector& sel, std::span<const std::string> supported,
                                const std::function<std::string(std::string_view field)>& unsupported);

}  // namespace capstan::apimachinery
