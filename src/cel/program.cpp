#include "cel/program.h"

#include "cel/checker.h"

namespace capstan::cel {

namespace {

// cel-go's standard declarations plus optional types and ext.Strings v2.
void RegisterStandardSet(FunctionRegistry& r) {
  RegisterStandardLibrary(r);
  RegisterTimeLibrary(r);
  RegisterOptionalLibrary(r);
  RegisterStringsLibrary(r);
}

std::shared_ptr<const FunctionRegistry> StandardFunctions() {
  static const auto kFns = [] {
    auto r = std::make_shared<FunctionRegistry>();
    RegisterStandardSet(*r);
    return std::shared_ptr<const FunctionRegistry>(std::move(r));
  }();
  return kFns;
}

// What kube-apiserver 1.32 adds for CRD rules (environment/base.go, versions up to 1.31 for new
// expressions: two-variable comprehensions arrive in 1.32 for stored expressions only).
std::shared_ptr<const FunctionRegistry> KubeFunctions() {
  static const auto kFns = [] {
    auto r = std::make_shared<FunctionRegistry>();
    RegisterStandardSet(*r);
    RegisterSetsLibrary(*r);
    RegisterKubeListsLibrary(*r);
    RegisterKubeRegexLibrary(*r);
    RegisterKubeUrlLibrary(*r);
    RegisterKubeQuantityLibrary(*r);
    RegisterKubeIpLibrary(*r);
    RegisterKubeFormatLibrary(*r);
    return std::shared_ptr<const FunctionRegistry>(std::move(r));
  }();
  return kFns;
}

bool Refers(const Expr& e, std::string_view name, std::vector<std::string_view>& shadow) {
  if (e.kind == ExprKind::kIdent) {
    for (auto s : shadow) {
      if (s == name && e.name == name) return false;
    }
    return e.name == name;
  }
  if (e.kind == ExprKind::kMacro) {
    if (e.target && Refers(*e.target, name, shadow)) return true;
    shadow.push_back(e.name);
    bool r = false;
    for (const auto& a : e.args) r = r || Refers(*a, name, shadow);
    shadow.pop_back();
    return r;
  }
  if (e.target && Refers(*e.target, name, shadow)) return true;
  for (const auto& a : e.args) {
    if (Refers(*a, name, shadow)) return true;
  }
  return false;
}

// The dotted name of an identifier/select chain ("a.b.c"), or "" when the chain has other nodes.
std::string ChainName(const Expr& e) {
  if (e.kind == ExprKind::kIdent) return e.name;
  if (e.kind == ExprKind::kSelect && !e.test_only) {
    std::string p = ChainName(*e.target);
    return p.empty() ? "" : p + "." + e.name;
  }
  return "";
}

// Declared variables with dotted names resolve by longest prefix, as cel-go's checker resolves
// them: `a.b.c` with `a.b` declared is the field c of variable a.b.
void ResolveQualifiedNames(Expr& e, const Env& env, std::vector<std::string_view>& shadow) {
  if (e.kind == ExprKind::kSelect && !e.test_only) {
    std::string q = ChainName(e);
    if (!q.empty()) {
      std::string root = q.substr(0, q.find('.'));
      bool shadowed = false;
      for (auto s : shadow) shadowed |= s == root;
      if (!shadowed && env.FindVariable(q)) {
        e.kind = ExprKind::kIdent;
        e.name = q;
        e.target.reset();
        e.attribute = true;
        return;
      }
    }
  }
  if (e.kind == ExprKind::kMacro) {
    if (e.target) ResolveQualifiedNames(*e.target, env, shadow);
    shadow.push_back(e.name);
    for (auto& a : e.args) ResolveQualifiedNames(*a, env, shadow);
    shadow.pop_back();
    return;
  }
  if (e.target) ResolveQualifiedNames(*e.target, env, shadow);
  for (auto& a : e.args) ResolveQualifiedNames(*a, env, shadow);
}

}  // namespace

std::shared_ptr<const Env> Env::Kube() {
  static const auto kEnv = [] {
    auto e = std::make_shared<Env>();
    e->functions_ = KubeFunctions();
    e->homogeneous_literals_ = true;
    return std::shared_ptr<const Env>(std::move(e));
  }();
  return kEnv;
}

std::shared_ptr<const Env> Env::Standard() {
  static const auto kEnv = [] {
    auto e = std::make_shared<Env>();
    e->functions_ = StandardFunctions();
    return std::shared_ptr<const Env>(std::move(e));
  }();
  return kEnv;
}

Env Env::Extend(std::vector<VariableDecl> vars) const {
  Env e = *this;
  for (auto& v : vars) e.vars_.push_back(std::move(v));
  return e;
}

const VariableDecl* Env::FindVariable(std::string_view name) const {
  for (const auto& v : vars_) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

EvalResult Program::Eval(const Activation& act, uint64_t cost_limit) const {
  EvalContext ctx;
  ctx.cost_limit = cost_limit;
  EvalResult r;
  r.value = Evaluate(*expr_, act, *fns_, ctx);
  r.cost = ctx.cost;
  return r;
}

bool Program::References(std::string_view variable) const {
  std::vector<std::string_view> shadow;
  return Refers(*expr_, variable, shadow);
}

CompileResult Compile(std::string_view source, const Env& env, bool check) {
  CompileResult r;
  ParseResult p = Parse(source, env.parse_options());
  if (!p.issues.empty()) {
    r.issues = std::move(p.issues);
    r.error = FormatIssues(source, r.issues);
    return r;
  }
  bool dotted = false;
  for (const auto& v : env.variables()) dotted |= v.name.find('.') != std::string::npos;
  if (dotted) {
    std::vector<std::string_view> shadow;
    ResolveQualifiedNames(*p.expr, env, shadow);
  }
  TypePtr t = check ? Check(*p.expr, env, source, r.issues) : DynType();
  if (!r.issues.empty()) {
    r.error = FormatIssues(source, r.issues);
    return r;
  }
  r.program = std::make_unique<Program>(std::string(source), std::move(p.expr), env.functions_ptr(), std::move(t));
  return r;
}

}  // namespace capstan::cel
