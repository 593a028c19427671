// Fuzzes the CEL engine: the input is an expression, compiled against kube's environment with
// `self` and `oldSelf` bound to a small object, and evaluated with a cost limit. Nothing may crash,
// hang or exceed the limit's work; a successful compile renders no issues and a failed one some.
#include <cstdint>
#include <string>
#include <string_view>

#include "cel/program.h"

using namespace capstan::cel;

namespace {

Value Sample() {
  auto spec = std::make_shared<MapValue>();
  spec->entries.emplace_back(Value::String("replicas"), Value::Int(3));
  spec->entries.emplace_back(Value::String("name"), Value::String("web"));
  spec->entries.emplace_back(Value::String("ports"), Value::List({Value::Int(80), Value::Int(443)}));
  spec->entries.emplace_back(Value::String("ratio"), Value::Double(0.5));
  auto root = std::make_shared<MapValue>();
  root->entries.emplace_back(Value::String("spec"), Value::Map(spec));
  root->entries.emplace_back(Value::String("tags"), Value::List({Value::String("a"), Value::String("b")}));
  return Value::Map(root);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Env env = Env::Kube()->Extend({{"self", nullptr}, {"oldSelf", nullptr}});
  static const Value self = Sample();
  std::string_view in(reinterpret_cast<const char*>(data), size);
  CompileResult c = Compile(in, env);
  if (!c.program) {
    if (c.error.empty()) __builtin_trap();
    return 0;
  }
  MapActivation act;
  act.Bind("self", self);
  act.Bind("oldSelf", self);
  EvalResult r = c.program->Eval(act, 100000);
  (void)DebugString(r.value);
  return 0;
}
