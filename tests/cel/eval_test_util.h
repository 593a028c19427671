// Helpers for the CEL tests: compile and evaluate an expression, render results.
#pragma once

#include <string>

#include "cel/program.h"

namespace capstan::cel::testing {

// The value, or "error: <text>" / "compile: <text>".
inline std::string EvalToString(const std::string& expr, const Env& env = *Env::Kube(),
                                const Activation* act = nullptr) {
  CompileResult c = Compile(expr, env);
  if (!c.program) return "compile: " + c.error;
  MapActivation empty;
  EvalResult r = c.program->Eval(act ? *act : empty, 1000000);
  if (r.value.IsError()) return "error: " + r.value.str();
  std::string s = DebugString(r.value);
  if (r.value.kind() == Kind::kString) return "\"" + s + "\"";
  return s;
}

}  // namespace capstan::cel::testing
