#include "cel/crd_rules.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "cel/cost_estimator.h"
#include "cel/program.h"
#include "cel/schema_types.h"
#include "util/feature_gate.h"
#include "util/strings.h"

namespace capstan::cel {

namespace am = capstan::apimachinery;
namespace json = boost::json;

namespace {

// One entry of x-kubernetes-validations as written.
struct RuleSpec {
  std::string rule, message, message_expression, field_path;
  std::optional<std::string> reason;
  std::optional<bool> optional_old_self;
};

std::string Str(const json::object& o, const char* k) {
  const json::value* v = o.if_contains(k);
  return v && v->is_string() ? std::string(v->get_string()) : "";
}

std::vector<RuleSpec> RulesOf(const am::Schema& s) {
  std::vector<RuleSpec> out;
  if (!s.validations || !s.validations->is_array()) return out;
  for (const auto& r : s.validations->get_array()) {
    RuleSpec rs;
    if (r.is_object()) {
      const json::object& o = r.get_object();
      rs.rule = Str(o, "rule");
      rs.message = Str(o, "message");
      rs.message_expression = Str(o, "messageExpression");
      rs.field_path = Str(o, "fieldPath");
      if (const auto* v = o.if_contains("reason"); v && v->is_string()) rs.reason = std::string(v->get_string());
      if (const auto* v = o.if_contains("optionalOldSelf"); v && v->is_bool()) rs.optional_old_self = v->get_bool();
    }
    out.push_back(std::move(rs));
  }
  return out;
}

std::string TrimSpace(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

bool HasNewlines(std::string_view s) { return s.find_first_of("\n\r") != std::string_view::npos; }

// Go's %#v of the internal apiextensions.ValidationRule, as kube prints it in compile errors.
std::string RenderRule(const RuleSpec& r) {
  std::string s = "apiextensions.ValidationRule{Rule:" + GoQuote(r.rule) + ", Message:" + GoQuote(r.message) +
                  ", MessageExpression:" + GoQuote(r.message_expression) + ", Reason:";
  s += r.reason ? "(*apiextensions.FieldValueErrorReason)(0xc000a1e2b0)" : "(*apiextensions.FieldValueErrorReason)(nil)";
  s += ", FieldPath:" + GoQuote(r.field_path) + ", OptionalOldSelf:";
  s += r.optional_old_self ? "(*bool)(0xc000a1e2b8)" : "(*bool)(nil)";
  return s + "}";
}

// kube's unescapeSingleQuote for '...' segments of a fieldPath.
bool UnescapeSingleQuote(std::string_view s, std::string& out) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i]);
      continue;
    }
    char d = s[++i];
    switch (d) {
      case 'a': out.push_back('\a'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'v': out.push_back('\v'); break;
      case '\'': out.push_back('\''); break;
      case '\\': out.push_back('\\'); break;
      default: return false;
    }
  }
  return true;
}

// kube's ValidFieldPath: `.a.b['c.d']` against the schema; the normalized path ("a.b[c.d]") or nullopt.
std::optional<std::string> ValidFieldPath(std::string_view path, const am::Schema* schema) {
  std::vector<std::string> toks;
  for (size_t i = 0; i < path.size();) {
    char c = path[i];
    if (c == '.' || c == '[' || c == ']') {
      toks.emplace_back(1, c);
      ++i;
      continue;
    }
    size_t j = i;
    if (c == '\'') {
      ++j;
      while (j < path.size() && !(path[j] == '\'' && path[j - 1] != '\\')) ++j;
      if (j < path.size()) ++j;
    } else {
      while (j < path.size() && path[j] != '.' && path[j] != '[' && path[j] != ']') ++j;
    }
    toks.emplace_back(path.substr(i, j - i));
    i = j;
  }
  FieldPath out;
  bool first = true;
  const am::Schema* s = schema;
  auto append = [&](const std::string& name) -> bool {
    const am::Schema& d = s->Deref();
    if (!d.properties.empty()) {
      out = first ? FieldPath(name) : out.Child(name);
      s = d.Property(name);
      if (!s) return false;
    } else if (d.additional_properties) {
      out = first ? FieldPath("[" + name + "]") : out.Key(name);
      s = d.additional_properties;
    } else {
      return false;
    }
    first = false;
    return true;
  };
  for (size_t i = 0; i < toks.size(); ++i) {
    const std::string& t = toks[i];
    if (t == "[") {
      if (++i >= toks.size()) return std::nullopt;
      const std::string& q = toks[i];
      if (q.size() < 2 || q.front() != '\'' || q.back() != '\'') return std::nullopt;
      std::string name;
      if (!UnescapeSingleQuote(std::string_view(q).substr(1, q.size() - 2), name)) return std::nullopt;
      if (!append(name)) return std::nullopt;
      if (++i >= toks.size() || toks[i] != "]") return std::nullopt;
    } else if (t == ".") {
      if (++i >= toks.size()) return std::nullopt;
      if (!append(toks[i])) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  return out.str();
}

// field.Invalid(path, rule, detail): kube prints the rule struct with %#v, which the value
// rendering cannot say; the same text comes from an omitted value and the struct in the detail.
FieldError InvalidRule(const FieldPath& p, const RuleSpec& r, const std::string& detail) {
  FieldError e = InvalidError(p, "", RenderRule(r) + ": " + detail);
  e.omit_value = true;
  return e;
}

// kube's getCostErrorMessage.
std::string CostErrorMessage(const std::string& name, uint64_t cost, uint64_t limit) {
  double f = static_cast<double>(cost) / static_cast<double>(limit);
  char buf[64];
  if (f > 100.0) {
    std::snprintf(buf, sizeof buf, "more than 100x");
  } else if (f < 1.5) {
    std::snprintf(buf, sizeof buf, "%fx", f);
  } else {
    std::snprintf(buf, sizeof buf, "%.1fx", f);
  }
  return name + " exceeds budget by factor of " + buf +
         " (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
}

bool ValidFieldPathFor(std::string_view path, const am::Schema* schema) { return ValidFieldPath(path, schema).has_value(); }

struct CompiledRule {
  RuleSpec spec;
  std::unique_ptr<Program> program;
  std::unique_ptr<Program> message_program;
  bool uses_old_self = false;
  std::string error;          // rule compile error (kube's Detail)
  std::string message_error;  // messageExpression compile error
  std::string normalized_field_path;
  uint64_t max_cost = 0;          // static estimate of the rule (cost_estimator.h)
  uint64_t message_max_cost = 0;  // and of its messageExpression
};

Env RuleEnv(const TypePtr& self_type, bool optional_old_self) {
  return Env::Kube()->Extend({{"self", self_type}, {"oldSelf", optional_old_self ? OptionalOf(self_type) : self_type}});
}

bool IsBoolResult(const TypePtr& t) { return t == UnknownType() || (t && t->kind == TypeKind::kBool); }
bool IsStringResult(const TypePtr& t) { return t == UnknownType() || (t && t->kind == TypeKind::kString); }

CompiledRule CompileRule(const RuleSpec& r, const TypePtr& self_type, const am::Schema& s) {
  CompiledRule c;
  c.spec = r;
  if (TrimSpace(r.rule).empty()) return c;
  Env env = RuleEnv(self_type, r.optional_old_self.value_or(false));
  CompileResult cr = Compile(r.rule, env);
  if (!cr.program) {
    c.error = "compilation failed: " + cr.error;
    return c;
  }
  if (!IsBoolResult(cr.program->result_type())) {
    c.error = "cel expression must evaluate to a bool";
    return c;
  }
  c.uses_old_self = cr.program->References("oldSelf");
  c.max_cost = EstimateMaxCost(cr.program->expr(), env);
  c.program = std::move(cr.program);
  if (!r.message_expression.empty()) {
    CompileResult mr = Compile(r.message_expression, env);
    if (!mr.program) {
      c.message_error = "messageExpression compilation failed: " + mr.error;
    } else if (!IsStringResult(mr.program->result_type())) {
      c.message_error = "messageExpression must evaluate to a string";
    } else {
      c.message_max_cost = EstimateMaxCost(mr.program->expr(), env);
      c.message_program = std::move(mr.program);
    }
  }
  if (!r.field_path.empty()) {
    if (auto p = ValidFieldPath(r.field_path, &s)) c.normalized_field_path = *p;
  }
  return c;
}

std::string SchemaTypeName(const am::Schema& s) { return std::string(s.Deref().SingleType()); }

}  // namespace

// The compiled rules of one schema node and its descendants that have rules.
struct CrdRules::Node {
  const am::Schema* schema = nullptr;
  bool resource_root = false;
  std::vector<CompiledRule> rules;
  std::map<std::string, std::unique_ptr<Node>, std::less<>> properties;
  std::unique_ptr<Node> items, additional_properties;
  std::vector<std::unique_ptr<Node>> all_of;
};

namespace {

using Node = CrdRules::Node;

// rules: the node whose rules apply (an allOf entry's, or the node's own); node: the structure.
std::unique_ptr<Node> BuildNode(const am::Schema* rules_schema, const am::Schema* node_schema, bool resource_root, int depth) {
  if (!rules_schema || !node_schema || depth > 64) return nullptr;
  const am::Schema& rd = rules_schema->Deref();
  const am::Schema& nd = node_schema->Deref();
  auto n = std::make_unique<Node>();
  n->schema = node_schema;
  n->resource_root = resource_root;
  std::vector<RuleSpec> specs = RulesOf(*rules_schema);
  if (!specs.empty()) {
    TypePtr t = SchemaType(node_schema, resource_root);
    for (const auto& r : specs) {
      if (t) {
        n->rules.push_back(CompileRule(r, t, *node_schema));
      } else {
        CompiledRule c;
        c.spec = r;
        c.error = "rule declared on schema that does not support validation rules";
        n->rules.push_back(std::move(c));
      }
    }
  }
  if (rd.items && nd.items) n->items = BuildNode(rd.items, nd.items, nd.items->EmbeddedResource(), depth + 1);
  for (const auto& [k, p] : rd.properties) {
    const am::Schema* np = nd.Property(k);
    if (!np) continue;
    if (auto c = BuildNode(p, np, np->EmbeddedResource(), depth + 1)) n->properties.emplace(k, std::move(c));
  }
  if (rd.additional_properties && nd.additional_properties) {
    n->additional_properties = BuildNode(rd.additional_properties, nd.additional_properties,
                                         nd.additional_properties->EmbeddedResource(), depth + 1);
  }
  for (const am::Schema* a : rd.all_of) {
    if (auto c = BuildNode(a, node_schema, resource_root, depth + 1)) n->all_of.push_back(std::move(c));
  }
  if (n->rules.empty() && !n->items && n->properties.empty() && !n->additional_properties && n->all_of.empty()) return nullptr;
  return n;
}

struct Budget {
  int64_t remaining = kRuntimeCostBudget;
  bool exhausted() const { return remaining < 0; }
};

class Activation2 : public Activation {
 public:
  const Value* self = nullptr;
  const Value* old_self = nullptr;
  const Value* Resolve(std::string_view name) const override {
    if (name == "self") return self;
    if (name == "oldSelf") return old_self;
    return nullptr;
  }
};

std::string RuleErrorString(const RuleSpec& r) {
  std::string m = TrimSpace(r.message);
  return m.empty() ? TrimSpace(r.rule) : m;
}

FieldError ErrorForReason(const FieldPath& p, const std::string& type, const std::string& detail, const std::optional<std::string>& reason) {
  if (reason) {
    if (*reason == "FieldValueForbidden") return ForbiddenError(p, detail);
    if (*reason == "FieldValueRequired") return RequiredError(p, detail);
    if (*reason == "FieldValueDuplicate") return DuplicateError(p, type);
  }
  return InvalidError(p, type, detail);
}

class Validator {
 public:
  Validator(ErrorList& errs, std::vector<std::string>* warnings) : errs_(errs), warnings_(warnings) {}

  // `old`: the correlated old value (null when none); `ratchet`: errors at this node are ratcheted.
  void Validate(const Node& n, const FieldPath& p, const json::value& obj, const json::value* old, bool ratchet) {
    if (budget_.exhausted()) return;
    if (obj.is_null()) return;
    Expressions(n, p, obj, old, ratchet);
    if (budget_.exhausted()) return;
    for (const auto& a : n.all_of) {
      Validate(*a, p, obj, old, ratchet);
      if (budget_.exhausted()) return;
    }
    const am::Schema& d = n.schema->Deref();
    if (obj.is_array()) {
      if (!n.items) return;
      const json::array& arr = obj.get_array();
      const json::array* old_arr = old && old->is_array() ? &old->get_array() : nullptr;
      for (size_t i = 0; i < arr.size(); ++i) {
        const json::value* o = nullptr;
        bool correlated = false;
        if (old_arr && d.list_type == am::ListType::kMap) {
          o = FindByMapKeys(*old_arr, arr[i], d.list_map_keys);
          correlated = true;
        } else if (old_arr && d.list_type == am::ListType::kSet) {
          correlated = true;
          for (const auto& x : *old_arr) {
            if (x == arr[i]) o = &x;
          }
          Validate(*n.items, p.Index(i), arr[i], nullptr, o != nullptr);
          if (budget_.exhausted()) return;
          continue;
        }
        Validate(*n.items, p.Index(i), arr[i], o, correlated ? (o && *o == arr[i]) : ratchet);
        if (budget_.exhausted()) return;
      }
      return;
    }
    if (obj.is_object()) {
      const json::object& m = obj.get_object();
      const json::object* old_m = old && old->is_object() && d.map_type != am::MapType::kAtomic ? &old->get_object() : nullptr;
      for (const auto& [k, v] : m) {
        const Node* child = nullptr;
        FieldPath cp;
        if (n.additional_properties) {
          child = n.additional_properties.get();
          cp = p.Key(k);
        }
        if (auto it = n.properties.find(std::string_view(k)); it != n.properties.end()) {
          child = it->second.get();
          cp = p.Child(k);
        }
        if (!child) continue;
        const json::value* o = old_m ? old_m->if_contains(k) : nullptr;
        bool child_ratchet = old_m ? (o && *o == v) : ratchet;
        if (n.resource_root && (k == "apiVersion" || k == "kind")) child_ratchet = false;
        Validate(*child, cp, v, o, child_ratchet);
        if (budget_.exhausted()) return;
      }
    }
  }

 private:
  static const json::value* FindByMapKeys(const json::array& old, const json::value& item, const std::vector<std::string>& keys) {
    if (!item.is_object()) return nullptr;
    for (const auto& o : old) {
      if (!o.is_object()) continue;
      bool same = true;
      for (const auto& k : keys) {
        const json::value* a = item.get_object().if_contains(k);
        const json::value* b = o.get_object().if_contains(k);
        if ((a == nullptr) != (b == nullptr) || (a && *a != *b)) {
          same = false;
          break;
        }
      }
      if (same) return &o;
    }
    return nullptr;
  }

  void Add(FieldError e, bool ratcheted) {
    if (ratcheted && features::Enabled("CRDValidationRatcheting")) {
      if (warnings_) warnings_->push_back(e.ToString());
      return;
    }
    errs_.push_back(std::move(e));
  }

  void Expressions(const Node& n, const FieldPath& p, const json::value& obj, const json::value* old, bool ratchet) {
    if (n.rules.empty()) return;
    const std::string type = SchemaTypeName(*n.schema);
    // kube validates from a nil field path: errors at the root print "<nil>".
    const FieldPath here = p.str().empty() ? FieldPath("<nil>") : p;
    if (budget_.remaining <= 0) {
      errs_.push_back(InvalidError(here, type, "validation failed due to running out of cost budget, no further validation rules will be run"));
      budget_.remaining = -1;
      return;
    }
    Value self = JsonToValue(obj, n.schema, n.resource_root);
    Value old_self = old ? JsonToValue(*old, n.schema, n.resource_root) : Value();
    Value opt_old = old ? Value::OptionalOf(old_self) : Value::OptionalNone();
    for (const CompiledRule& r : n.rules) {
      if (!r.error.empty()) {
        errs_.push_back(InvalidError(here, type, "rule compile error: " + r.error));
        continue;
      }
      if (!r.program) continue;
      bool optional_old = r.spec.optional_old_self.value_or(false);
      if (r.uses_old_self && !old && !optional_old) continue;
      Activation2 act;
      act.self = &self;
      if (r.uses_old_self) act.old_self = optional_old ? &opt_old : &old_self;
      EvalResult res = r.program->Eval(act, kPerCallLimit);
      if (static_cast<int64_t>(res.cost) > budget_.remaining) {
        errs_.push_back(InvalidError(here, type, "validation failed due to running out of cost budget, no further validation rules will be run"));
        budget_.remaining = -1;
        return;
      }
      budget_.remaining -= static_cast<int64_t>(res.cost);
      if (res.value.IsError()) {
        const std::string& msg = res.value.str();
        if (msg.rfind("no such overload", 0) == 0) {
          errs_.push_back(InvalidError(here, type, "'" + msg + "': call arguments did not match a supported operator, function or macro signature for rule: " + RuleErrorString(r.spec)));
        } else if (msg.rfind("operation cancelled: actual cost limit exceeded", 0) == 0) {
          errs_.push_back(InvalidError(here, type, "'" + msg + "': no further validation rules will be run due to call cost exceeds limit for rule: " + RuleErrorString(r.spec)));
          budget_.remaining = -1;
          return;
        } else {
          errs_.push_back(InvalidError(here, type, msg + " evaluating rule: " + RuleErrorString(r.spec)));
        }
        continue;
      }
      if (res.value.IsBool() && res.value.bool_value()) continue;
      FieldPath fp = r.normalized_field_path.empty() ? here : p.Child(r.normalized_field_path);
      bool ratcheted = !r.uses_old_self && ratchet;
      std::string detail;
      bool have_detail = false;
      if (r.message_program) {
        Activation2 mact = act;
        EvalResult mr = r.message_program->Eval(mact, kPerCallLimit);
        if (static_cast<int64_t>(mr.cost) > budget_.remaining) {
          Add(InvalidError(fp, type, "messageExpression evaluation failed due to running out of cost budget, no further validation rules will be run"), ratcheted);
          budget_.remaining = -1;
          return;
        }
        if (mr.value.IsError() && mr.value.str().rfind("operation cancelled: actual cost limit exceeded", 0) == 0) {
          Add(InvalidError(fp, type, "no further validation rules will be run due to call cost exceeds limit for messageExpression: " + GoQuote(r.spec.message_expression)), ratcheted);
          budget_.remaining = -1;
          return;
        }
        budget_.remaining -= static_cast<int64_t>(mr.cost);
        if (!mr.value.IsError() && mr.value.kind() == Kind::kString) {
          std::string m = TrimSpace(mr.value.str());
          if (!m.empty() && m.size() <= 5 * 1024 && !HasNewlines(m)) {
            detail = m;
            have_detail = true;
          }
        }
      }
      if (!have_detail) detail = TrimSpace(r.spec.message).empty() ? "failed rule: " + RuleErrorString(r.spec) : TrimSpace(r.spec.message);
      Add(ErrorForReason(fp, type, detail, r.spec.reason), ratcheted);
    }
  }

  ErrorList& errs_;
  std::vector<std::string>* warnings_;
  Budget budget_;
};

// --- the CRD's own validation of its rules

class Checker {
 public:
  Checker(ErrorList& errs, bool compile) : errs_(errs), compile_(compile) {}

  // Returns whether this subtree had schema (non-CEL) rule errors, which suppress compilation above.
  // `cardinality`: how many times this node can occur in an object (kube's MaxCardinality), nullopt
  // when an enclosing list or map is unbounded.
  bool Check(const am::Schema& s, const FieldPath& p, bool resource_root, const std::string* uncorrelatable,
             std::optional<uint64_t> cardinality, int depth) {
    if (depth > 64) return false;
    const am::Schema& d = s.Deref();
    bool schema_errors = false;
    auto times = [&](std::optional<int64_t> max) -> std::optional<uint64_t> {
      if (!cardinality || !max) return std::nullopt;
      uint64_t m = static_cast<uint64_t>(std::max<int64_t>(0, *max));
      return m != 0 && *cardinality > UINT64_MAX / m ? UINT64_MAX : *cardinality * m;
    };
    if (d.additional_properties) {
      schema_errors |= Check(*d.additional_properties, p.Child("additionalProperties"), d.additional_properties->EmbeddedResource(),
                             uncorrelatable, times(d.max_properties), depth + 1);
    }
    // Below an atomic map or a list other than a list-type=map, old values do not correlate.
    std::string here = p.str();
    const std::string* atomic_unc = uncorrelatable;
    if (!atomic_unc && d.map_type == am::MapType::kAtomic) atomic_unc = &here;
    for (const auto& [k, prop] : d.properties) {
      schema_errors |= Check(*prop, p.Child("properties").Key(k), prop->EmbeddedResource(), atomic_unc, cardinality, depth + 1);
    }
    if (d.items) {
      const std::string* unc = uncorrelatable;
      if (!unc && d.list_type != am::ListType::kMap) unc = &here;
      schema_errors |= Check(*d.items, p.Child("items"), d.items->EmbeddedResource(), unc, times(d.max_items), depth + 1);
    }
    std::vector<RuleSpec> rules = RulesOf(s);
    if (rules.empty()) return schema_errors;
    FieldPath vp = p.Child("x-kubernetes-validations");
    size_t before = errs_.size();
    for (size_t i = 0; i < rules.size(); ++i) {
      const RuleSpec& r = rules[i];
      FieldPath rp = vp.Index(i);
      std::string rule = TrimSpace(r.rule), msg = TrimSpace(r.message), mexpr = TrimSpace(r.message_expression);
      if (rule.empty()) {
        errs_.push_back(RequiredError(rp.Child("rule"), "rule is not specified"));
      } else if (!r.message.empty() && msg.empty()) {
        errs_.push_back(InvalidError(rp.Child("message"), r.message, "message must be non-empty if specified"));
      } else if (HasNewlines(msg)) {
        errs_.push_back(InvalidError(rp.Child("message"), r.message, "message must not contain line breaks"));
      } else if (HasNewlines(rule) && msg.empty()) {
        errs_.push_back(RequiredError(rp.Child("message"), "message must be specified if rule contains line breaks"));
      }
      if (!r.message_expression.empty() && mexpr.empty()) {
        errs_.push_back(RequiredError(rp.Child("messageExpression"), "messageExpression must be non-empty if specified"));
      }
      static const std::vector<std::string> kReasons = {"FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"};
      if (r.reason && std::find(kReasons.begin(), kReasons.end(), *r.reason) == kReasons.end()) {
        errs_.push_back(NotSupportedError(rp.Child("reason"), *r.reason, kReasons));
      }
      if (!r.field_path.empty() && TrimSpace(r.field_path).empty()) {
        errs_.push_back(InvalidError(rp.Child("fieldPath"), r.field_path, "fieldPath must be non-empty if specified"));
      }
      if (HasNewlines(r.field_path)) {
        errs_.push_back(InvalidError(rp.Child("fieldPath"), r.field_path, "fieldPath must not contain line breaks"));
      }
      if (!r.field_path.empty() && !ValidFieldPathFor(r.field_path, &s)) {
        errs_.push_back(InvalidError(rp.Child("fieldPath"), r.field_path, "fieldPath must be a valid path"));
      }
    }
    schema_errors |= errs_.size() != before;
    if (schema_errors) return true;
    if (!compile_) return false;
    TypePtr t = SchemaType(&s, resource_root);
    if (!t) {
      errs_.push_back(InternalFieldError(vp, "rule declared on schema that does not support validation rules type: '" + std::string(d.SingleType()) +
                                                 "' x-kubernetes-preserve-unknown-fields: '" + (s.PreservesUnknownFields() ? "true" : "false") + "'"));
      return false;
    }
    for (size_t i = 0; i < rules.size(); ++i) {
      const RuleSpec& r = rules[i];
      FieldPath rp = vp.Index(i);
      CompiledRule c = CompileRule(r, t, s);
      uint64_t n = cardinality ? *cardinality : static_cast<uint64_t>(MaxCardinality(t));
      uint64_t cost = c.max_cost != 0 && n > UINT64_MAX / c.max_cost ? UINT64_MAX : c.max_cost * n;
      if (cost > kStaticEstimatedCostLimit) {
        errs_.push_back(ForbiddenError(rp.Child("rule"), CostErrorMessage("estimated rule cost", cost, kStaticEstimatedCostLimit)));
      }
      Observe(rp.Child("rule"), cost);
      if (!c.error.empty()) errs_.push_back(InvalidRule(rp.Child("rule"), r, c.error));
      if (!c.message_error.empty()) {
        errs_.push_back(InvalidRule(rp.Child("messageExpression"), r, c.message_error));
      } else if (c.message_program) {
        if (c.message_max_cost > kStaticEstimatedCostLimit) {
          errs_.push_back(ForbiddenError(rp.Child("messageExpression"),
                                         CostErrorMessage("estimated messageExpression cost", c.message_max_cost, kStaticEstimatedCostLimit)));
        }
        Observe(rp.Child("messageExpression"), c.message_max_cost);
      }
      if (c.uses_old_self) {
        if (uncorrelatable) {
          errs_.push_back(InvalidError(rp.Child("rule"), r.rule, "oldSelf cannot be used on the uncorrelatable portion of the schema within " + *uncorrelatable));
        }
      } else if (c.program && r.optional_old_self) {
        errs_.push_back(InvalidError(rp.Child("optionalOldSelf"), *r.optional_old_self, "may not be set if oldSelf is not used in rule"));
      }
    }
    return false;
  }

  // The CRD-wide budget: past it, the four most expensive rules and the schema root are refused.
  void CheckTotal(const FieldPath& schema_path) {
    if (total_ <= kStaticEstimatedCrdCostLimit) return;
    for (const auto& [cost, path] : most_expensive_) {
      errs_.push_back(ForbiddenError(FieldPath(path), "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"));
    }
    errs_.push_back(ForbiddenError(schema_path, CostErrorMessage("x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                                                                 total_, kStaticEstimatedCrdCostLimit)));
  }

 private:
  void Observe(const FieldPath& p, uint64_t cost) {
    total_ = total_ > UINT64_MAX - cost ? UINT64_MAX : total_ + cost;
    most_expensive_.emplace_back(cost, p.str());
    std::stable_sort(most_expensive_.begin(), most_expensive_.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (most_expensive_.size() > 4) most_expensive_.resize(4);
  }

  ErrorList& errs_;
  bool compile_;
  uint64_t total_ = 0;
  std::vector<std::pair<uint64_t, std::string>> most_expensive_;
};

}  // namespace

void CheckCrdRules(const am::Schema& root, const FieldPath& schema_path, bool compile, ErrorList& errs) {
  Checker c(errs, compile);
  c.Check(root, schema_path, true, nullptr, uint64_t{1}, 0);
  c.CheckTotal(schema_path);
}

CrdRules::CrdRules(std::unique_ptr<Node> root) : root_(std::move(root)) {}
CrdRules::~CrdRules() = default;

std::shared_ptr<const CrdRules> CrdRules::Build(const am::Schema* root) {
  auto n = BuildNode(root, root, true, 0);
  if (!n) return nullptr;
  return std::make_shared<const CrdRules>(std::move(n));
}

void CrdRules::Validate(const json::value& obj, const json::value* old, ErrorList& errs, std::vector<std::string>* warnings) const {
  Validator v(errs, warnings);
  v.Validate(*root_, FieldPath(), obj, old, old != nullptr && *old == obj);
}

}  // namespace capstan::cel
