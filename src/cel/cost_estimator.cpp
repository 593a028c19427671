#include "cel/cost_estimator.h"

#include <cmath>
#include <optional>
#include <string_view>

#include "cel/program.h"

namespace capstan::cel {

namespace {

constexpr uint64_t kMax = UINT64_MAX;

uint64_t Add(uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; }
uint64_t Mul(uint64_t a, uint64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kMax / b ? kMax : a * b;
}
// cel-go's MultiplyByCostFactor: ceil(size * factor).
uint64_t Factor(uint64_t size, double f) {
  double r = std::ceil(static_cast<double>(size) * f);
  return r >= 1.8e19 ? kMax : static_cast<uint64_t>(r);
}

struct Est {
  uint64_t cost = 0;
  uint64_t size = kMax;  // largest size of the value (string bytes, list items, map entries); kMax: unknown
  TypePtr type;
};

struct Scope {
  std::string_view name;
  Est value;
  const Scope* parent;
};

uint64_t SizeOf(const TypePtr& t) {
  if (t && t->max_size) return static_cast<uint64_t>(*t->max_size);
  return kMax;
}

class Estimator {
 public:
  explicit Estimator(const Env& env) : env_(env) {}

  Est Visit(const Expr& e, const Scope* sc) {
    switch (e.kind) {
      case ExprKind::kConst: {
        Est r;
        if (e.value.kind() == Kind::kString || e.value.kind() == Kind::kBytes) r.size = e.value.str().size();
        return r;
      }
      case ExprKind::kIdent: {
        std::string_view n = e.name;
        for (const Scope* s = sc; s; s = s->parent) {
          if (s->name == n) return {1, s->value.size, s->value.type};
        }
        Est r{1, kMax, nullptr};
        if (const VariableDecl* v = env_.FindVariable(n)) {
          r.type = v->type;
          r.size = SizeOf(v->type);
        }
        return r;
      }
      case ExprKind::kSelect: {
        Est t = Visit(*e.target, sc);
        if (e.test_only) return {t.cost, kMax, Primitive(TypeKind::kBool)};
        TypePtr ft = FieldType(t.type, e.name);
        return {Add(t.cost, 1), SizeOf(ft), ft};
      }
      case ExprKind::kList: {
        Est r{10, e.args.size(), nullptr};
        TypePtr elem;
        for (const auto& a : e.args) {
          Est x = Visit(*a, sc);
          r.cost = Add(r.cost, x.cost);
          if (!elem) elem = x.type;
        }
        r.type = ListOf(elem);
        return r;
      }
      case ExprKind::kMap: {
        Est r{30, e.args.size() / 2, nullptr};
        for (const auto& a : e.args) r.cost = Add(r.cost, Visit(*a, sc).cost);
        return r;
      }
      case ExprKind::kStruct: {
        Est r{40, kMax, nullptr};
        for (const auto& a : e.args) r.cost = Add(r.cost, Visit(*a, sc).cost);
        return r;
      }
      case ExprKind::kCall: return VisitCall(e, sc);
      case ExprKind::kMacro: return VisitMacro(e, sc);
    }
    return {};
  }

 private:
  static TypePtr FieldType(const TypePtr& t, const std::string& f) {
    if (!t) return nullptr;
    if (t->kind == TypeKind::kObject) {
      const TypePtr* ft = t->Field(f);
      return ft ? *ft : nullptr;
    }
    if (t->kind == TypeKind::kMap || t->kind == TypeKind::kOptional) return t->elem;
    return nullptr;
  }

  Est VisitCall(const Expr& e, const Scope* sc) {
    std::vector<Est> args;
    if (e.target) args.push_back(Visit(*e.target, sc));
    for (const auto& a : e.args) args.push_back(Visit(*a, sc));
    uint64_t sum = 0;
    for (const auto& a : args) sum = Add(sum, a.cost);
    const std::string& fn = e.name;
    auto size = [&](size_t i) { return i < args.size() ? args[i].size : kMax; };
    Est r{Add(sum, 1), kMax, nullptr};
    if (fn == "_&&_" || fn == "_||_") {
      r.cost = sum;
      r.type = Primitive(TypeKind::kBool);
    } else if (fn == "_?_:_") {
      r.cost = Add(args[0].cost, std::max(args[1].cost, args[2].cost));
      r.size = std::max(args[1].size == kMax ? 0 : args[1].size, args[2].size == kMax ? 0 : args[2].size);
      if (args[1].size == kMax || args[2].size == kMax) r.size = kMax;
      r.type = args[1].type ? args[1].type : args[2].type;
    } else if (fn == "_[_]" || fn == "_[?_]" || fn == "_?._") {
      TypePtr t = args[0].type;
      TypePtr elem;
      if (t && (t->kind == TypeKind::kList || t->kind == TypeKind::kMap || t->kind == TypeKind::kOptional)) elem = t->elem;
      if (fn == "_?._" && t) elem = FieldType(t->kind == TypeKind::kOptional ? t->elem : t, e.args[1]->value.str());
      r.type = elem;
      r.size = SizeOf(elem);
    } else if (fn == "startsWith" || fn == "endsWith") {
      r.cost = Add(sum, Factor(size(1), 0.1));
    } else if (fn == "contains" && args.size() == 2) {
      r.cost = Add(sum, Mul(Factor(size(0), 0.1), Factor(size(1), 0.1)));
    } else if ((fn == "matches" || fn == "find" || fn == "findAll") && args.size() >= 2) {
      r.cost = Add(sum, Mul(Factor(Add(size(0), 1), 0.1), Factor(size(1), 0.25)));
      r.size = size(0);
    } else if (fn == "@in") {
      r.cost = Add(sum, size(1));
    } else if (fn == "_+_" && args.size() == 2) {
      // Strings and bytes are copied (a tenth per byte); lists concatenate in O(1); numbers cost 1.
      uint64_t rs = Add(size(0), size(1));
      r.size = rs;
      r.type = args[0].type;
      TypeKind k = args[0].type ? args[0].type->kind : (args[1].type ? args[1].type->kind : TypeKind::kDyn);
      bool text = k == TypeKind::kString || k == TypeKind::kBytes;
      if (e.args[0]->kind == ExprKind::kConst && e.args[0]->value.kind() == Kind::kString) text = true;
      r.cost = text ? Add(sum, Factor(rs, 0.1)) : Add(sum, 1);
      if (!text && k != TypeKind::kList) r.size = kMax;
    } else if (fn == "_==_" || fn == "_!=_" || fn == "_<_" || fn == "_<=_" || fn == "_>_" || fn == "_>=_") {
      uint64_t smallest = std::min(size(0), size(1));
      r.cost = Add(sum, smallest == kMax ? 1 : std::max<uint64_t>(1, Factor(smallest, 0.1)));
      r.type = Primitive(TypeKind::kBool);
    } else if (fn == "size" || fn == "int" || fn == "uint" || fn == "double" || fn == "dyn" || fn == "type") {
      r.size = kMax;
      if (fn == "dyn") {
        r.size = size(0);
        r.type = args.empty() ? nullptr : args[0].type;
      }
    } else if (fn == "string" || fn == "lowerAscii" || fn == "upperAscii" || fn == "trim" || fn == "substring" ||
               fn == "charAt" || fn == "replace" || fn == "strings.quote" || fn == "join" || fn == "format") {
      // ext.Strings: linear in the receiver; the result is no larger (replace and quote can grow it).
      r.cost = Add(sum, Factor(size(0), 0.1));
      r.size = fn == "replace" ? Mul(size(0), std::max<uint64_t>(1, size(2) == kMax ? 1 : size(2))) : size(0);
      if (fn == "strings.quote") r.size = Add(Mul(size(0), 2), 2);
      r.type = Primitive(TypeKind::kString);
    } else if (fn == "split") {
      r.cost = Add(sum, Factor(size(0), 0.1));
      r.size = size(0);
      r.type = ListOf(Primitive(TypeKind::kString));
    } else if (fn == "indexOf" || fn == "lastIndexOf" || fn == "isSorted" || fn == "sum" || fn == "min" || fn == "max") {
      bool list = args[0].type && args[0].type->kind == TypeKind::kList;
      r.cost = Add(sum, list ? size(0) : Factor(size(0), 0.1));
    } else if (fn == "sets.contains" || fn == "sets.equivalent" || fn == "sets.intersects") {
      r.cost = Add(sum, Mul(size(0), size(1)));
    } else if (fn == "url" || fn == "isURL" || fn == "ip" || fn == "cidr" || fn == "isIP" || fn == "isCIDR" ||
               fn == "quantity" || fn == "isQuantity" || fn == "validate") {
      r.cost = Add(sum, Factor(size(args.size() - 1), 0.1));
    }
    return r;
  }

  Est VisitMacro(const Expr& e, const Scope* sc) {
    Est range = Visit(*e.target, sc);
    Est var;
    var.cost = 1;
    if (range.type && (range.type->kind == TypeKind::kList || range.type->kind == TypeKind::kOptional)) {
      var.type = range.type->elem;
    } else if (range.type && range.type->kind == TypeKind::kMap) {
      var.type = range.type->key;
    }
    var.size = SizeOf(var.type);
    Scope s{e.name, var, sc};
    if (e.macro == MacroKind::kOptMap || e.macro == MacroKind::kOptFlatMap) {
      Est body = Visit(*e.args[0], &s);
      return {Add(range.cost, Add(body.cost, 1)), body.size, nullptr};
    }
    uint64_t body = 0;
    for (const auto& a : e.args) body = Add(body, Visit(*a, &s).cost);
    // One iteration: the loop condition and step of cel-go's expansion around the user's part.
    uint64_t overhead = 3;
    uint64_t init = 0;
    switch (e.macro) {
      case MacroKind::kMap: case MacroKind::kMapFilter: case MacroKind::kFilter:
        overhead = 13;
        init = 10;
        break;
      case MacroKind::kExistsOne: overhead = 3; break;
      default: break;
    }
    uint64_t n = range.size;
    Est r;
    r.cost = Add(Add(range.cost, init), Add(Mul(n, Add(body, overhead)), 2));
    if (e.macro == MacroKind::kMap || e.macro == MacroKind::kMapFilter || e.macro == MacroKind::kFilter) {
      r.size = n;
      r.type = e.macro == MacroKind::kFilter ? range.type : ListOf(nullptr);
    } else {
      r.type = Primitive(TypeKind::kBool);
    }
    return r;
  }

  const Env& env_;
};

}  // namespace

uint64_t EstimateMaxCost(const Expr& e, const Env& env) {
  Estimator est(env);
  return est.Visit(e, nullptr).cost;
}

}  // namespace capstan::cel
