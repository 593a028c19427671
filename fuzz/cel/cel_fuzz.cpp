// Fuzzes the CEL engine: the input is an expression, optionally followed by "\n---\n" and a JSON
// object; the expression is compiled against kube's environment and evaluated with `self` and
// `oldSelf` bound to that object (a fixed sample when absent or not JSON) under a cost limit, and
// once more as a CRD rule against the object through the schema-typed path (cel/crd_rules.h).
// Nothing may crash, hang or run past its cost limit; a failed compile always renders its issues.
#include <boost/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>

#include "apimachinery/schema_registry.h"
#include "cel/crd_rules.h"
#include "cel/program.h"
#include "cel/schema_types.h"

using namespace capstan;
using namespace capstan::cel;
namespace json = boost::json;

namespace {

const char* kSample = R"({"spec": {"replicas": 3, "name": "web", "ports": [80, 443], "ratio": 0.5,
  "labels": {"app": "web"}, "when": "2024-01-02T03:04:05Z", "items": [{"name": "a", "port": 1}]}, "tags": ["a", "b"]})";

const char* kSchema = R"({"type": "object", "properties": {
  "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}, "name": {"type": "string"},
    "ports": {"type": "array", "items": {"type": "integer"}}, "ratio": {"type": "number"},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "when": {"type": "string", "format": "date-time"},
    "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
              "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "port": {"type": "integer"}}}}}},
  "tags": {"type": "array", "items": {"type": "string"}}}})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Env env = Env::Kube()->Extend({{"self", nullptr}, {"oldSelf", nullptr}});
  static const auto schema = *apimachinery::ParseSchema(json::parse(kSchema));
  std::string_view in(reinterpret_cast<const char*>(data), size);
  std::string_view expr = in;
  json::value obj = json::parse(kSample);
  if (size_t sep = in.find("\n---\n"); sep != std::string_view::npos) {
    expr = in.substr(0, sep);
    boost::system::error_code ec;
    json::value parsed = json::parse(in.substr(sep + 5), ec);
    if (!ec && parsed.is_object()) obj = std::move(parsed);
  }
  CompileResult c = Compile(expr, env);
  if (!c.program) {
    if (c.error.empty()) __builtin_trap();
  } else {
    Value self = JsonToValue(obj, schema.get(), true);
    MapActivation act;
    act.Bind("self", self);
    act.Bind("oldSelf", self);
    EvalResult r = c.program->Eval(act, 100000);
    // A step may overshoot the limit by the cost of the call that crossed it, never by more.
    if (r.cost > 100000 + (1u << 22)) __builtin_trap();
    (void)DebugString(r.value);
  }
  // The same expression as a rule at the root of a typed schema.
  json::value with_rule = json::parse(kSchema);
  with_rule.as_object()["x-kubernetes-validations"] = json::array{json::object{{"rule", std::string(expr)}}};
  auto s = apimachinery::ParseSchema(with_rule);
  if (!s.ok()) return 0;
  ErrorList errs;
  CheckCrdRules(**s, FieldPath("spec.versions[0].schema.openAPIV3Schema"), true, errs);
  if (auto rules = CrdRules::Build(s->get())) {
    ErrorList verrs;
    rules->Validate(obj, &obj, verrs, nullptr);
  }
  return 0;
}
