#include "apimachinery/fields.h"

#include <algorithm>

#include "apimachinery/utf8.h"
#include "util/strings.h"

namespace capstan::apimachinery {
namespace {

Status Err(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }

// kube's splitTerms: split at commas that are not escaped.
std::vector<std::string_view> SplitTerms(std::string_view s) {
  std::vector<std::string_view> terms;
  if (s.empty()) return terms;
  size_t start = 0;
  bool in_slash = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (in_slash) {
      in_slash = false;
    } else if (c == '\\') {
      in_slash = true;
    } else if (c == ',') {
      terms.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  terms.push_back(s.substr(start));
  return terms;
}

// kube's splitTerm: the first position where "!=", "==" or "=" starts.
bool SplitTerm(std::string_view term, std::string_view& lhs, std::string_view& op, std::string_view& rhs) {
  static constexpr std::string_view kOps[] = {"!=", "==", "="};
  for (size_t i = 0; i < term.size(); ++i) {
    for (std::string_view o : kOps) {
      if (term.substr(i, o.size()) == o) {
        lhs = term.substr(0, i);
        op = o;
        rhs = term.substr(i + o.size());
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::string EscapeFieldValue(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == ',' || c == '=') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

StatusOr<std::string> UnescapeFieldValue(std::string_view s) {
  if (s.find_first_of("\\,=") == std::string_view::npos) return std::string(s);
  std::string out;
  bool in_slash = false;
  for (size_t i = 0; i < s.size();) {
    size_t len = 1;
    uint32_t c = DecodeUtf8(s.substr(i), len);
    std::string_view raw = s.substr(i, len);
    i += len;
    if (in_slash) {
      if (c == '\\' || c == ',' || c == '=') {
        out.append(raw);
      } else {
        std::string seq = "\\";
        AppendUtf8(seq, c);  // Go ranges over runes: an invalid byte reads as U+FFFD
        return Err("invalid field selector: invalid escape sequence: " + seq);
      }
      in_slash = false;
      continue;
    }
    if (c == '\\') {
      in_slash = true;
    } else if (c == ',' || c == '=') {
      // Go prints the rune with %v: its number.
      return Err("invalid field selector: unescaped character in value: " + std::to_string(c));
    } else if (c == 0xfffd && len == 1) {
      AppendUtf8(out, 0xfffd);
    } else {
      out.append(raw);
    }
  }
  if (in_slash) return Err("invalid field selector: invalid escape sequence: \\");
  return out;
}

StatusOr<FieldSelector> ParseFieldSelector(std::string_view selector) {
  std::vector<std::string_view> parts = SplitTerms(selector);
  std::sort(parts.begin(), parts.end());
  std::vector<FieldRequirement> reqs;
  for (std::string_view part : parts) {
    if (part.empty()) continue;
    std::string_view lhs, op, rhs;
    if (!SplitTerm(part, lhs, op, rhs)) {
      return Err("invalid selector: '" + std::string(selector) + "'; can't understand '" + std::string(part) + "'");
    }
    ASSIGN_OR_RETURN(std::string value, UnescapeFieldValue(rhs));
    reqs.push_back(FieldRequirement{std::string(lhs), op == "!=", std::move(value)});
  }
  return FieldSelector(std::move(reqs));
}

bool FieldSelector::Matches(const FieldSet& fields) const {
  if (nothing_) return false;
  for (const FieldRequirement& r : reqs_) {
    auto it = fields.find(r.field);
    std::string_view v = it == fields.end() ? std::string_view() : std::string_view(it->second);
    if ((v == r.value) == r.not_equals) return false;
  }
  return true;
}

std::string FieldSelector::String() const {
  std::vector<std::string> terms;
  for (const FieldRequirement& r : reqs_) {
    terms.push_back(r.field + (r.not_equals ? "!=" : "=") + EscapeFieldValue(r.value));
  }
  return Join(terms, ",");
}

std::optional<std::string> FieldSelector::RequiresExactMatch(std::string_view field) const {
  for (const FieldRequirement& r : reqs_) {
    if (!r.not_equals && r.field == field) return r.value;
  }
  return std::nullopt;
}

StatusOr<FieldSelector> FieldSelector::Transform(const TransformFn& fn) const {
  if (nothing_) return *this;
  std::vector<FieldRequirement> next;
  for (const FieldRequirement& r : reqs_) {
    ASSIGN_OR_RETURN(auto fv, fn(r.field, r.value));
    if (fv.first.empty() && fv.second.empty()) continue;
    next.push_back(FieldRequirement{std::move(fv.first), r.not_equals, std::move(fv.second)});
  }
  return FieldSelector(std::move(next));
}

std::string DefaultFieldLabelConversionError(std::string_view label) {
  return GoQuote(label) + " is not a known field selector: only \"metadata.name\", \"metadata.namespace\"";
}

std::string FieldLabelNotSupportedError(std::string_view label) {
  return "field label not supported: " + std::string(label);
}

std::vector<std::string> DefaultSelectableFieldNames() { return {"metadata.name", "metadata.namespace"}; }

Status CheckFieldSelectorFields(const FieldSelector& sel, std::span<const std::string> supported,
                                const std::function<std::string(std::string_view field)>& unsupported) {
  for (const FieldRequirement& r : sel.Requirements()) {
    if (std::find(supported.begin(), supported.end(), r.field) != supported.end()) continue;
    return Err(unsupported(r.field));
  }
  return Status::Ok();
}

}  // namespace capstan::apimachinery
