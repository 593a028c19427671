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
//   field label not supported: spec.foo            (built-in kinds)
//   "spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"   (custom)
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

// Checks every field of sel against the resource's selectable fields. crd_style picks the custom
// resource message over the built-in one. A 400 BadRequest when one is not supported.
Status CheckFieldSelectorFields(const FieldSelector& sel, std::span<const std::string> supported, bool crd_style);

}  // namespace capstan::apimachinery
