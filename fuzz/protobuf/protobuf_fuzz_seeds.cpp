// Writes the protobuf fuzz target's seed corpus: a few hand-written objects encoded with the codec
// itself (so no upstream bytes are committed), each prefixed with the selector byte of
// protobuf_fuzz_targets.h. Usage: protobuf_fuzz_seeds <dir>
#include <boost/json/parse.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "api/schemas/builtin_schemas.h"
#include "apimachinery/protobuf_codec.h"
#include "protobuf_fuzz_targets.h"

using namespace capstan;
using namespace capstan::apimachinery;

namespace {

constexpr const char* kConfigMap = R"({"metadata":{"name":"cm","namespace":"default","uid":"5f0c",
  "resourceVersion":"42","generation":3,"creationTimestamp":"2024-05-01T10:20:30Z","labels":{"app":"web","tier":"fe"},
  "annotations":{"note":"x"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u",
  "controller":true}],"finalizers":["f"],"managedFields":[{"manager":"kubectl","operation":"Apply","apiVersion":"v1",
  "time":"2024-05-01T10:20:30Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]},
  "data":{"a":"1","b":"two"},"binaryData":{"bin":"AAEC"},"immutable":false})";

constexpr const char* kPod = R"({"metadata":{"name":"p","deletionTimestamp":"2024-05-01T10:21:00Z",
  "deletionGracePeriodSeconds":30},"spec":{"containers":[{"name":"c","image":"nginx:1","command":["sh","-c"],
  "ports":[{"name":"http","containerPort":80,"protocol":"TCP"}],"env":[{"name":"E","valueFrom":{"fieldRef":
  {"fieldPath":"metadata.name"}}}],"resources":{"limits":{"cpu":"500m","memory":"128Mi"},"requests":{"cpu":"0.1"}},
  "livenessProbe":{"httpGet":{"path":"/","port":"http"},"periodSeconds":5},"readinessProbe":{"tcpSocket":{"port":80}},
  "securityContext":{"runAsUser":-1,"capabilities":{"drop":["ALL"]}}}],"volumes":[{"name":"v","configMap":
  {"name":"cm","defaultMode":420}},{"name":"e","emptyDir":{"sizeLimit":"1Gi"}}],"securityContext":
  {"supplementalGroups":[1,2,3]},"tolerations":[{"key":"k","operator":"Exists","tolerationSeconds":10}]},
  "status":{"phase":"Running","startTime":"2024-05-01T10:20:31Z","conditions":[{"type":"Ready","status":"True",
  "lastTransitionTime":null}]}})";

constexpr const char* kDeployment = R"({"metadata":{"name":"d"},"spec":{"replicas":3,"selector":{"matchLabels":
  {"app":"web"},"matchExpressions":[{"key":"a","operator":"In","values":["x","y"]}]},"template":{"metadata":
  {"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"i"}]}},"strategy":{"type":"RollingUpdate",
  "rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600},
  "status":{"replicas":3,"conditions":[{"type":"Available","status":"True","lastUpdateTime":"2024-05-01T10:20:30Z"}]}})";

constexpr const char* kCrd = R"({"metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","names":
  {"plural":"widgets","kind":"Widget"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,
  "schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":
  {"type":"integer","minimum":1,"maximum":10.5},"tags":{"type":"array","items":{"type":"string"}},"mode":{"type":"string",
  "enum":["a","b"],"default":"a"}},"additionalProperties":false,"x-kubernetes-preserve-unknown-fields":true},
  "status":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}}},
  "subresources":{"status":{}}}]}})";

constexpr const char* kWatchObject = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w","resourceVersion":"9"}})";

const ProtobufCodec& Codec() {
  static const ProtobufCodec* codec = [] {
    auto* registry = new SchemaRegistry();
    for (const auto& f : api::BuiltinSchemaFiles()) {
      if (!registry->AddDocumentJson(f.text).ok()) std::abort();
    }
    if (!registry->Resolve().ok()) std::abort();
    auto c = ProtobufCodec::Create(*registry);
    if (!c.ok()) std::abort();
    return std::move(*c).release();
  }();
  return *codec;
}

uint8_t Selector(std::string_view definition) {
  for (size_t i = 0; i < fuzz::kProtobufFuzzMessageCount; ++i) {
    if (fuzz::kProtobufFuzzMessages[i] == definition) return static_cast<uint8_t>(i);
  }
  std::abort();
}

bool Write(const std::filesystem::path& dir, const std::string& name, uint8_t selector, const StatusOr<std::string>& bytes) {
  if (!bytes.ok()) {
    std::cerr << name << ": " << bytes.status().ToString() << "\n";
    return false;
  }
  std::ofstream out(dir / name, std::ios::binary);
  out.put(static_cast<char>(selector));
  out << *bytes;
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: protobuf_fuzz_seeds <dir>\n";
    return 2;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);
  const ProtobufCodec& codec = Codec();
  bool ok = true;
  ok &= Write(dir, "object_configmap", 0, codec.EncodeObject({"", "v1", "ConfigMap"}, boost::json::parse(kConfigMap)));
  ok &= Write(dir, "object_pod", 0, codec.EncodeObject({"", "v1", "Pod"}, boost::json::parse(kPod)));
  ok &= Write(dir, "object_status", 0,
              codec.EncodeObject({"", "v1", "Status"}, boost::json::parse(R"({"status":"Failure","message":"m",
                  "reason":"Invalid","code":422,"details":{"causes":[{"type":"FieldValueInvalid","field":"x"}]}})")));
  ok &= Write(dir, "object_list", 0,
              codec.EncodeObject({"", "v1", "ConfigMapList"},
                                 boost::json::parse(R"({"metadata":{"resourceVersion":"1"},"items":[{"metadata":{"name":"a"}}]})")));
  ok &= Write(dir, "configmap", Selector("io.k8s.api.core.v1.ConfigMap"),
              codec.Encode("io.k8s.api.core.v1.ConfigMap", boost::json::parse(kConfigMap)));
  ok &= Write(dir, "pod", Selector("io.k8s.api.core.v1.Pod"), codec.Encode("io.k8s.api.core.v1.Pod", boost::json::parse(kPod)));
  ok &= Write(dir, "deployment", Selector("io.k8s.api.apps.v1.Deployment"),
              codec.Encode("io.k8s.api.apps.v1.Deployment", boost::json::parse(kDeployment)));
  ok &= Write(dir, "crd", Selector("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"),
              codec.Encode("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition",
                           boost::json::parse(kCrd)));
  protobuf::EncodeOptions embed;
  embed.raw_extension_as_protobuf = true;
  ok &= Write(dir, "watch_event", Selector("io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"),
              codec.Encode("io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
                           boost::json::parse(std::string(R"({"type":"ADDED","object":)") + kWatchObject + "}"), embed));
  ok &= Write(dir, "watch_event_json", Selector("io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent"),
              codec.Encode("io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent",
                           boost::json::parse(R"({"type":"MODIFIED","object":{"a":[1,2.5,"x",null]}})")));
  return ok ? 0 : 1;
}
