// Decode and encode cost per object: application/vnd.kubernetes.protobuf (the schema-driven codec)
// against application/json, for a ConfigMap and a Deployment as a cluster holds them (with status and
// managedFields). JSON is measured twice: boost::json's parser/serializer, and Capstan's
// kube-compatible reader/writer (json_parse.h/json_write.h) that the API server uses for bodies.
// Every case starts from the same object; the counters report the body size.
#include <benchmark/benchmark.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "api/schemas/builtin_schemas.h"
#include "apimachinery/json_parse.h"
#include "apimachinery/json_write.h"
#include "apimachinery/protobuf_codec.h"

namespace {

using namespace capstan;
using namespace capstan::apimachinery;
namespace json = boost::json;

constexpr const char* kConfigMap = R"({"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"app-config",
"namespace":"production","uid":"6f1c0b2e-8d4a-4f6e-9c1b-2a7d3e5f9b10","resourceVersion":"4815162342",
"creationTimestamp":"2024-05-01T10:20:30Z","labels":{"app.kubernetes.io/name":"shop","app.kubernetes.io/part-of":"store",
"app.kubernetes.io/managed-by":"kubectl"},"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}"},
"managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"v1","time":"2024-05-01T10:20:30Z",
"fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:LOG_LEVEL":{},"f:CACHE_TTL":{},"f:FEATURE_FLAGS":{}},
"f:metadata":{"f:labels":{".":{},"f:app.kubernetes.io/name":{}}}}}]},
"data":{"LOG_LEVEL":"info","CACHE_TTL":"300","DATABASE_HOST":"db.production.svc.cluster.local","DATABASE_PORT":"5432",
"FEATURE_FLAGS":"checkout-v2,search-suggest,reviews","MAX_CONNECTIONS":"100","REDIS_URL":"redis://cache:6379/0",
"TIMEOUT_SECONDS":"30"}})";

constexpr const char* kDeployment = R"({"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"shop-frontend",
"namespace":"production","uid":"0b7e2c1a-5d3f-4a8b-9e6c-1f2a3b4c5d6e","resourceVersion":"4815162399","generation":12,
"creationTimestamp":"2024-05-01T10:20:30Z","labels":{"app":"shop","tier":"frontend"},"annotations":{
"deployment.kubernetes.io/revision":"7"},"managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update",
"apiVersion":"apps/v1","time":"2024-05-01T10:20:30Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},
"f:app":{},"f:tier":{}}},"f:spec":{"f:replicas":{},"f:selector":{},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},
"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{}}}}}}}},
{"manager":"kube-controller-manager","operation":"Update","apiVersion":"apps/v1","time":"2024-05-02T08:00:00Z",
"fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:availableReplicas":{},"f:conditions":{},"f:readyReplicas":{},
"f:replicas":{},"f:updatedReplicas":{}}},"subresource":"status"}]},
"spec":{"replicas":3,"selector":{"matchLabels":{"app":"shop","tier":"frontend"}},"template":{"metadata":{
"creationTimestamp":null,"labels":{"app":"shop","tier":"frontend"},"annotations":{"prometheus.io/scrape":"true",
"prometheus.io/port":"9090"}},"spec":{"volumes":[{"name":"config","configMap":{"name":"app-config","defaultMode":420}},
{"name":"cache","emptyDir":{"sizeLimit":"1Gi"}},{"name":"tls","secret":{"secretName":"shop-tls","defaultMode":420}}],
"containers":[{"name":"web","image":"registry.example.com/shop/frontend:1.24.3","ports":[{"name":"http","containerPort":8080,
"protocol":"TCP"},{"name":"metrics","containerPort":9090,"protocol":"TCP"}],"envFrom":[{"configMapRef":{"name":"app-config"}}],
"env":[{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}},
{"name":"POD_IP","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"status.podIP"}}},{"name":"GOMAXPROCS","value":"2"}],
"resources":{"limits":{"cpu":"2","memory":"1Gi"},"requests":{"cpu":"500m","memory":"512Mi"}},"volumeMounts":[
{"name":"config","readOnly":true,"mountPath":"/etc/shop"},{"name":"cache","mountPath":"/var/cache/shop"},
{"name":"tls","readOnly":true,"mountPath":"/etc/tls"}],"livenessProbe":{"httpGet":{"path":"/healthz","port":"http",
"scheme":"HTTP"},"initialDelaySeconds":10,"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},
"readinessProbe":{"httpGet":{"path":"/ready","port":"http","scheme":"HTTP"},"timeoutSeconds":1,"periodSeconds":5,
"successThreshold":1,"failureThreshold":3},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File",
"imagePullPolicy":"IfNotPresent","securityContext":{"capabilities":{"drop":["ALL"]},"runAsNonRoot":true,
"readOnlyRootFilesystem":true,"allowPrivilegeEscalation":false}}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,
"dnsPolicy":"ClusterFirst","serviceAccountName":"shop","serviceAccount":"shop","securityContext":{"runAsUser":1000,
"fsGroup":2000},"affinity":{"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":100,
"podAffinityTerm":{"labelSelector":{"matchLabels":{"app":"shop"}},"topologyKey":"kubernetes.io/hostname"}}]}},
"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists",
"effect":"NoExecute","tolerationSeconds":300}]}},"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxUnavailable":"25%",
"maxSurge":"25%"}},"revisionHistoryLimit":10,"progressDeadlineSeconds":600},"status":{"observedGeneration":12,"replicas":3,
"updatedReplicas":3,"readyReplicas":3,"availableReplicas":3,"conditions":[{"type":"Available","status":"True",
"lastUpdateTime":"2024-05-02T08:00:00Z","lastTransitionTime":"2024-05-02T08:00:00Z","reason":"MinimumReplicasAvailable",
"message":"Deployment has minimum availability."},{"type":"Progressing","status":"True","lastUpdateTime":"2024-05-02T08:00:00Z",
"lastTransitionTime":"2024-05-01T10:20:30Z","reason":"NewReplicaSetAvailable",
"message":"ReplicaSet \"shop-frontend-7d9c8b6f5d\" has successfully progressed."}]}})";

const ProtobufCodec& Codec() {
  static const std::unique_ptr<SchemaRegistry> registry = [] {
    auto r = std::make_unique<SchemaRegistry>();
    for (const auto& f : api::BuiltinSchemaFiles()) {
      if (!r->AddDocumentJson(f.text).ok()) std::abort();
    }
    if (!r->Resolve().ok()) std::abort();
    return r;
  }();
  static const std::unique_ptr<const ProtobufCodec> codec = [] {
    auto c = ProtobufCodec::Create(*registry);
    if (!c.ok()) std::abort();
    return std::move(*c);
  }();
  return *codec;
}

struct Sample {
  GroupVersionKind gvk;
  json::value object;    // as the codec decodes it (so both formats carry the same content)
  std::string protobuf;  // "k8s\0" + Unknown
  std::string json;      // compact JSON, as kube-apiserver writes it
};

const Sample& GetSample(int which) {
  static const Sample samples[2] = {
      [] {
        Sample s;
        s.gvk = {"", "v1", "ConfigMap"};
        auto pb = Codec().EncodeObject(s.gvk, json::parse(kConfigMap));
        if (!pb.ok()) std::abort();
        s.protobuf = *pb;
        s.object = Codec().DecodeObject(s.protobuf)->object;
        s.json = ToJson(s.object);
        return s;
      }(),
      [] {
        Sample s;
        s.gvk = {"apps", "v1", "Deployment"};
        auto pb = Codec().EncodeObject(s.gvk, json::parse(kDeployment));
        if (!pb.ok()) std::abort();
        s.protobuf = *pb;
        s.object = Codec().DecodeObject(s.protobuf)->object;
        s.json = ToJson(s.object);
        return s;
      }(),
  };
  return samples[which];
}

void Label(benchmark::State& state, const Sample& s, size_t bytes) {
  state.SetLabel(s.gvk.kind);
  state.counters["body_bytes"] = static_cast<double>(bytes);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}

void BM_ProtobufDecode(benchmark::State& state) {
  const Sample& s = GetSample(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto r = Codec().DecodeObject(s.protobuf);
    benchmark::DoNotOptimize(r);
  }
  Label(state, s, s.protobuf.size());
}

void BM_ProtobufEncode(benchmark::State& state) {
  const Sample& s = GetSample(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto r = Codec().EncodeObject(s.gvk, s.object);
    benchmark::DoNotOptimize(r);
  }
  Label(state, s, s.protobuf.size());
}

void BM_BoostJsonParse(benchmark::State& state) {
  const Sample& s = GetSample(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    json::value v = json::parse(s.json);
    benchmark::DoNotOptimize(v);
  }
  Label(state, s, s.json.size());
}

void BM_BoostJsonSerialize(benchmark::State& state) {
  const Sample& s = GetSample(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::string out = json::serialize(s.object);
    benchmark::DoNotOptimize(out);
  }
  Label(state, s, s.json.size());
}

void BM_KubeJsonParse(benchmark::State& state) {
  const Sample& s = GetSample(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto r = ParseJson(s.json);
    benchmark::DoNotOptimize(r);
  }
  Label(state, s, s.json.size());
}

void BM_KubeJsonWrite(benchmark::State& state) {
  const Sample& s = GetSample(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    std::string out = ToJson(s.object);
    benchmark::DoNotOptimize(out);
  }
  Label(state, s, s.json.size());
}

// 0: ConfigMap, 1: Deployment.
BENCHMARK(BM_ProtobufDecode)->Arg(0)->Arg(1);
BENCHMARK(BM_ProtobufEncode)->Arg(0)->Arg(1);
BENCHMARK(BM_BoostJsonParse)->Arg(0)->Arg(1);
BENCHMARK(BM_BoostJsonSerialize)->Arg(0)->Arg(1);
BENCHMARK(BM_KubeJsonParse)->Arg(0)->Arg(1);
BENCHMARK(BM_KubeJsonWrite)->Arg(0)->Arg(1);

}  // namespace

BENCHMARK_MAIN();
