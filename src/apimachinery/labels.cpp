#include "apimachinery/labels.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::apimachinery {
namespace {

namespace json = boost::json;

// ---- lexer (kube's labels.Lexer) ----

enum class Tok { kError, kEnd, kClosePar, kComma, kNot, kDoubleEquals, kEquals, kGreater, kIdent, kIn, kLess, kNotEquals, kNotIn, kOpenPar };

Tok TokenFor(std::string_view s) {
  if (s == ")") return Tok::kClosePar;
  if (s == ",") return Tok::kComma;
  if (s == "!") return Tok::kNot;
  if (s == "==") return Tok::kDoubleEquals;
  if (s == "=") return Tok::kEquals;
  if (s == ">") return Tok::kGreater;
  if (s == "in") return Tok::kIn;
  if (s == "<") return Tok::kLess;
  if (s == "!=") return Tok::kNotEquals;
  if (s == "notin") return Tok::kNotIn;
  if (s == "(") return Tok::kOpenPar;
  return Tok::kError;
}

bool IsWhitespace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
bool IsSpecial(char c) {
  return c == '=' || c == '!' || c == '(' || c == ')' || c == ',' || c == '>' || c == '<';
}

struct Item {
  Tok tok;
  std::string lit;
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}
  Item Lex() {
    char ch = Read();
    while (IsWhitespace(ch)) ch = Read();
    if (ch == 0) return {Tok::kEnd, ""};
    Unread();
    return IsSpecial(ch) ? ScanSpecial() : ScanIdent();
  }

 private:
  // Like kube's, a NUL byte reads as the end of the input.
  char Read() { return pos_ < s_.size() ? s_[pos_++] : 0; }
  void Unread() { --pos_; }
  Item ScanIdent() {
    std::string buf;
    while (true) {
      char ch = Read();
      if (ch == 0) break;
      if (IsSpecial(ch) || IsWhitespace(ch)) {
        Unread();
        break;
      }
      buf.push_back(ch);
    }
    Tok t = TokenFor(buf);
    return {t == Tok::kError ? Tok::kIdent : t, buf};
  }
  Item ScanSpecial() {
    std::string buf;
    Item last{Tok::kError, ""};
    while (true) {
      char ch = Read();
      if (ch == 0) break;
      if (!IsSpecial(ch)) {
        Unread();
        break;
      }
      buf.push_back(ch);
      Tok t = TokenFor(buf);
      if (t != Tok::kError) {
        last = {t, buf};
      } else if (last.tok != Tok::kError) {
        Unread();
        break;
      }
    }
    if (last.tok == Tok::kError) return {Tok::kError, "error expected: keyword found '" + buf + "'"};
    return last;
  }
  std::string_view s_;
  size_t pos_ = 0;
};

// ---- parser (kube's labels.Parser) ----

Status Err(std::string msg) { return Status(400, "BadRequest", std::move(msg)); }

class Parser {
 public:
  explicit Parser(std::string_view s) {
    Lexer l(s);
    while (true) {
      items_.push_back(l.Lex());
      if (items_.back().tok == Tok::kEnd) break;
    }
  }

  StatusOr<std::vector<LabelRequirement>> Parse() {
    std::vector<LabelRequirement> reqs;
    while (true) {
      Item it = Lookahead(true);
      if (it.tok == Tok::kIdent || it.tok == Tok::kNot) {
        auto r = ParseRequirement();
        if (!r.ok()) return Err("unable to parse requirement: " + r.status().message());
        reqs.push_back(std::move(*r));
        Item t = Consume(true);
        if (t.tok == Tok::kEnd) return reqs;
        if (t.tok == Tok::kComma) {
          Item t2 = Lookahead(true);
          if (t2.tok != Tok::kIdent && t2.tok != Tok::kNot) {
            return Err("found '" + t2.lit + "', expected: identifier after ','");
          }
          continue;
        }
        return Err("found '" + t.lit + "', expected: ',' or 'end of string'");
      }
      if (it.tok == Tok::kEnd) return reqs;
      return Err("found '" + it.lit + "', expected: !, identifier, or 'end of string'");
    }
  }

 private:
  // In the values context "in" and "notin" are plain identifiers.
  Item Lookahead(bool values) const { return Adjust(items_[pos_], values); }
  Item Consume(bool values) { return Adjust(items_[pos_++], values); }
  static Item Adjust(Item it, bool values) {
    if (values && (it.tok == Tok::kIn || it.tok == Tok::kNotIn)) it.tok = Tok::kIdent;
    return it;
  }

  StatusOr<LabelRequirement> ParseRequirement() {
    bool not_exists = false;
    Item t = Consume(true);
    if (t.tok == Tok::kNot) {
      not_exists = true;
      t = Consume(true);
    }
    if (t.tok != Tok::kIdent) return Err("found '" + t.lit + "', expected: identifier");
    Problems key_errs = IsQualifiedName(t.lit);
    if (!key_errs.empty()) {
      // kube validates the key against a nil field path, which prints as "<nil>".
      return Err("<nil>: Invalid value: " + GoQuote(t.lit) + ": " + Join(key_errs, "; "));
    }
    std::string key = t.lit;
    Tok next = Lookahead(true).tok;
    if (not_exists) return NewLabelRequirement(key, SelectorOp::kDoesNotExist, {});
    if (next == Tok::kEnd || next == Tok::kComma) return NewLabelRequirement(key, SelectorOp::kExists, {});

    Item op = Consume(false);
    SelectorOp sop;
    switch (op.tok) {
      case Tok::kIn: sop = SelectorOp::kIn; break;
      case Tok::kEquals: sop = SelectorOp::kEquals; break;
      case Tok::kDoubleEquals: sop = SelectorOp::kDoubleEquals; break;
      case Tok::kGreater: sop = SelectorOp::kGreaterThan; break;
      case Tok::kLess: sop = SelectorOp::kLessThan; break;
      case Tok::kNotIn: sop = SelectorOp::kNotIn; break;
      case Tok::kNotEquals: sop = SelectorOp::kNotEquals; break;
      default: return Err("found '" + op.lit + "', expected: in, notin, =, ==, !=, gt, lt");
    }
    std::set<std::string> values;
    if (sop == SelectorOp::kIn || sop == SelectorOp::kNotIn) {
      RETURN_IF_ERROR(ParseValues(values));
    } else {
      RETURN_IF_ERROR(ParseExactValue(values));
    }
    return NewLabelRequirement(key, sop, std::vector<std::string>(values.begin(), values.end()));
  }

  Status ParseValues(std::set<std::string>& s) {
    Item t = Consume(true);
    if (t.tok != Tok::kOpenPar) return Err("found '" + t.lit + "' expected: '('");
    Item la = Lookahead(true);
    if (la.tok == Tok::kIdent || la.tok == Tok::kComma) {
      RETURN_IF_ERROR(ParseIdentifiersList(s));
      if (Consume(true).tok != Tok::kClosePar) return Err("found '" + la.lit + "', expected: ')'");
      return Status::Ok();
    }
    if (la.tok == Tok::kClosePar) {
      Consume(true);
      s.insert("");
      return Status::Ok();
    }
    return Err("found '" + la.lit + "', expected: ',', ')' or identifier");
  }

  Status ParseIdentifiersList(std::set<std::string>& s) {
    while (true) {
      Item t = Consume(true);
      if (t.tok == Tok::kIdent) {
        s.insert(t.lit);
        Item t2 = Lookahead(true);
        if (t2.tok == Tok::kComma) continue;
        if (t2.tok == Tok::kClosePar) return Status::Ok();
        return Err("found '" + t2.lit + "', expected: ',' or ')'");
      }
      if (t.tok == Tok::kComma) {
        if (s.empty()) s.insert("");
        Tok t2 = Lookahead(true).tok;
        if (t2 == Tok::kClosePar) {
          s.insert("");
          return Status::Ok();
        }
        if (t2 == Tok::kComma) s.insert("");
        continue;
      }
      return Err("found '" + t.lit + "', expected: ',', or identifier");
    }
  }

  Status ParseExactValue(std::set<std::string>& s) {
    Tok la = Lookahead(true).tok;
    if (la == Tok::kEnd || la == Tok::kComma) {
      s.insert("");
      return Status::Ok();
    }
    Item t = Consume(true);
    if (t.tok == Tok::kIdent) {
      s.insert(t.lit);
      return Status::Ok();
    }
    return Err("found '" + t.lit + "', expected: identifier");
  }

  std::vector<Item> items_;
  size_t pos_ = 0;
};

std::optional<int64_t> ParseInt64(std::string_view s) {
  // Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits.
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  int64_t v;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

json::value StringList(const std::vector<std::string>& v) {
  if (v.empty()) return nullptr;  // Go marshals a nil slice as null
  json::array a;
  for (const std::string& s : v) a.emplace_back(s);
  return a;
}

void SortByKey(std::vector<LabelRequirement>& reqs) {
  std::stable_sort(reqs.begin(), reqs.end(),
                   [](const LabelRequirement& a, const LabelRequirement& b) { return a.key() < b.key(); });
}

}  // namespace

std::string_view SelectorOpString(SelectorOp op) {
  switch (op) {
    case SelectorOp::kDoesNotExist: return "!";
    case SelectorOp::kEquals: return "=";
    case SelectorOp::kDoubleEquals: return "==";
    case SelectorOp::kIn: return "in";
    case SelectorOp::kNotEquals: return "!=";
    case SelectorOp::kNotIn: return "notin";
    case SelectorOp::kExists: return "exists";
    case SelectorOp::kGreaterThan: return "gt";
    case SelectorOp::kLessThan: return "lt";
  }
  return "";
}

StatusOr<LabelRequirement> NewLabelRequirement(std::string key, SelectorOp op, std::vector<std::string> vals) {
  ErrorList errs;
  FieldPath key_path("key");
  FieldPath values_path("values");
  Problems key_errs = IsQualifiedName(key);
  if (!key_errs.empty()) errs.push_back(InvalidError(key_path, json::value(key), Join(key_errs, "; ")));
  switch (op) {
    case SelectorOp::kIn:
    case SelectorOp::kNotIn:
      if (vals.empty()) errs.push_back(InvalidError(values_path, StringList(vals), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case SelectorOp::kEquals:
    case SelectorOp::kDoubleEquals:
    case SelectorOp::kNotEquals:
      if (vals.size() != 1) errs.push_back(InvalidError(values_path, StringList(vals), "exact-match compatibility requires one single value"));
      break;
    case SelectorOp::kExists:
    case SelectorOp::kDoesNotExist:
      if (!vals.empty()) errs.push_back(InvalidError(values_path, StringList(vals), "values set must be empty for exists and does not exist"));
      break;
    case SelectorOp::kGreaterThan:
    case SelectorOp::kLessThan:
      if (vals.size() != 1) errs.push_back(InvalidError(values_path, StringList(vals), "for 'Gt', 'Lt' operators, exactly one value is required"));
      for (size_t i = 0; i < vals.size(); ++i) {
        if (!ParseInt64(vals[i])) {
          errs.push_back(InvalidError(values_path.Index(i), json::value(vals[i]), "for 'Gt', 'Lt' operators, the value must be an integer"));
        }
      }
      break;
  }
  for (size_t i = 0; i < vals.size(); ++i) {
    Problems p = IsValidLabelValue(vals[i]);
    if (!p.empty()) errs.push_back(InvalidError(values_path.Index(i).Key(key), json::value(vals[i]), Join(p, "; ")));
  }
  if (!errs.empty()) return Status(400, "BadRequest", AggregateMessage(errs));
  return LabelRequirement(std::move(key), op, std::move(vals));
}

bool LabelRequirement::Matches(const LabelLookup& labels) const {
  auto has = [&](std::string_view v) { return std::find(values_.begin(), values_.end(), v) != values_.end(); };
  switch (op_) {
    case SelectorOp::kIn:
    case SelectorOp::kEquals:
    case SelectorOp::kDoubleEquals: {
      auto v = labels(key_);
      return v.has_value() && has(*v);
    }
    case SelectorOp::kNotIn:
    case SelectorOp::kNotEquals: {
      auto v = labels(key_);
      return !v.has_value() || !has(*v);
    }
    case SelectorOp::kExists: return labels(key_).has_value();
    case SelectorOp::kDoesNotExist: return !labels(key_).has_value();
    case SelectorOp::kGreaterThan:
    case SelectorOp::kLessThan: {
      auto v = labels(key_);
      if (!v.has_value() || values_.size() != 1) return false;
      auto lv = ParseInt64(*v);
      auto rv = ParseInt64(values_[0]);
      if (!lv || !rv) return false;
      return op_ == SelectorOp::kGreaterThan ? *lv > *rv : *lv < *rv;
    }
  }
  return false;
}

std::string LabelRequirement::String() const {
  std::string s;
  if (op_ == SelectorOp::kDoesNotExist) s += "!";
  s += key_;
  switch (op_) {
    case SelectorOp::kEquals: s += "="; break;
    case SelectorOp::kDoubleEquals: s += "=="; break;
    case SelectorOp::kNotEquals: s += "!="; break;
    case SelectorOp::kIn: s += " in "; break;
    case SelectorOp::kNotIn: s += " notin "; break;
    case SelectorOp::kGreaterThan: s += ">"; break;
    case SelectorOp::kLessThan: s += "<"; break;
    case SelectorOp::kExists:
    case SelectorOp::kDoesNotExist: return s;
  }
  bool set = op_ == SelectorOp::kIn || op_ == SelectorOp::kNotIn;
  if (set) s += "(";
  if (values_.size() == 1) {
    s += values_[0];
  } else {
    std::vector<std::string> sorted = values_;
    std::sort(sorted.begin(), sorted.end());
    s += Join(sorted, ",");
  }
  if (set) s += ")";
  return s;
}

LabelSelector::LabelSelector(std::vector<LabelRequirement> reqs) : reqs_(std::move(reqs)) { SortByKey(reqs_); }

bool LabelSelector::Matches(const LabelLookup& labels) const {
  if (nothing_) return false;
  for (const LabelRequirement& r : reqs_) {
    if (!r.Matches(labels)) return false;
  }
  return true;
}

bool LabelSelector::Matches(const json::object* labels) const {
  return Matches([labels](std::string_view k) -> std::optional<std::string_view> {
    if (labels == nullptr) return std::nullopt;
    auto it = labels->find(k);
    if (it == labels->end() || !it->value().is_string()) return std::nullopt;
    return std::string_view(it->value().get_string());
  });
}

bool LabelSelector::Matches(const StringPairs& labels) const {
  return Matches([&labels](std::string_view k) -> std::optional<std::string_view> {
    for (const auto& [lk, lv] : labels) {
      if (lk == k) return std::string_view(lv);
    }
    return std::nullopt;
  });
}

bool LabelSelector::MatchesObject(const json::object& obj) const {
  const json::object* meta = GetMetadata(obj);
  const json::object* labels = nullptr;
  if (meta != nullptr) {
    auto it = meta->find("labels");
    if (it != meta->end() && it->value().is_object()) labels = &it->value().get_object();
  }
  return Matches(labels);
}

std::string LabelSelector::String() const {
  std::vector<std::string> parts;
  for (const LabelRequirement& r : reqs_) parts.push_back(r.String());
  return Join(parts, ",");
}

std::optional<std::string> LabelSelector::RequiresExactMatch(std::string_view label) const {
  for (const LabelRequirement& r : reqs_) {
    if (r.key() != label) continue;
    if ((r.op() == SelectorOp::kEquals || r.op() == SelectorOp::kDoubleEquals || r.op() == SelectorOp::kIn) &&
        r.values().size() == 1) {
      return r.values()[0];
    }
    return std::nullopt;
  }
  return std::nullopt;
}

StatusOr<LabelSelector> ParseLabelSelector(std::string_view selector) {
  Parser p(selector);
  ASSIGN_OR_RETURN(std::vector<LabelRequirement> reqs, p.Parse());
  return LabelSelector(std::move(reqs));
}

StatusOr<LabelSelector> LabelSelectorFromJson(const json::value* v) {
  if (v == nullptr || v->is_null()) return LabelSelector::Nothing();
  if (!v->is_object()) return Status(400, "BadRequest", "label selector must be an object");
  const json::object& o = v->get_object();
  std::vector<LabelRequirement> reqs;
  if (auto it = o.find("matchLabels"); it != o.end() && it->value().is_object()) {
    for (const auto& kv : it->value().get_object()) {
      std::string val = kv.value().is_string() ? std::string(kv.value().get_string()) : std::string();
      ASSIGN_OR_RETURN(LabelRequirement r, NewLabelRequirement(std::string(kv.key()), SelectorOp::kEquals, {val}));
      reqs.push_back(std::move(r));
    }
  }
  if (auto it = o.find("matchExpressions"); it != o.end() && it->value().is_array()) {
    for (const json::value& e : it->value().get_array()) {
      if (!e.is_object()) continue;
      const json::object& eo = e.get_object();
      auto str = [&](std::string_view k) {
        auto f = eo.find(k);
        return f != eo.end() && f->value().is_string() ? std::string(f->value().get_string()) : std::string();
      };
      std::string op_s = str("operator");
      SelectorOp op;
      if (op_s == "In") op = SelectorOp::kIn;
      else if (op_s == "NotIn") op = SelectorOp::kNotIn;
      else if (op_s == "Exists") op = SelectorOp::kExists;
      else if (op_s == "DoesNotExist") op = SelectorOp::kDoesNotExist;
      else return Status(400, "BadRequest", GoQuote(op_s) + " is not a valid label selector operator");
      std::vector<std::string> values;
      if (auto f = eo.find("values"); f != eo.end() && f->value().is_array()) {
        for (const json::value& x : f->value().get_array()) {
          if (x.is_string()) values.emplace_back(x.get_string());
        }
      }
      ASSIGN_OR_RETURN(LabelRequirement r, NewLabelRequirement(str("key"), op, std::move(values)));
      reqs.push_back(std::move(r));
    }
  }
  if (reqs.empty()) return LabelSelector::Everything();
  return LabelSelector(std::move(reqs));
}

ErrorList ValidateLabelSelector(const json::value& v, const FieldPath& path, bool allow_invalid_label_value) {
  ErrorList errs;
  if (!v.is_object()) return errs;
  const json::object& o = v.get_object();
  if (auto it = o.find("matchLabels"); it != o.end() && it->value().is_object()) {
    StringPairs labels;
    for (const auto& kv : it->value().get_object()) {
      labels.emplace_back(std::string(kv.key()), kv.value().is_string() ? std::string(kv.value().get_string()) : "");
    }
    for (FieldError& e : ValidateLabels(labels, path.Child("matchLabels"))) errs.push_back(std::move(e));
  }
  if (auto it = o.find("matchExpressions"); it != o.end() && it->value().is_array()) {
    const json::array& exprs = it->value().get_array();
    for (size_t i = 0; i < exprs.size(); ++i) {
      if (!exprs[i].is_object()) continue;
      const json::object& e = exprs[i].get_object();
      FieldPath p = path.Child("matchExpressions").Index(i);
      auto str = [&](std::string_view k) {
        auto f = e.find(k);
        return f != e.end() && f->value().is_string() ? std::string(f->value().get_string()) : std::string();
      };
      std::vector<std::string> values;
      if (auto f = e.find("values"); f != e.end() && f->value().is_array()) {
        for (const json::value& x : f->value().get_array()) values.emplace_back(x.is_string() ? std::string(x.get_string()) : "");
      }
      std::string op = str("operator");
      if (op == "In" || op == "NotIn") {
        if (values.empty()) errs.push_back(RequiredError(p.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      } else if (op == "Exists" || op == "DoesNotExist") {
        if (!values.empty()) errs.push_back(ForbiddenError(p.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      } else {
        errs.push_back(InvalidError(p.Child("operator"), json::value(op), "not a valid selector operator"));
      }
      for (FieldError& fe : ValidateLabelName(str("key"), p.Child("key"))) errs.push_back(std::move(fe));
      if (!allow_invalid_label_value) {
        for (size_t j = 0; j < values.size(); ++j) {
          for (const std::string& m : IsValidLabelValue(values[j])) {
            errs.push_back(InvalidError(p.Child("values").Index(j), json::value(values[j]), m));
          }
        }
      }
    }
  }
  return errs;
}

}  // namespace capstan::apimachinery
