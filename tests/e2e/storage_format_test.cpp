// End-to-end: kube's storage format on a real etcd (the machine's etcd-server, started by the test).
//  - kube's own protobuf encodings (the upstream fixtures, ../shared/k8s-api-fixtures) written with
//    etcdctl under kube's keys are served: Capstan starts on that etcd and kubectl (1.32) reads every
//    kind whose fixture is at the resource's storage version, one by one and listed (watch cache);
//  - the reverse: what Capstan stores for objects kubectl creates is kube's envelope at the storage
//    version (autoscaling/v2 for an HPA created as autoscaling/v1), and decodes with the fixtures'
//    codec to the object kubectl reads back; custom resources are JSON;
//  - --storage-media-type=application/json stores JSON, and a server with the other setting reads it.
#include <gtest/gtest.h>
#include <openssl/sha.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "e2e_util.h"
#include "etcd_e2e_helpers.h"
#include "protobuf_test_util.h"
#include "storage/etcd3/etcd_test_cluster.h"
#include "util/strings.h"

namespace capstan::e2e {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using namespace etcd_e2e;

const apimachinery::ProtobufCodec& Codec() { return apimachinery::testing::BuiltinCodec(); }

// kube's discovery StorageVersionHash: base64 of the first 8 bytes of sha256("group/version/kind").
std::string StorageVersionHash(const std::string& group, const std::string& version, const std::string& kind) {
  std::string text = group + "/" + version + "/" + kind;
  unsigned char sum[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), sum);
  return Base64Encode(std::string_view(reinterpret_cast<const char*>(sum), 8));
}

// Where kube keeps a built-in resource (kube's SpecialDefaultResourcePrefixes, and the two groups
// served by their own servers whose keys carry the group).
std::string KeyRoot(const std::string& group, const std::string& resource) {
  static const std::map<std::pair<std::string, std::string>, std::string> special = {
      {{"", "replicationcontrollers"}, "controllers"},
      {{"", "endpoints"}, "services/endpoints"},
      {{"", "nodes"}, "minions"},
      {{"", "services"}, "services/specs"},
      {{"networking.k8s.io", "ingresses"}, "ingress"},
      {{"apiextensions.k8s.io", "customresourcedefinitions"}, "apiextensions.k8s.io/customresourcedefinitions"},
      {{"apiregistration.k8s.io", "apiservices"}, "apiregistration.k8s.io/apiservices"},
  };
  auto it = special.find({group, resource});
  return "/registry/" + (it != special.end() ? it->second : resource);
}

struct ServedResource {
  std::string group, version, resource, kind;
  bool namespaced = false;
};

class StorageFormatE2E : public EtcdTest {
 protected:
  StorageFormatE2E() : EtcdTest("capstan-storage-format") {}
  void StartServer(std::vector<std::string> extra = {}) {
    server_.reset();
    // Only a harmless controller: the fixtures' owner references and finalizers name objects that do
    // not exist, and a kube-apiserver runs no controllers either.
    std::vector<std::string> flags = {"--etcd-servers", etcd_->Endpoints(), "--controllers", "ttl-controller"};
    flags.insert(flags.end(), extra.begin(), extra.end());
    fs::create_directories(dir_ + "/capstan");
    server_ = std::make_unique<ServerProcess>(flags, dir_ + "/capstan");
    ASSERT_TRUE(server_->ok()) << server_->error() << "\n" << server_->log();
  }
  std::string Get(const std::string& path) { return Raw(server_->port(), server_->data_dir(), "GET", path); }
  // The bytes etcd holds under `key` (through etcdctl's JSON output, so binary values arrive whole).
  std::string EtcdValue(const std::string& key) {
    bool ok = true;
    std::string out = etcd_->Etcdctl({"get", key, "-w", "json"}, &ok);
    EXPECT_TRUE(ok) << "etcdctl get " << key;
    boost::system::error_code ec;
    auto v = json::parse(out, ec);
    if (ec || !v.is_object() || !v.as_object().contains("kvs")) return "";
    std::string raw;
    Base64Decode(std::string_view(v.at("kvs").at(0).at("value").as_string()), raw);
    return raw;
  }
  bool EtcdPut(const std::string& key, const std::string& bytes) {
    auto r = RunCommand({"/usr/bin/etcdctl", "--endpoints=" + etcd_->Endpoints(), "put", key}, bytes);
    return r.exit_code == 0;
  }
  // Every resource discovery lists, with its storageVersionHash.
  std::map<std::string, std::vector<ServedResource>> ByStorageHash() {
    std::map<std::string, std::vector<ServedResource>> out;
    auto add = [&](const std::string& group, const std::string& version, const std::string& path) {
      auto list = JsonOf(Get(path));
      if (!list.contains("resources")) return;
      for (const auto& r : list.at("resources").as_array()) {
        const auto& o = r.as_object();
        std::string name(o.at("name").as_string());
        if (name.find('/') != std::string::npos || !o.contains("storageVersionHash")) continue;
        ServedResource s{group, version, name, std::string(o.at("kind").as_string()), o.at("namespaced").as_bool()};
        out[std::string(o.at("storageVersionHash").as_string())].push_back(s);
      }
    };
    add("", "v1", "/api/v1");
    auto groups = JsonOf(Get("/apis"));
    for (const auto& g : groups.at("groups").as_array()) {
      for (const auto& v : g.at("versions").as_array()) {
        add(std::string(g.at("name").as_string()), std::string(v.at("version").as_string()),
            "/apis/" + std::string(v.at("groupVersion").as_string()));
      }
    }
    return out;
  }

};

TEST_F(StorageFormatE2E, KubesProtobufValuesWrittenWithEtcdctlAreServedToKubectl) {
  auto fixtures = apimachinery::testing::ApiFixtureDir();
  if (!fixtures) GTEST_SKIP() << "no fixtures: set CAPSTAN_API_FIXTURES to k8s-api-fixtures/HEAD";
  ASSERT_NO_FATAL_FAILURE(StartServer());
  auto served = ByStorageHash();
  ASSERT_FALSE(served.empty());
  int read_back = 0;
  std::vector<std::string> kinds;
  for (const auto& entry : fs::directory_iterator(*fixtures)) {
    if (entry.path().extension() != ".pb") continue;
    const std::string pb = apimachinery::testing::ReadFileBytes(entry.path());
    auto decoded = Codec().DecodeObject(pb);
    if (!decoded.ok()) continue;  // a kind Capstan does not have
    const auto& gvk = decoded->gvk;
    // Only fixtures at a resource's storage version: what kube-apiserver 1.32 would have written.
    auto it = served.find(StorageVersionHash(gvk.group, gvk.version, gvk.kind));
    if (it == served.end()) continue;
    const ServedResource* r = nullptr;
    for (const auto& s : it->second) {
      if (s.group == gvk.group && s.kind == gvk.kind) r = &s;
    }
    if (!r) continue;
    const auto& md = decoded->object.at("metadata").as_object();
    const std::string name(md.at("name").as_string());
    const std::string ns = r->namespaced ? std::string(md.at("namespace").as_string()) : "";
    const std::string key = KeyRoot(r->group, r->resource) + (ns.empty() ? "" : "/" + ns) + "/" + name;
    ASSERT_TRUE(EtcdPut(key, pb)) << key;
    ASSERT_EQ(EtcdValue(key), pb) << key;  // etcdctl stored the bytes as they are
    const std::string res = r->group.empty() ? r->resource : r->resource + "." + r->group;
    std::vector<std::string> args = {"get", res, name, "-o", "json"};
    if (!ns.empty()) args.insert(args.end(), {"-n", ns});
    auto got = server_->Kubectl(args);
    ASSERT_EQ(got.exit_code, 0) << entry.path() << " at " << key << ": " << got.err;
    auto obj = json::parse(got.out).as_object();
    EXPECT_EQ(obj.at("kind"), json::value(gvk.kind)) << entry.path();
    EXPECT_EQ(obj.at("metadata").at("uid"), md.at("uid")) << entry.path();
    EXPECT_EQ(obj.at("metadata").at("labels"), md.at("labels")) << entry.path();
    // The list (the watch cache, fed by its etcd watch) has it too.
    std::vector<std::string> list = {"get", res, "-o", "name"};
    list.push_back(ns.empty() ? "--all-namespaces=false" : "-A");
    bool listed = false;
    for (int i = 0; i < 50 && !listed; ++i) {
      auto l = server_->Kubectl(list);
      listed = l.exit_code == 0 && l.out.find("/" + name + "\n") != std::string::npos;
      if (!listed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(listed) << res;
    kinds.push_back(gvk.group.empty() ? gvk.kind : gvk.kind + "." + gvk.group);
    ++read_back;
  }
  std::printf("[ storage ] kinds written by etcdctl in kube's protobuf and read with kubectl 1.32: %d\n  %s\n",
              read_back, Join(kinds, " ").c_str());
  EXPECT_GE(read_back, 45);
}

TEST_F(StorageFormatE2E, WhatCapstanStoresIsKubesEnvelopeAtTheStorageVersion) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_EQ(server_->Kubectl({"create", "namespace", "fmt"}).exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "configmap", "c", "-n", "fmt", "--from-literal=colour=turquoise"}).exit_code, 0);
  ASSERT_EQ(server_->Kubectl({"create", "deployment", "d", "-n", "fmt", "--image=nginx"}).exit_code, 0);
  auto hpa = server_->Kubectl({"autoscale", "deployment", "d", "-n", "fmt", "--min=2", "--max=5", "--cpu-percent=60"});
  ASSERT_EQ(hpa.exit_code, 0) << hpa.err;
  struct Case {
    std::string key, get, api_version, kind;
  };
  for (const Case& c : std::vector<Case>{
           {"/registry/namespaces/fmt", "namespace/fmt", "v1", "Namespace"},
           {"/registry/configmaps/fmt/c", "configmap/c", "v1", "ConfigMap"},
           {"/registry/deployments/fmt/d", "deployment.apps/d", "apps/v1", "Deployment"},
           // kubectl autoscale creates autoscaling/v2 on 1.32; kube stores HPAs at autoscaling/v2.
           {"/registry/horizontalpodautoscalers/fmt/d", "horizontalpodautoscalers.v2.autoscaling/d", "autoscaling/v2",
            "HorizontalPodAutoscaler"},
       }) {
    std::string raw = EtcdValue(c.key);
    ASSERT_EQ(raw.substr(0, 4), std::string("k8s\0", 4)) << c.key << ": " << raw.substr(0, 40);
    auto decoded = Codec().DecodeObject(raw);
    ASSERT_TRUE(decoded.ok()) << c.key << ": " << decoded.status().message();
    EXPECT_EQ(decoded->gvk.ApiVersion(), c.api_version) << c.key;
    EXPECT_EQ(decoded->gvk.kind, c.kind) << c.key;
    // The stored object is the one kubectl reads (which adds only the resourceVersion).
    std::vector<std::string> args = {"get", c.get, "-o", "json", "--show-managed-fields"};
    if (c.key.find("/fmt/") != std::string::npos) args.insert(args.end(), {"-n", "fmt"});
    auto got = server_->Kubectl(args);
    ASSERT_EQ(got.exit_code, 0) << got.err;
    auto served = json::parse(got.out).as_object();
    served["metadata"].as_object().erase("resourceVersion");
    EXPECT_EQ(json::value(served), decoded->object) << c.key << "\nserved: " << json::serialize(served)
                                                     << "\nstored: " << json::serialize(decoded->object);
    // kube's codec writes the same bytes for it.
    auto again = Codec().EncodeObject(decoded->gvk, decoded->object);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, raw) << c.key;
  }
  // etcd's database size as kube reports it.
  std::string metrics;
  for (int i = 0; i < 100 && metrics.find("apiserver_storage_size_bytes{storage_cluster_id=\"etcd-0\"} ") == std::string::npos; ++i) {
    metrics = server_->Kubectl({"get", "--raw", "/metrics"}).out;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_NE(metrics.find("apiserver_storage_size_bytes{storage_cluster_id=\"etcd-0\"} "), std::string::npos);
  // An HPA read as autoscaling/v1 is converted from the stored v2.
  auto v1 = server_->Kubectl({"get", "horizontalpodautoscalers.v1.autoscaling", "d", "-n", "fmt", "-o",
                              "jsonpath={.apiVersion} {.spec.targetCPUUtilizationPercentage}"});
  EXPECT_EQ(v1.out, "autoscaling/v1 60") << v1.err;

  // Custom resources are JSON, as kube's unstructured storage codec writes them.
  const std::string crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
    "metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced",
    "names":{"plural":"widgets","singular":"widget","kind":"Widget"},"versions":[{"name":"v1","served":true,
    "storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";
  ASSERT_EQ(server_->Kubectl({"apply", "-f", "-"}, crd).exit_code, 0);
  // kube's apiextensions server stores CRDs as apiextensions.k8s.io/v1beta1 JSON (a LegacyCodec), and
  // the aggregator APIServices as JSON.
  auto stored_crd =
      json::parse(EtcdValue("/registry/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com")).as_object();
  EXPECT_EQ(stored_crd.at("apiVersion"), "apiextensions.k8s.io/v1beta1");
  EXPECT_EQ(stored_crd.at("spec").at("version"), "v1");
  EXPECT_EQ(stored_crd.at("spec").at("validation").at("openAPIV3Schema").at("type"), "object");
  EXPECT_EQ(EtcdValue("/registry/apiregistration.k8s.io/apiservices/v1.apps").substr(0, 1), "{");
  CommandResult cr = KubectlUntilOk(*server_, {"apply", "-n", "fmt", "-f", "-"},
                                    R"({"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"size":3})");
  ASSERT_EQ(cr.exit_code, 0) << cr.err;
  std::string raw_cr = EtcdValue("/registry/example.com/widgets/fmt/w");
  ASSERT_FALSE(raw_cr.empty());
  EXPECT_EQ(raw_cr[0], '{') << raw_cr;
}

// A CRD as a kube-apiserver leaves it in etcd (v1beta1 JSON, the schema at the top) is served as v1,
// its schema validates its custom resources, and discovery's storageVersionHash is kube's.
TEST_F(StorageFormatE2E, KubesV1beta1CrdInEtcdIsServedAsV1WithItsSchema) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_TRUE(EtcdPut("/registry/apiextensions.k8s.io/customresourcedefinitions/olds.example.com",
                      R"({"kind":"CustomResourceDefinition","apiVersion":"apiextensions.k8s.io/v1beta1",
    "metadata":{"name":"olds.example.com","uid":"6f1e0c3a-0000-4000-8000-000000000001","generation":1,
      "creationTimestamp":"2024-05-01T10:00:00Z"},
    "spec":{"group":"example.com","version":"v1","names":{"plural":"olds","singular":"old","kind":"Old","listKind":"OldList"},
      "scope":"Namespaced","validation":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",
        "properties":{"size":{"type":"integer"}}}}}},
      "versions":[{"name":"v1","served":true,"storage":true}],
      "additionalPrinterColumns":[{"name":"Size","type":"integer","JSONPath":".spec.size"}],
      "conversion":{"strategy":"None"},"preserveUnknownFields":false},
    "status":{"conditions":[{"type":"NamesAccepted","status":"True","lastTransitionTime":"2024-05-01T10:00:00Z",
      "reason":"NoConflicts","message":"no conflicts found"},{"type":"Established","status":"True",
      "lastTransitionTime":"2024-05-01T10:00:00Z","reason":"InitialNamesAccepted","message":"the initial names have been accepted"}],
      "acceptedNames":{"plural":"olds","singular":"old","kind":"Old","listKind":"OldList"},"storedVersions":["v1"]}})"));
  CommandResult got = KubectlUntilOk(
      *server_, {"get", "crd", "olds.example.com", "-o",
                 "jsonpath={.apiVersion} {.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.size.type} "
                 "{.spec.versions[0].additionalPrinterColumns[0].jsonPath}"});
  EXPECT_EQ(got.out, "apiextensions.k8s.io/v1 integer .spec.size") << got.err;
  CommandResult good = KubectlUntilOk(*server_, {"apply", "-n", "default", "-f", "-"},
                                      R"({"apiVersion":"example.com/v1","kind":"Old","metadata":{"name":"ok"},"spec":{"size":3}})");
  EXPECT_EQ(good.exit_code, 0) << good.err;
  auto bad = server_->Kubectl({"apply", "-n", "default", "-f", "-"},
                              R"({"apiVersion":"example.com/v1","kind":"Old","metadata":{"name":"bad"},"spec":{"size":"three"}})");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("spec.size"), std::string::npos) << bad.err;
  // kube's hash for CRDs names their storage version, v1beta1.
  auto crds = JsonOf(Get("/apis/apiextensions.k8s.io/v1"));
  std::string hash;
  for (const auto& r : crds.at("resources").as_array()) {
    if (r.at("name") == "customresourcedefinitions") hash = std::string(r.at("storageVersionHash").as_string());
  }
  EXPECT_EQ(hash, StorageVersionHash("apiextensions.k8s.io", "v1beta1", "CustomResourceDefinition"));
  EXPECT_EQ(hash, "jfWCUB31mvA=");
}

TEST_F(StorageFormatE2E, JsonMediaTypeStoresJsonAndEitherSettingReadsBoth) {
  ASSERT_NO_FATAL_FAILURE(StartServer({"--storage-media-type", "application/json"}));
  ASSERT_EQ(server_->Kubectl({"create", "configmap", "j", "--from-literal=a=b"}).exit_code, 0);
  std::string raw = EtcdValue("/registry/configmaps/default/j");
  ASSERT_FALSE(raw.empty());
  EXPECT_EQ(raw[0], '{') << raw.substr(0, 40);
  // The default setting (protobuf) serves what the JSON setting wrote, and writes protobuf from then on.
  ASSERT_NO_FATAL_FAILURE(StartServer());
  auto got = server_->Kubectl({"get", "configmap", "j", "-o", "jsonpath={.data.a}"});
  EXPECT_EQ(got.out, "b") << got.err;
  ASSERT_EQ(server_->Kubectl({"create", "configmap", "p", "--from-literal=a=c"}).exit_code, 0);
  EXPECT_EQ(EtcdValue("/registry/configmaps/default/p").substr(0, 4), std::string("k8s\0", 4));
  // And the JSON setting reads protobuf.
  ASSERT_NO_FATAL_FAILURE(StartServer({"--storage-media-type", "application/json"}));
  got = server_->Kubectl({"get", "configmap", "p", "-o", "jsonpath={.data.a}"});
  EXPECT_EQ(got.out, "c") << got.err;
  // A value kube refuses to be configured with.
  const char* bin = std::getenv("CAPSTAN_BINARY");
  std::vector<std::string> argv = {bin ? bin : "build/capstan", "--storage-media-type", "application/cbor", "--data-dir",
                                   dir_ + "/bad", "--secure-port", "0"};
  auto bad = RunCommand(argv, "", std::chrono::seconds(30));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE((bad.out + bad.err).find("--storage-media-type \"application/cbor\" invalid, allowed values: "
                                     "application/json, application/vnd.kubernetes.protobuf, application/yaml"),
            std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace capstan::e2e
