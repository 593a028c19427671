// cel/program.h: compiling CEL source against an environment into a Program, and running it.
//
// An Env is the set of functions (the libraries kube-apiserver enables) and declared variables with
// their types. Compile parses, resolves every identifier and function (cel-go's checker texts:
// "undeclared reference to 'x' (in container '')"), type-checks what the declarations let it know
// (checker.h), and returns a Program or cel-go's rendered issues ("ERROR: <input>:1:5: ...").
// A Program is immutable: compile once, evaluate from any number of threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cel/ast.h"
#include "cel/functions.h"
#include "cel/interpreter.h"
#include "cel/parser.h"
#include "cel/types.h"

namespace capstan::cel {

struct VariableDecl {
  std::string name;
  TypePtr type;  // null: dyn
};

class Env {
 public:
  // The environment kube-apiserver 1.32 uses for CRD validation rules: cel-go's standard library,
  // optional types, ext.Strings v2, ext.Sets, and kube's lists, regex, URL, quantity, IP/CIDR and
  // format libraries.
  static std::shared_ptr<const Env> Kube();
  // The standard library alone (what cel-spec's conformance tests assume), plus optional types
  // and the strings extension.
  static std::shared_ptr<const Env> Standard();

  Env Extend(std::vector<VariableDecl> vars) const;

  const FunctionRegistry& functions() const { return *functions_; }
  const std::shared_ptr<const FunctionRegistry>& functions_ptr() const { return functions_; }
  const std::vector<VariableDecl>& variables() const { return vars_; }
  const ParseOptions& parse_options() const { return parse_; }
  const VariableDecl* FindVariable(std::string_view name) const;
  // cel.HomogeneousAggregateLiterals(): kube requires list and map literals of one type.
  bool homogeneous_literals() const { return homogeneous_literals_; }

 private:
  std::shared_ptr<const FunctionRegistry> functions_;
  std::vector<VariableDecl> vars_;
  ParseOptions parse_;
  bool homogeneous_literals_ = false;
};

struct EvalResult {
  Value value;      // an error value when evaluation failed
  uint64_t cost = 0;  // actual cost, as cel-go's cost tracker counts it
};

class Program {
 public:
  Program(std::string source, std::unique_ptr<Expr> expr, std::shared_ptr<const FunctionRegistry> fns, TypePtr type)
      : source_(std::move(source)), expr_(std::move(expr)), fns_(std::move(fns)), type_(std::move(type)) {}
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  EvalResult Eval(const Activation& act, uint64_t cost_limit = UINT64_MAX) const;
  const Expr& expr() const { return *expr_; }
  const std::string& source() const { return source_; }
  // The checked result type (dyn when the checker could not tell).
  const TypePtr& result_type() const { return type_; }
  // Whether the expression refers to the variable (kube: a rule using oldSelf is a transition rule).
  bool References(std::string_view variable) const;

 private:
  std::string source_;
  std::unique_ptr<Expr> expr_;
  std::shared_ptr<const FunctionRegistry> fns_;
  TypePtr type_;
};

struct CompileResult {
  std::unique_ptr<Program> program;  // null on failure
  std::vector<Issue> issues;
  std::string error;  // FormatIssues(source, issues)
};

// check=false skips the type checker (cel-spec's disable_check): only parse errors are reported.
CompileResult Compile(std::string_view source, const Env& env, bool check = true);

// Activation over a fixed list of name/value pairs.
class MapActivation : public Activation {
 public:
  void Bind(std::string name, Value v) { vars_.emplace_back(std::move(name), std::move(v)); }
  const Value* Resolve(std::string_view name) const override {
    for (const auto& [n, v] : vars_) {
      if (n == name) return &v;
    }
    return nullptr;
  }

 private:
  std::vector<std::pair<std::string, Value>> vars_;
};

}  // namespace capstan::cel
