// apply_fuzz: server-side apply over fuzzed apply configurations and fuzzed managedFields. Any input
// must yield a result or a Status: no crash, no hang, no sanitizer report.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/schemas/builtin_schemas.h"
#include "apimachinery/managedfields/field_manager.h"
#include "apimachinery/schema_registry.h"
#include "apimachinery/yaml.h"

namespace am = capstan::apimachinery;
namespace mf = capstan::apimachinery::managedfields;
namespace json = boost::json;

namespace {

struct Fixture {
  am::SchemaRegistry registry;
  mf::FieldManagerScope scope;
  json::object live;
  Fixture() {
    for (const auto& f : capstan::api::BuiltinSchemaFiles()) (void)registry.AddDocumentJson(f.text);
    (void)registry.Resolve();
    scope.schema = registry.Find("io.k8s.api.apps.v1.Deployment");
    scope.api_version = "apps/v1";
    scope.reset = mf::ResetScope::kStatus;
    scope.empty_object = &mf::GoZeroObject(scope.schema);
    json::object cfg = json::parse(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"a":"b"}},
      "spec":{"replicas":2,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},
      "spec":{"containers":[{"name":"c","image":"i","ports":[{"containerPort":80}],"env":[{"name":"X","value":"1"}]}],
      "volumes":[{"name":"v","emptyDir":{}}]}}}})").as_object();
    auto applied = mf::Apply(scope, nullptr, cfg, "seed", false, "2026-01-01T00:00:00Z");
    if (applied.ok()) live = std::move(*applied);
  }
};

const Fixture& F() {
  static const Fixture* f = new Fixture();
  return *f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Fixture& f = F();
  std::string_view in(reinterpret_cast<const char*>(data), size);
  am::YamlParseOptions yo;
  yo.max_bytes = 1 << 16;
  auto parsed = am::YamlToJson(in, yo);
  if (!parsed.ok()) return 0;
  json::value& v = parsed->value;
  if (v.is_array()) {
    // A managedFields array: decode, encode, decode again.
    auto m = mf::DecodeManagedFields(&v);
    if (m.ok()) {
      json::value enc = mf::EncodeManagedFields(*m);
      (void)mf::DecodeManagedFields(&enc);
    }
    json::object obj = f.live;
    obj["metadata"].as_object()["managedFields"] = v;
    mf::RecordUpdate(f.scope, &f.live, obj, "fuzz-update", "2026-01-02T00:00:00Z");
    return 0;
  }
  if (!v.is_object()) return 0;
  const json::object& cfg = v.get_object();
  bool force = size > 0 && (data[size - 1] & 1);
  auto r = mf::Apply(f.scope, &f.live, cfg, "fuzz", force, "2026-01-02T00:00:00Z");
  if (r.ok()) {
    // Re-apply (no change expected to crash) and record an update over the result.
    (void)mf::Apply(f.scope, &*r, cfg, "fuzz", force, "2026-01-03T00:00:00Z");
    json::object next = *r;
    mf::RecordUpdate(f.scope, &f.live, next, "fuzz-update", "2026-01-03T00:00:00Z");
  }
  (void)mf::Apply(f.scope, nullptr, cfg, "fuzz", false, "2026-01-02T00:00:00Z");
  mf::FieldManagerScope untyped = f.scope;
  untyped.schema = nullptr;
  untyped.empty_object = nullptr;
  (void)mf::Apply(untyped, &f.live, cfg, "fuzz", force, "2026-01-02T00:00:00Z");
  if (const auto* fv = cfg.if_contains("fieldsV1")) (void)mf::FieldSet::FromFieldsV1(*fv);
  return 0;
}
