// Fuzz target: the first input byte picks what the rest is.
//   0  a JSON patch body          1  a merge patch body
//   2  a strategic merge patch with the pod schema     3  the same without a schema
//   4  a schema (a CRD's openAPIV3Schema) to validate, prune and default the seed object with
// Results of successful patches are validated, pruned and defaulted with the pod schema too.
// Any input must end in a value or a Status: no crash, no hang, no sanitizer report.
#include <boost/json/parse.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "apimachinery/json_patch.h"
#include "apimachinery/merge_patch.h"
#include "apimachinery/schema_default.h"
#include "apimachinery/schema_prune.h"
#include "apimachinery/schema_registry.h"
#include "apimachinery/schema_validate.h"
#include "apimachinery/unstructured_convert.h"
#include "apimachinery/strategic_merge_patch.h"

namespace {

using namespace capstan::apimachinery;

constexpr std::string_view kSeed = R"({"apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"web","namespace":"default","labels":{"app":"web"},"finalizers":["a","b"]},
  "spec":{"containers":[{"name":"app","image":"nginx:1","args":["-v"],
                         "ports":[{"containerPort":80,"name":"http"},{"containerPort":443}]},
                        {"name":"side","image":"busybox"}],
          "volumes":[{"name":"data","emptyDir":{}}],"nodeSelector":{"zone":"a"},"replicas":3}})";

constexpr std::string_view kDefinitions = R"({"definitions":{
  "Pod":{"type":"object","properties":{"apiVersion":{"type":"string"},"kind":{"type":"string"},
      "metadata":{"$ref":"#/definitions/ObjectMeta"},"spec":{"$ref":"#/definitions/PodSpec"}}},
  "ObjectMeta":{"type":"object","properties":{"name":{"type":"string","maxLength":253,"format":"k8s-long-name"},
      "namespace":{"type":"string"},
      "labels":{"type":"object","additionalProperties":{"type":"string"}},
      "finalizers":{"type":"array","items":{"type":"string"},"x-kubernetes-patch-strategy":"merge",
                    "x-kubernetes-list-type":"set"}}},
  "PodSpec":{"type":"object","required":["containers"],"properties":{
      "replicas":{"type":"integer","format":"int32","minimum":0,"maximum":100,"default":1},
      "containers":{"type":"array","minItems":1,"items":{"$ref":"#/definitions/Container"},
                    "x-kubernetes-patch-merge-key":"name","x-kubernetes-patch-strategy":"merge",
                    "x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"]},
      "volumes":{"type":"array","items":{"$ref":"#/definitions/Volume"},
                 "x-kubernetes-patch-merge-key":"name","x-kubernetes-patch-strategy":"merge,retainKeys"},
      "nodeSelector":{"type":"object","additionalProperties":{"type":"string"},"x-kubernetes-patch-strategy":"replace"},
      "extra":{"x-kubernetes-preserve-unknown-fields":true}}},
  "Container":{"type":"object","required":["name"],"properties":{
      "name":{"type":"string","pattern":"^[a-z0-9-]+$"},"image":{"type":"string","minLength":1},
      "args":{"type":"array","items":{"type":"string"}},
      "ports":{"type":"array","items":{"type":"object","properties":{
          "containerPort":{"type":"integer","minimum":1,"maximum":65535},"name":{"type":"string"},
          "protocol":{"type":"string","enum":["TCP","UDP","SCTP"],"default":"TCP"}}},
          "x-kubernetes-patch-merge-key":"containerPort","x-kubernetes-patch-strategy":"merge"}}},
  "Volume":{"type":"object","properties":{"name":{"type":"string"},"emptyDir":{"type":"object"},
      "hostPath":{"type":"object","properties":{"path":{"type":"string"}}},
      "configMap":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}})";

struct Fixture {
  boost::json::value seed = boost::json::parse(kSeed);
  std::shared_ptr<SchemaRegistry> registry = std::make_shared<SchemaRegistry>();
  const Schema* pod = nullptr;
  Fixture() {
    if (!registry->AddDocumentJson(kDefinitions).ok() || !registry->Resolve().ok()) __builtin_trap();
    pod = registry->Find("Pod");
  }
};

void CheckWithSchema(boost::json::value v, const Schema* schema) {
  (void)FromUnstructuredError(v, schema);
  (void)ValidateBySchema(*schema, v);
  PruneNonNullableNullsWithoutDefaults(v, schema);
  (void)PruneBySchema(v, schema, true);
  ApplyDefaults(v, schema);
  (void)ValidateBySchema(*schema, v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static Fixture f;
  if (size < 1) return 0;
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  capstan::StatusOr<boost::json::value> out = capstan::Status();
  switch (data[0] % 5) {
    case 0: out = ApplyJsonPatch(f.seed, body); break;
    case 1: out = ApplyMergePatch(f.seed, body); break;
    case 2: out = ApplyStrategicMergePatch(f.seed, body, f.pod); break;
    case 3: out = ApplyStrategicMergePatch(f.seed, body, nullptr); break;
    case 4: {
      auto schema = ParseSchemaJson(body, f.registry);
      if (schema.ok()) CheckWithSchema(f.seed, schema->get());
      return 0;
    }
  }
  if (out.ok()) CheckWithSchema(std::move(out).value(), f.pod);
  return 0;
}
