// apimachinery/labels.h: label selectors, as kube's pkg/labels.
//
// ParseLabelSelector reads the query-string form ("app=web,tier!=db", "env in (a,b)", "!canary",
// "version", "rev>3") with kube's lexer and parser, so errors read as kube's:
//   unable to parse requirement: <nil>: Invalid value: "-x": name part must consist of ...
//   found ',', expected: !, identifier, or 'end of string'
// Requirements are sorted by key, In/NotIn values are sorted and deduplicated, and String() gives
// kube's canonical form ("app=web,env in (a,b)"). LabelSelectorFromJson turns a metav1.LabelSelector
// ({"matchLabels":{...},"matchExpressions":[...]}) into a selector (null: matches nothing; empty:
// everything), and ValidateLabelSelector gives kube's field errors for it. Values; thread-compatible
// (a built selector is immutable and safe to share).
#pragma once

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apimachinery/field_errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/status.h"

namespace capstan::apimachinery {

// kube's selection.Operator, with its string forms ("!", "=", "==", "in", "!=", "notin", "exists",
// "gt", "lt").
enum class SelectorOp { kDoesNotExist, kEquals, kDoubleEquals, kIn, kNotEquals, kNotIn, kExists, kGreaterThan, kLessThan };
std::string_view SelectorOpString(SelectorOp op);

// Returns a label's value, or nullopt when the object has no such label.
using LabelLookup = std::function<std::optional<std::string_view>(std::string_view key)>;

class LabelRequirement {
 public:
  LabelRequirement(std::string key, SelectorOp op, std::vector<std::string> values)
      : key_(std::move(key)), op_(op), values_(std::move(values)) {}
  const std::string& key() const { return key_; }
  SelectorOp op() const { return op_; }
  const std::vector<std::string>& values() const { return values_; }
  bool Matches(const LabelLookup& labels) const;
  std::string String() const;
  bool operator==(const LabelRequirement&) const = default;

 private:
  std::string key_;
  SelectorOp op_;
  std::vector<std::string> values_;
};

// kube's labels.NewRequirement: validates the key, the operator's value count and every value; the
// error is a 400 whose message is kube's aggregated field errors ("key: Invalid value: ...").
StatusOr<LabelRequirement> NewLabelRequirement(std::string key, SelectorOp op, std::vector<std::string> values);

class LabelSelector {
 public:
  static LabelSelector Everything() { return LabelSelector(); }
  static LabelSelector Nothing() {
    LabelSelector s;
    s.nothing_ = true;
    return s;
  }
  explicit LabelSelector(std::vector<LabelRequirement> reqs = {});

  bool Matches(const LabelLookup& labels) const;
  // The labels of an object (its metadata.labels object; null: no labels).
  bool Matches(const boost::json::object* labels) const;
  bool Matches(const StringPairs& labels) const;
  bool MatchesObject(const boost::json::object& obj) const;

  bool Empty() const { return !nothing_ && reqs_.empty(); }
  bool IsNothing() const { return nothing_; }
  std::string String() const;
  const std::vector<LabelRequirement>& Requirements() const { return reqs_; }
  // The value a matching object must have for label (=, ==, or in with one value).
  std::optional<std::string> RequiresExactMatch(std::string_view label) const;

 private:
  std::vector<LabelRequirement> reqs_;
  bool nothing_ = false;
};

// A 400 BadRequest with kube's parser message on failure.
StatusOr<LabelSelector> ParseLabelSelector(std::string_view selector);

// kube's metav1.LabelSelectorAsSelector; v may be null (the field is absent): Nothing.
StatusOr<LabelSelector> LabelSelectorFromJson(const boost::json::value* v);

// kube's ValidateLabelSelector for a metav1.LabelSelector object at path.
ErrorList ValidateLabelSelector(const boost::json::value& v, const FieldPath& path,
                                bool allow_invalid_label_value = false);

}  // namespace capstan::apimachinery
