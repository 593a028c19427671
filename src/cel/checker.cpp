#include "cel/checker.h"

#include <map>

#include "cel/program.h"

namespace capstan::cel {

namespace {

using K = TypeKind;

// One overload: for member functions args[0] is the receiver. K::kDyn in a parameter accepts any
// type; the result K::kDyn means "computed by the caller" or dyn.
struct Sig {
  bool member;
  std::vector<K> args;
  K result;
};

const std::map<std::string, std::vector<Sig>, std::less<>>& Signatures() {
  static const auto kSigs = [] {
    std::map<std::string, std::vector<Sig>, std::less<>> s;
    for (const char* op : {"_*_", "_/_"}) {
      s[op] = {{false, {K::kInt, K::kInt}, K::kInt}, {false, {K::kUint, K::kUint}, K::kUint}, {false, {K::kDouble, K::kDouble}, K::kDouble}};
    }
    s["_%_"] = {{false, {K::kInt, K::kInt}, K::kInt}, {false, {K::kUint, K::kUint}, K::kUint}};
    s["_+_"] = {{false, {K::kInt, K::kInt}, K::kInt}, {false, {K::kUint, K::kUint}, K::kUint},
                {false, {K::kDouble, K::kDouble}, K::kDouble}, {false, {K::kString, K::kString}, K::kString},
                {false, {K::kBytes, K::kBytes}, K::kBytes}, {false, {K::kList, K::kList}, K::kList},
                {false, {K::kTimestamp, K::kDuration}, K::kTimestamp}, {false, {K::kDuration, K::kTimestamp}, K::kTimestamp},
                {false, {K::kDuration, K::kDuration}, K::kDuration}};
    s["_-_"] = {{false, {K::kInt, K::kInt}, K::kInt}, {false, {K::kUint, K::kUint}, K::kUint},
                {false, {K::kDouble, K::kDouble}, K::kDouble}, {false, {K::kTimestamp, K::kTimestamp}, K::kDuration},
                {false, {K::kTimestamp, K::kDuration}, K::kTimestamp}, {false, {K::kDuration, K::kDuration}, K::kDuration}};
    s["-_"] = {{false, {K::kInt}, K::kInt}, {false, {K::kDouble}, K::kDouble}};
    s["!_"] = {{false, {K::kBool}, K::kBool}};
    s["_&&_"] = {{false, {K::kBool, K::kBool}, K::kBool}};
    s["_||_"] = {{false, {K::kBool, K::kBool}, K::kBool}};
    std::vector<Sig> ord;
    for (K a : {K::kInt, K::kUint, K::kDouble}) {
      for (K b : {K::kInt, K::kUint, K::kDouble}) ord.push_back({false, {a, b}, K::kBool});
    }
    for (K a : {K::kBool, K::kString, K::kBytes, K::kTimestamp, K::kDuration}) ord.push_back({false, {a, a}, K::kBool});
    for (const char* op : {"_<_", "_<=_", "_>_", "_>=_"}) s[op] = ord;
    s["size"] = {{false, {K::kString}, K::kInt}, {false, {K::kBytes}, K::kInt}, {false, {K::kList}, K::kInt},
                 {false, {K::kMap}, K::kInt}, {true, {K::kString}, K::kInt}, {true, {K::kBytes}, K::kInt},
                 {true, {K::kList}, K::kInt}, {true, {K::kMap}, K::kInt}};
    for (const char* f : {"contains", "startsWith", "endsWith", "matches"}) s[f] = {{true, {K::kString, K::kString}, K::kBool}};
    s["matches"].push_back({false, {K::kString, K::kString}, K::kBool});
    s["int"] = {{false, {K::kInt}, K::kInt}, {false, {K::kUint}, K::kInt}, {false, {K::kDouble}, K::kInt},
                {false, {K::kString}, K::kInt}, {false, {K::kTimestamp}, K::kInt}, {false, {K::kDuration}, K::kInt}};
    s["uint"] = {{false, {K::kInt}, K::kUint}, {false, {K::kUint}, K::kUint}, {false, {K::kDouble}, K::kUint}, {false, {K::kString}, K::kUint}};
    s["double"] = {{false, {K::kInt}, K::kDouble}, {false, {K::kUint}, K::kDouble}, {false, {K::kDouble}, K::kDouble}, {false, {K::kString}, K::kDouble}};
    s["string"] = {{false, {K::kInt}, K::kString}, {false, {K::kUint}, K::kString}, {false, {K::kDouble}, K::kString},
                   {false, {K::kString}, K::kString}, {false, {K::kBytes}, K::kString}, {false, {K::kBool}, K::kString},
                   {false, {K::kTimestamp}, K::kString}, {false, {K::kDuration}, K::kString},
                   {false, {K::kOpaque}, K::kString}};
    s["bytes"] = {{false, {K::kString}, K::kBytes}, {false, {K::kBytes}, K::kBytes}};
    s["bool"] = {{false, {K::kString}, K::kBool}, {false, {K::kBool}, K::kBool}};
    s["timestamp"] = {{false, {K::kString}, K::kTimestamp}, {false, {K::kInt}, K::kTimestamp}, {false, {K::kTimestamp}, K::kTimestamp}};
    s["duration"] = {{false, {K::kString}, K::kDuration}, {false, {K::kDuration}, K::kDuration}};
    for (const char* f : {"getFullYear", "getMonth", "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear"}) {
      s[f] = {{true, {K::kTimestamp}, K::kInt}, {true, {K::kTimestamp, K::kString}, K::kInt}};
    }
    for (const char* f : {"getHours", "getMinutes", "getSeconds", "getMilliseconds"}) {
      s[f] = {{true, {K::kTimestamp}, K::kInt}, {true, {K::kTimestamp, K::kString}, K::kInt}, {true, {K::kDuration}, K::kInt}};
    }
    // ext.Strings v2
    s["charAt"] = {{true, {K::kString, K::kInt}, K::kString}};
    s["indexOf"] = {{true, {K::kString, K::kString}, K::kInt}, {true, {K::kString, K::kString, K::kInt}, K::kInt}, {true, {K::kList, K::kDyn}, K::kInt}};
    s["lastIndexOf"] = {{true, {K::kString, K::kString}, K::kInt}, {true, {K::kString, K::kString, K::kInt}, K::kInt}, {true, {K::kList, K::kDyn}, K::kInt}};
    s["lowerAscii"] = {{true, {K::kString}, K::kString}};
    s["upperAscii"] = {{true, {K::kString}, K::kString}};
    s["replace"] = {{true, {K::kString, K::kString, K::kString}, K::kString}, {true, {K::kString, K::kString, K::kString, K::kInt}, K::kString}};
    s["split"] = {{true, {K::kString, K::kString}, K::kList}, {true, {K::kString, K::kString, K::kInt}, K::kList}};
    s["substring"] = {{true, {K::kString, K::kInt}, K::kString}, {true, {K::kString, K::kInt, K::kInt}, K::kString}};
    s["trim"] = {{true, {K::kString}, K::kString}};
    s["join"] = {{true, {K::kList}, K::kString}, {true, {K::kList, K::kString}, K::kString}};
    s["strings.quote"] = {{false, {K::kString}, K::kString}};
    s["format"] = {{true, {K::kString, K::kList}, K::kString}};
    // kube lists, regex, sets
    s["isSorted"] = {{true, {K::kList}, K::kBool}};
    s["find"] = {{true, {K::kString, K::kString}, K::kString}};
    s["findAll"] = {{true, {K::kString, K::kString}, K::kList}, {true, {K::kString, K::kString, K::kInt}, K::kList}};
    for (const char* f : {"sets.contains", "sets.equivalent", "sets.intersects"}) s[f] = {{false, {K::kList, K::kList}, K::kBool}};
    s["hasValue"] = {{true, {K::kOptional}, K::kBool}};
    return s;
  }();
  return kSigs;
}

bool KindMatches(K want, const TypePtr& have) {
  if (want == K::kDyn || IsDyn(have)) return true;
  return want == have->kind;
}

class Checker {
 public:
  Checker(const Env& env, std::string_view src, std::vector<Issue>& issues) : env_(env), src_(src), issues_(issues) {}

  struct Scope {
    std::string_view name;
    TypePtr type;
    const Scope* parent;
  };

  TypePtr Visit(const Expr& e, const Scope* sc) {
    switch (e.kind) {
      case ExprKind::kConst: return ConstType(e.value);
      case ExprKind::kIdent: {
        std::string_view n = e.name;
        if (!n.empty() && n[0] == '.') n.remove_prefix(1);
        for (const Scope* s = sc; s; s = s->parent) {
          if (s->name == n) return s->type;
        }
        if (const VariableDecl* v = env_.FindVariable(n)) return v->type ? v->type : DynType();
        static const char* kTypeNames[] = {"int", "uint", "double", "bool", "string", "bytes", "list", "map",
                                           "null_type", "type", "optional_type", "dyn"};
        for (const char* t : kTypeNames) {
          if (n == t) return Primitive(K::kType);
        }
        Report(e.offset, "undeclared reference to '" + std::string(n) + "' (in container '')");
        return DynType();
      }
      case ExprKind::kSelect: {
        if (QualifiedTypeName(e)) return Primitive(K::kType);
        TypePtr t = Visit(*e.target, sc);
        TypePtr f = FieldType(t, e.name, e.offset);
        if (e.test_only) return Primitive(K::kBool);
        return f;
      }
      case ExprKind::kCall: return VisitCall(e, sc);
      case ExprKind::kList: {
        TypePtr elem;
        for (size_t i = 0; i < e.args.size(); ++i) {
          TypePtr t = Visit(*e.args[i], sc);
          if (e.optional_entries[i]) t = Unwrap(t);
          elem = Join(elem, t, e.args[i]->offset);
        }
        return ListOf(elem);
      }
      case ExprKind::kMap: {
        TypePtr key, val;
        for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
          key = Join(key, Visit(*e.args[i], sc), e.args[i]->offset);
          TypePtr v = Visit(*e.args[i + 1], sc);
          if (e.optional_entries[i / 2]) v = Unwrap(v);
          val = Join(val, v, e.args[i + 1]->offset);
        }
        return MapOf(key, val);
      }
      case ExprKind::kStruct:
        Report(e.offset, "undeclared reference to '" + e.name + "' (in container '')");
        for (const auto& a : e.args) Visit(*a, sc);
        return DynType();
      case ExprKind::kMacro: return VisitMacro(e, sc);
    }
    return DynType();
  }

 private:
  static TypePtr Unwrap(const TypePtr& t) {
    if (t && t->kind == K::kOptional) return t->elem;
    return DynType();
  }

  bool QualifiedTypeName(const Expr& e) {
    std::string q;
    const Expr* x = &e;
    while (x->kind == ExprKind::kSelect && !x->test_only) {
      q = "." + x->name + q;
      x = x->target.get();
    }
    if (x->kind != ExprKind::kIdent) return false;
    q = x->name + q;
    return (q == "google.protobuf.Timestamp" || q == "google.protobuf.Duration") && !env_.FindVariable(x->name);
  }

  TypePtr ConstType(const Value& v) {
    switch (v.kind()) {
      case Kind::kNull: return Primitive(K::kNull);
      case Kind::kBool: return Primitive(K::kBool);
      case Kind::kInt: return Primitive(K::kInt);
      case Kind::kUint: return Primitive(K::kUint);
      case Kind::kDouble: return Primitive(K::kDouble);
      case Kind::kString: return Primitive(K::kString);
      case Kind::kBytes: return Primitive(K::kBytes);
      default: return DynType();
    }
  }

  // Homogeneous aggregate literals: every element has the first one's type (dyn mixes freely).
  TypePtr Join(const TypePtr& have, const TypePtr& t, int32_t off) {
    if (!have) return t;
    if (IsDyn(have) || IsDyn(t)) return IsDyn(have) ? have : t;
    if (have->kind == K::kNull || t->kind == K::kNull) return have->kind == K::kNull ? t : have;
    if (!Assignable(have, t)) {
      if (!env_.homogeneous_literals()) return DynType();
      Report(off, "expected type '" + TypeString(*have) + "' but found '" + TypeString(*t) + "'");
      return have;
    }
    return have;
  }

  TypePtr FieldType(const TypePtr& t, const std::string& field, int32_t off) {
    if (IsDyn(t)) return DynType();
    switch (t->kind) {
      case K::kObject: {
        if (const TypePtr* f = t->Field(field)) return *f;
        if (t->elem) return t->elem;  // an object that also allows unknown fields
        Report(off, "undefined field '" + field + "'");
        return DynType();
      }
      case K::kMap: return t->elem;
      case K::kOptional: {
        TypePtr in = FieldType(t->elem, field, off);
        return OptionalOf(in);
      }
      default:
        Report(off, "type '" + TypeString(*t) + "' does not support field selection");
        return DynType();
    }
  }

  static std::string Signature(const std::vector<TypePtr>& ts, bool member) {
    std::string s;
    size_t start = 0;
    if (member && !ts.empty()) {
      s = TypeString(*ts[0]) + ".";
      start = 1;
    }
    s += "(";
    for (size_t i = start; i < ts.size(); ++i) s += (i > start ? ", " : "") + TypeString(*ts[i]);
    return s + ")";
  }

  TypePtr VisitCall(const Expr& e, const Scope* sc) {
    std::vector<TypePtr> ts;
    if (e.target) ts.push_back(Visit(*e.target, sc));
    for (const auto& a : e.args) ts.push_back(Visit(*a, sc));
    const std::string& fn = e.name;
    bool member = e.target != nullptr;
    // Operators and forms with structural results.
    if (!member) {
      if (fn == "_==_" || fn == "_!=_") {
        if (!Assignable(ts[0], ts[1]) && ts[0]->kind != K::kNull && ts[1]->kind != K::kNull) NoOverload(e, ts, member);
        return Primitive(K::kBool);
      }
      if (fn == "_?_:_") {
        if (!KindMatches(K::kBool, ts[0])) NoOverload(e, ts, member);
        if (IsDyn(ts[1]) || IsDyn(ts[2])) return DynType();
        if (ts[1]->kind == K::kNull) return ts[2];
        if (ts[2]->kind == K::kNull) return ts[1];
        if (!Assignable(ts[1], ts[2])) NoOverload(e, ts, member);
        return ts[1];
      }
      if (fn == "@in") {
        if (!IsDyn(ts[1]) && ts[1]->kind != K::kList && ts[1]->kind != K::kMap) NoOverload(e, ts, member);
        return Primitive(K::kBool);
      }
      if (fn == "_[_]" || fn == "_[?_]") {
        TypePtr r = IndexType(e, ts);
        return fn == "_[?_]" ? OptionalOf(ts[0]->kind == K::kOptional ? Unwrap(r) : r) : r;
      }
      if (fn == "_?._") {
        TypePtr f = FieldType(ts[0]->kind == K::kOptional ? ts[0]->elem : ts[0], e.args[1]->value.str(), e.offset);
        return OptionalOf(f);
      }
      if (fn == "dyn") return DynType();
      if (fn == "type") return Primitive(K::kType);
      if (fn == "optional.of" || fn == "optional.ofNonZeroValue") return OptionalOf(ts.empty() ? DynType() : ts[0]);
      if (fn == "optional.none") return OptionalOf(DynType());
    } else {
      if (fn == "value" && ts.size() == 1 && !IsDyn(ts[0]) && ts[0]->kind == K::kOptional) return ts[0]->elem;
      if (fn == "orValue" && ts.size() == 2 && !IsDyn(ts[0]) && ts[0]->kind == K::kOptional) return IsDyn(ts[0]->elem) ? ts[1] : ts[0]->elem;
      if (fn == "or" && ts.size() == 2) return ts[0];
    }
    // `&&` and `||` are the interpreter's own (they absorb errors); every other function is a library's.
    const bool builtin = !member && (fn == "_&&_" || fn == "_||_");
    const Overloads* o = env_.functions().Find(fn);
    if (!builtin && (!o || (member ? o->member : o->global).empty())) {
      Report(e.offset, "undeclared reference to '" + fn + "' (in container '')");
      return DynType();
    }
    const auto& sigs = Signatures();
    auto it = sigs.find(fn);
    if (it == sigs.end()) return UnknownType();
    bool any = false;
    K result = K::kDyn;
    bool ambiguous = false;
    for (const Sig& s : it->second) {
      if (s.member != member || s.args.size() != ts.size()) continue;
      bool ok = true;
      for (size_t i = 0; i < ts.size() && ok; ++i) ok = KindMatches(s.args[i], ts[i]);
      if (!ok) continue;
      if (any && result != s.result) ambiguous = true;
      any = true;
      result = s.result;
    }
    if (!any) {
      bool has_sig_for_form = false;
      for (const Sig& s : it->second) has_sig_for_form |= s.member == member;
      if (has_sig_for_form) NoOverload(e, ts, member);
      return DynType();
    }
    if (ambiguous || result == K::kDyn) return UnknownType();
    if (result == K::kList) {
      if (fn == "_+_" && !IsDyn(ts[0]) && !IsDyn(ts[1])) {
        if (!Assignable(ts[0], ts[1])) {
          NoOverload(e, ts, member);
        }
        return IsDyn(ts[0]->elem) ? ts[1] : ts[0];
      }
      if (fn == "split" || fn == "findAll") return ListOf(Primitive(K::kString));
      return ListOf(DynType());
    }
    return Primitive(result);
  }

  TypePtr IndexType(const Expr& e, const std::vector<TypePtr>& ts) {
    TypePtr t = ts[0];
    if (!IsDyn(t) && t->kind == K::kOptional) t = t->elem;
    if (IsDyn(t)) return DynType();
    if (t->kind == K::kList) {
      if (!IsDyn(ts[1]) && ts[1]->kind != K::kInt && ts[1]->kind != K::kUint && ts[1]->kind != K::kDouble) NoOverload(e, ts, false);
      return t->elem;
    }
    if (t->kind == K::kMap) return t->elem;
    if (t->kind == K::kObject) return t->elem ? t->elem : DynType();
    NoOverload(e, ts, false);
    return DynType();
  }

  TypePtr VisitMacro(const Expr& e, const Scope* sc) {
    TypePtr range = Visit(*e.target, sc);
    TypePtr var = DynType();
    if (e.macro == MacroKind::kOptMap || e.macro == MacroKind::kOptFlatMap) {
      if (!IsDyn(range) && range->kind == K::kOptional) var = range->elem;
      Scope s{e.name, var, sc};
      TypePtr r = Visit(*e.args[0], &s);
      return e.macro == MacroKind::kOptMap ? OptionalOf(r) : r;
    }
    if (!IsDyn(range)) {
      if (range->kind == K::kList) {
        var = range->elem;
      } else if (range->kind == K::kMap) {
        var = range->key;
      } else if (range->kind == K::kObject) {
        var = Primitive(K::kString);
      } else {
        Report(e.target->offset, "expression of type '" + TypeString(*range) + "' cannot be range of a comprehension (must be list, map, or dynamic)");
      }
    }
    Scope s{e.name, var, sc};
    std::vector<TypePtr> rs;
    for (const auto& a : e.args) rs.push_back(Visit(*a, &s));
    switch (e.macro) {
      case MacroKind::kAll:
      case MacroKind::kExists:
      case MacroKind::kExistsOne:
        if (!KindMatches(K::kBool, rs[0])) {
          Report(e.args[0]->offset, "found no matching overload for '" + std::string(e.macro == MacroKind::kExists ? "_||_" : (e.macro == MacroKind::kAll ? "_&&_" : "_?_:_")) +
                                        "' applied to '(bool, " + TypeString(*rs[0]) + ")'");
        }
        return Primitive(K::kBool);
      case MacroKind::kMap: return ListOf(rs[0]);
      case MacroKind::kMapFilter: return ListOf(rs[1]);
      case MacroKind::kFilter: return ListOf(var);
      default: return DynType();
    }
  }

  void NoOverload(const Expr& e, const std::vector<TypePtr>& ts, bool member) {
    Report(e.offset, "found no matching overload for '" + e.name + "' applied to '" + Signature(ts, member) + "'");
  }

  void Report(int32_t off, std::string msg) {
    Issue is;
    OffsetToLocation(src_, off, &is.line, &is.column);
    is.message = std::move(msg);
    issues_.push_back(std::move(is));
  }

  const Env& env_;
  std::string_view src_;
  std::vector<Issue>& issues_;
};

}  // namespace

TypePtr Check(const Expr& e, const Env& env, std::string_view source, std::vector<Issue>& issues) {
  Checker c(env, source, issues);
  return c.Visit(e, nullptr);
}

}  // namespace capstan::cel
