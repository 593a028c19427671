#include "cel/interpreter.h"

#include <cmath>

#include "cel/indexing.h"

namespace capstan::cel {

namespace {

// Macro iteration variables, innermost first.
struct Scope {
  std::string_view name;
  const Value* value;
  const Scope* parent;
};

const Value* TypeConstant(std::string_view name) {
  static const std::pair<std::string_view, Value> kTypes[] = {
      {"int", Value::Type("int")}, {"uint", Value::Type("uint")}, {"double", Value::Type("double")},
      {"bool", Value::Type("bool")}, {"string", Value::Type("string")}, {"bytes", Value::Type("bytes")},
      {"list", Value::Type("list")}, {"map", Value::Type("map")}, {"null_type", Value::Type("null_type")},
      {"type", Value::Type("type")}, {"google.protobuf.Timestamp", Value::Type("google.protobuf.Timestamp")},
      {"google.protobuf.Duration", Value::Type("google.protobuf.Duration")},
      {"optional_type", Value::Type("optional_type")},
  };
  for (const auto& [n, v] : kTypes) {
    if (n == name) return &v;
  }
  return nullptr;
}

class Interp {
 public:
  Interp(const Activation& a, const FunctionRegistry& f, EvalContext& c) : act_(a), fns_(f), ctx_(c) {}

  Value Eval(const Expr& e, const Scope* sc) {
    if (ctx_.cancelled) return Cancelled();
    switch (e.kind) {
      case ExprKind::kConst: return e.value;
      case ExprKind::kIdent: {
        if (!ctx_.Charge(1)) return Cancelled();
        std::string_view name = e.name;
        if (!name.empty() && name[0] == '.') name.remove_prefix(1);
        for (const Scope* s = sc; s; s = s->parent) {
          if (s->name == name) return *s->value;
        }
        if (const Value* v = act_.Resolve(name)) return *v;
        if (const Value* t = TypeConstant(name)) return *t;
        return Value::Error("no such attribute(s): " + std::string(name));
      }
      case ExprKind::kSelect: return EvalSelect(e, sc);
      case ExprKind::kCall: return EvalCall(e, sc);
      case ExprKind::kList: return EvalList(e, sc);
      case ExprKind::kMap: return EvalMap(e, sc);
      case ExprKind::kStruct: return Value::Error("unknown type: '" + e.name + "'");
      case ExprKind::kMacro: return EvalMacro(e, sc);
    }
    return NoSuchOverload();
  }

 private:
  Value Cancelled() { return Value::Error(std::string(kCostLimitExceeded)); }

  Value EvalSelect(const Expr& e, const Scope* sc) {
    // A dotted name may be a qualified variable or type (google.protobuf.Timestamp).
    Value t = Eval(*e.target, sc);
    if (t.IsError()) {
      if (e.target->kind == ExprKind::kIdent || e.target->kind == ExprKind::kSelect) {
        std::string q = QualifiedName(e);
        if (!q.empty()) {
          if (const Value* v = act_.Resolve(q)) return *v;
          if (const Value* ty = TypeConstant(q)) return *ty;
        }
      }
      return t;
    }
    if (!ctx_.Charge(e.test_only ? 0 : 1)) return Cancelled();
    if (e.test_only) {
      if (t.kind() == Kind::kMap) return Value::Bool(t.map().FindString(e.name) != nullptr);
      if (t.kind() == Kind::kOptional) {
        if (!t.has_optional_value()) return Value::Bool(false);
        const Value& in = t.optional_value();
        if (in.kind() == Kind::kMap) return Value::Bool(in.map().FindString(e.name) != nullptr);
      }
      return Value::Error("invalid type for field selection.");
    }
    return SelectField(t, e.name, false);
  }

  static std::string QualifiedName(const Expr& e) {
    if (e.kind == ExprKind::kIdent) return e.name;
    if (e.kind == ExprKind::kSelect && !e.test_only) {
      std::string p = QualifiedName(*e.target);
      return p.empty() ? "" : p + "." + e.name;
    }
    return "";
  }

  Value EvalList(const Expr& e, const Scope* sc) {
    if (!ctx_.Charge(10)) return Cancelled();
    std::vector<Value> items;
    items.reserve(e.args.size());
    for (size_t i = 0; i < e.args.size(); ++i) {
      Value v = Eval(*e.args[i], sc);
      if (v.IsError()) return v;
      if (e.optional_entries[i]) {
        if (v.kind() != Kind::kOptional) {
          return Value::Error("cannot initialize optional list element from non-optional value " + DebugString(v));
        }
        if (!v.has_optional_value()) continue;
        items.push_back(v.optional_value());
      } else {
        items.push_back(std::move(v));
      }
    }
    return Value::List(std::move(items));
  }

  Value EvalMap(const Expr& e, const Scope* sc) {
    if (!ctx_.Charge(30)) return Cancelled();
    auto m = std::make_shared<MapValue>();
    for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
      Value k = Eval(*e.args[i], sc);
      if (k.IsError()) return k;
      Value v = Eval(*e.args[i + 1], sc);
      if (v.IsError()) return v;
      Kind kk = k.kind();
      if (kk != Kind::kString && kk != Kind::kInt && kk != Kind::kUint && kk != Kind::kBool) {
        return Value::Error("unsupported key type");
      }
      if (e.optional_entries[i / 2]) {
        if (v.kind() != Kind::kOptional) {
          return Value::Error("cannot initialize optional entry '" + DebugString(k) + "' from non-optional value " + DebugString(v));
        }
        if (!v.has_optional_value()) continue;
        v = v.optional_value();
      }
      if (m->Find(k)) return Value::Error("Failed with repeated key");
      m->entries.emplace_back(std::move(k), std::move(v));
    }
    return Value::Map(std::move(m));
  }

  // `&&`, `||` with error absorption; `!_`; the ternary; then strict calls.
  Value EvalCall(const Expr& e, const Scope* sc) {
    const std::string& fn = e.name;
    if (!e.target) {
      if (fn == "_&&_" || fn == "_||_") {
        bool is_and = fn == "_&&_";
        Value l = Eval(*e.args[0], sc);
        if (l.IsBool() && l.bool_value() != is_and) return l;
        Value r = Eval(*e.args[1], sc);
        if (r.IsBool() && r.bool_value() != is_and) return r;
        if (ctx_.cancelled) return Cancelled();
        if (l.IsBool() && r.IsBool()) return l;
        if (l.IsError()) return l;
        if (r.IsError()) return r;
        return NoSuchOverload();
      }
      if (fn == "_?_:_") {
        Value c = Eval(*e.args[0], sc);
        if (c.IsError()) return c;
        if (!c.IsBool()) return NoSuchOverload();
        return Eval(*e.args[c.bool_value() ? 1 : 2], sc);
      }
      if (fn == "_?._" || fn == "_[?_]" || fn == "_[_]") {
        Value t = Eval(*e.args[0], sc);
        if (t.IsError()) return t;
        if (!ctx_.Charge(1)) return Cancelled();
        if (fn == "_?._") return SelectField(t, e.args[1]->value.str(), true);
        Value k = Eval(*e.args[1], sc);
        if (k.IsError()) return k;
        return IndexValue(t, k, fn == "_[?_]", e.attribute);
      }
    }
    if (e.target && (fn == "or" || fn == "orValue") && e.args.size() == 1) {
      // cel-go short-circuits these: the alternative is evaluated only when needed.
      Value t = Eval(*e.target, sc);
      if (t.IsError()) return t;
      if (t.kind() == Kind::kOptional && t.has_optional_value()) return fn == "or" ? t : t.optional_value();
      Value alt = Eval(*e.args[0], sc);
      if (alt.IsError()) return alt;
      if (t.kind() != Kind::kOptional || (fn == "or" && alt.kind() != Kind::kOptional)) return NoSuchOverload();
      return alt;
    }
    Value argv[8];
    std::vector<Value> big;
    size_t n = e.args.size() + (e.target ? 1 : 0);
    Value* args = argv;
    if (n > 8) {
      big.resize(n);
      args = big.data();
    }
    size_t i = 0;
    if (e.target) args[i++] = Eval(*e.target, sc);
    for (const auto& a : e.args) args[i++] = Eval(*a, sc);
    if (ctx_.cancelled) return Cancelled();
    for (size_t k = 0; k < n; ++k) {
      if (args[k].IsError()) return args[k];
    }
    if (!ctx_.Charge(1)) return Cancelled();
    const Overloads* o = fns_.Find(fn);
    if (!o) return NoSuchOverload();
    Value r = NoSuchOverload();
    for (Function f : e.target ? o->member : o->global) {
      r = f(ctx_, args, n);
      if (!IsNoSuchOverload(r)) break;
    }
    if (ctx_.cancelled) return Cancelled();
    return r;
  }

  Value EvalMacro(const Expr& e, const Scope* sc) {
    Value range = Eval(*e.target, sc);
    if (range.IsError()) return range;
    if (e.macro == MacroKind::kOptMap || e.macro == MacroKind::kOptFlatMap) {
      if (range.kind() != Kind::kOptional) return NoSuchOverload();
      if (!range.has_optional_value()) return range;
      Scope s{e.name, &range.optional_value(), sc};
      Value r = Eval(*e.args[0], &s);
      if (r.IsError() || e.macro == MacroKind::kOptFlatMap) {
        if (!r.IsError() && r.kind() != Kind::kOptional) return NoSuchOverload();
        return r;
      }
      return Value::OptionalOf(std::move(r));
    }
    std::vector<Value> keys;
    const std::vector<Value>* items = nullptr;
    if (range.kind() == Kind::kList) {
      items = &range.list().items;
    } else if (range.kind() == Kind::kMap) {
      for (const auto& kv : range.map().entries) keys.push_back(kv.first);
      items = &keys;
    } else {
      return NoSuchOverload();
    }
    switch (e.macro) {
      case MacroKind::kAll:
      case MacroKind::kExists: {
        bool is_all = e.macro == MacroKind::kAll;
        Value accu = Value::Bool(is_all);
        for (const auto& x : *items) {
          if (!ctx_.Charge(1)) return Cancelled();
          Scope s{e.name, &x, sc};
          Value p = Eval(*e.args[0], &s);
          if (ctx_.cancelled) return Cancelled();
          if (p.IsBool() && p.bool_value() != is_all) return p;
          if (p.IsBool()) continue;
          if (!accu.IsError()) accu = p.IsError() ? p : NoSuchOverload();
        }
        return accu;
      }
      case MacroKind::kExistsOne: {
        int64_t count = 0;
        for (const auto& x : *items) {
          if (!ctx_.Charge(1)) return Cancelled();
          Scope s{e.name, &x, sc};
          Value p = Eval(*e.args[0], &s);
          if (p.IsError()) return p;
          if (!p.IsBool()) return NoSuchOverload();
          if (p.bool_value()) ++count;
        }
        return Value::Bool(count == 1);
      }
      case MacroKind::kMap:
      case MacroKind::kMapFilter:
      case MacroKind::kFilter: {
        std::vector<Value> out;
        for (const auto& x : *items) {
          if (!ctx_.Charge(1)) return Cancelled();
          Scope s{e.name, &x, sc};
          if (e.macro != MacroKind::kMap) {
            Value p = Eval(*e.args[0], &s);
            if (p.IsError()) return p;
            if (!p.IsBool()) return NoSuchOverload();
            if (!p.bool_value()) continue;
            if (e.macro == MacroKind::kFilter) {
              out.push_back(x);
              continue;
            }
          }
          Value v = Eval(*e.args[e.macro == MacroKind::kMap ? 0 : 1], &s);
          if (v.IsError()) return v;
          out.push_back(std::move(v));
        }
        return Value::List(std::move(out));
      }
      default:
        return NoSuchOverload();
    }
  }

  const Activation& act_;
  const FunctionRegistry& fns_;
  EvalContext& ctx_;
};

}  // namespace

Value Evaluate(const Expr& e, const Activation& act, const FunctionRegistry& fns, EvalContext& ctx) {
  Interp in(act, fns, ctx);
  Value v = in.Eval(e, nullptr);
  if (ctx.cancelled) return Value::Error(std::string(kCostLimitExceeded));
  return v;
}

}  // namespace capstan::cel
