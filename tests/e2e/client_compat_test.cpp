// End-to-end: what real clients see of discovery, errors, /version and the TLS handshake, each compared
// with kube-apiserver 1.32's answer: subresources of another group's kind name its group and version
// (so `kubectl drain` evicts through the eviction API and a PodDisruptionBudget holds), the
// storageVersionHash of storage-backed resources, a group's versions in kube's priority order (and
// the preferred version kubectl api-resources uses), kube's 400 for an unsupported field selector,
// an expired continue token's 410 with an inconsistent-list token, /version's build fields, the client
// CA names of the TLS handshake, `conversion: None` reporting the version asked for, and
// `kubectl get --subresource` tables.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdlib>
#include <regex>
#include <thread>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;

// kube's discovery.StorageVersionHash, computed here independently of the server.
std::string Hash(const std::string& gvk) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(gvk.data(), gvk.size(), md, &len, EVP_sha256(), nullptr);
  unsigned char out[16] = {};
  EVP_EncodeBlock(out, md, 8);
  return reinterpret_cast<const char*>(out);
}

class ClientCompatTest : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    server_ = new ServerProcess();
    cache_dir_ = new std::string(MakeTempDir("capstan-compat-kubectl-cache"));
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    delete cache_dir_;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  static CommandResult K(const std::vector<std::string>& args, const std::string& input = "",
                         const std::string& minor = "32") {
    std::vector<std::string> a = {"--cache-dir", *cache_dir_ + "/" + minor};
    a.insert(a.end(), args.begin(), args.end());
    return server_->Kubectl(a, input, minor);
  }
  static json::value GetJson(const std::string& path) {
    auto r = K({"get", "--raw", path});
    EXPECT_EQ(r.exit_code, 0) << path << ": " << r.err;
    boost::system::error_code ec;
    json::value v = json::parse(r.out, ec);
    return ec ? json::value() : v;
  }
  // The APIResource `name` of a legacy discovery document.
  static json::object Resource(const std::string& path, const std::string& name) {
    json::value doc = GetJson(path);
    if (const auto* list = doc.is_object() ? doc.as_object().if_contains("resources") : nullptr) {
      for (const auto& r : list->as_array()) {
        if (r.as_object().at("name") == name.c_str()) return r.as_object();
      }
    }
    ADD_FAILURE() << name << " not in " << path;
    return {};
  }
  static std::string Str(const json::object& o, const char* k) {
    const auto* v = o.if_contains(k);
    return v && v->is_string() ? std::string(v->as_string()) : std::string("<absent>");
  }
  static std::string Raw(const std::string& method, const std::string& path) {
    std::string req = method + " " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    return RawHttps(server_->port(), {req}, server_->data_dir() + "/pki/admin.crt",
                    server_->data_dir() + "/pki/admin.key")
        .response;
  }

  static ServerProcess* server_;
  static std::string* cache_dir_;
};
ServerProcess* ClientCompatTest::server_ = nullptr;
std::string* ClientCompatTest::cache_dir_ = nullptr;

// --- item: discovery names the group and version of another group's kind

TEST_F(ClientCompatTest, SubresourcesOfAnotherGroupsKindNameItsGroupAndVersion) {
  // "group/version/kind" of a legacy discovery entry; <absent> for a field it leaves out.
  auto gvk = [](const std::string& path, const std::string& name) {
    auto r = Resource(path, name);
    return Str(r, "group") + "/" + Str(r, "version") + "/" + Str(r, "kind");
  };
  EXPECT_EQ(gvk("/api/v1", "pods/eviction"), "policy/v1/Eviction");
  EXPECT_EQ(gvk("/api/v1", "serviceaccounts/token"), "authentication.k8s.io/v1/TokenRequest");
  EXPECT_EQ(gvk("/api/v1", "replicationcontrollers/scale"), "autoscaling/v1/Scale");
  EXPECT_EQ(gvk("/apis/apps/v1", "deployments/scale"), "autoscaling/v1/Scale");
  // A subresource of its own group's kind names neither.
  EXPECT_EQ(gvk("/api/v1", "pods/status"), "<absent>/<absent>/Pod");
}

// A node with one running pod labelled app=<app>.
void MakeNodeWithPod(const std::string& node, const std::string& pod, const std::string& app) {
  auto n = ClientCompatTest::K(
      {"create", "-f", "-"}, R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + node + R"("}})");
  ASSERT_EQ(n.exit_code, 0) << n.err;
  auto p = ClientCompatTest::K({"create", "-f", "-"},
                               R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + pod +
                                   R"(","namespace":"default","labels":{"app":")" + app +
                                   R"("}},"spec":{"nodeName":")" + node +
                                   R"(","containers":[{"name":"c","image":"busybox"}]}})");
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto st = ClientCompatTest::K({"patch", "pod", pod, "--subresource=status", "--type=merge", "-p",
                                 R"({"status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}})"});
  ASSERT_EQ(st.exit_code, 0) << st.err;
}

TEST_F(ClientCompatTest, DrainEvictsThroughTheEvictionApiAndAPdbKeepsThePod) {
  MakeNodeWithPod("drain-n1", "drain-p1", "drain-x");
  auto pdb = K({"create", "pdb", "drain-pdb1", "--selector=app=drain-x", "--min-available=1"});
  ASSERT_EQ(pdb.exit_code, 0) << pdb.err;
  auto drain = K({"drain", "drain-n1", "--force", "--timeout=8s", "-v=6"});
  EXPECT_NE(drain.exit_code, 0) << drain.out;
  // kubectl 1.32 logs `POST https://.../eviction 429 Too Many Requests`; 1.33 logs
  // `"Response" verb="POST" url="https://.../eviction" status="429 Too Many Requests"`.
  const std::string eviction = "/api/v1/namespaces/default/pods/drain-p1/eviction";
  EXPECT_TRUE(Contains(drain.err, eviction + " 429") || Contains(drain.err, eviction + "\" status=\"429"))
      << drain.err;
  EXPECT_FALSE(Contains(drain.err, "DELETE https") || Contains(drain.err, "verb=\"DELETE\"")) << drain.err;
  EXPECT_NE(drain.err.find("Cannot evict pod as it would violate the pod's disruption budget."), std::string::npos)
      << drain.err;
  auto still = K({"get", "pod", "drain-p1", "-o", "name"});
  EXPECT_EQ(still.exit_code, 0) << still.err;
  EXPECT_EQ(still.out, "pod/drain-p1\n");
}

TEST_F(ClientCompatTest, DrainServerDryRunReturns) {
  MakeNodeWithPod("drain-n2", "drain-p2", "drain-y");
  auto drain = K({"drain", "drain-n2", "--force", "--dry-run=server", "--timeout=20s"});
  EXPECT_EQ(drain.exit_code, 0) << drain.out << drain.err;
  EXPECT_NE(drain.out.find("evicting pod default/drain-p2 (server dry run)"), std::string::npos) << drain.out;
  EXPECT_NE(drain.out.find("node/drain-n2 drained (server dry run)"), std::string::npos) << drain.out;
  auto still = K({"get", "pod", "drain-p2", "-o", "name"});
  EXPECT_EQ(still.out, "pod/drain-p2\n") << still.err;
}

// --- item: storageVersionHash

TEST_F(ClientCompatTest, StorageVersionHashIsKubesForEveryStorageBackedResource) {
  EXPECT_EQ(Str(Resource("/api/v1", "pods"), "storageVersionHash"), "xPOwRZ+Yhw8=");
  EXPECT_EQ(Str(Resource("/api/v1", "configmaps"), "storageVersionHash"), "qFsyl6wFWjQ=");
  EXPECT_EQ(Str(Resource("/api/v1", "namespaces"), "storageVersionHash"), "Q3oi5N2YM8M=");
  EXPECT_EQ(Str(Resource("/apis/apps/v1", "deployments"), "storageVersionHash"), "8aSe+NMegvE=");
  // A version served by conversion publishes its storage version's hash.
  EXPECT_EQ(Str(Resource("/apis/autoscaling/v1", "horizontalpodautoscalers"), "storageVersionHash"),
            Hash("autoscaling/v2/HorizontalPodAutoscaler"));
  EXPECT_EQ(Str(Resource("/apis/events.k8s.io/v1", "events"), "storageVersionHash"), Hash("/v1/Event"));
  // Subresources and resources that store nothing have none.
  EXPECT_EQ(Str(Resource("/api/v1", "pods/status"), "storageVersionHash"), "<absent>");
  EXPECT_EQ(Str(Resource("/apis/authentication.k8s.io/v1", "tokenreviews"), "storageVersionHash"), "<absent>");
  // Every storage-backed resource of /api/v1 has one.
  json::value v1 = GetJson("/api/v1");
  for (const auto& r : v1.at("resources").as_array()) {
    const auto& o = r.as_object();
    std::string name(o.at("name").as_string());
    if (name.find('/') != std::string::npos || name == "bindings" || name == "componentstatuses") continue;
    std::string kind(o.at("kind").as_string());
    EXPECT_EQ(Str(o, "storageVersionHash"), Hash("/v1/" + kind)) << name;
  }
}

const char* kMultiVersionCrd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"alertmanagerconfigs.monitoring.example.com"},
 "spec":{"group":"monitoring.example.com","scope":"Namespaced",
  "names":{"plural":"alertmanagerconfigs","singular":"alertmanagerconfig","kind":"AlertmanagerConfig"},
  "versions":[
   {"name":"v1alpha1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
   {"name":"v1beta1","served":true,"storage":false,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";
const char* kV1Crd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"prometheuses.monitoring.example.com"},
 "spec":{"group":"monitoring.example.com","scope":"Namespaced",
  "names":{"plural":"prometheuses","singular":"prometheus","kind":"Prometheus"},
  "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";

const char* kAlphaOnlyCrd = R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"scrapeconfigs.monitoring.example.com"},
 "spec":{"group":"monitoring.example.com","scope":"Namespaced",
  "names":{"plural":"scrapeconfigs","singular":"scrapeconfig","kind":"ScrapeConfig"},
  "versions":[{"name":"v1alpha1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}})";

TEST_F(ClientCompatTest, CustomResourcesPublishTheirStorageVersionsHash) {
  ASSERT_EQ(K({"apply", "-f", "-"}, kMultiVersionCrd).exit_code, 0);
  ASSERT_EQ(K({"wait", "--for=condition=Established", "--timeout=20s", "crd/alertmanagerconfigs.monitoring.example.com"})
                .exit_code,
            0);
  const std::string want = Hash("monitoring.example.com/v1alpha1/AlertmanagerConfig");
  EXPECT_EQ(Str(Resource("/apis/monitoring.example.com/v1alpha1", "alertmanagerconfigs"), "storageVersionHash"), want);
  EXPECT_EQ(Str(Resource("/apis/monitoring.example.com/v1beta1", "alertmanagerconfigs"), "storageVersionHash"), want);
}

// --- item: a group's versions in kube's priority order

TEST_F(ClientCompatTest, GroupVersionsInKubePriorityOrder) {
  // As prometheus-operator's CRDs come: alpha and beta, then GA, then alpha only. Whatever the order,
  // the group lists v1, v1beta1, v1alpha1.
  for (const char* crd : {kMultiVersionCrd, kV1Crd, kAlphaOnlyCrd}) {
    ASSERT_EQ(K({"apply", "-f", "-"}, crd).exit_code, 0);
    ASSERT_EQ(K({"wait", "--for=condition=Established", "--timeout=20s", "crd", "--all"}).exit_code, 0);
  }
  for (int i = 0; i < 50 && GetJson("/apis/monitoring.example.com/v1alpha1").as_object().at("resources").as_array().size() < 2;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  json::value group = GetJson("/apis/monitoring.example.com");
  std::vector<std::string> versions;
  for (const auto& v : group.at("versions").as_array()) versions.emplace_back(v.at("version").as_string());
  EXPECT_EQ(versions, (std::vector<std::string>{"v1", "v1beta1", "v1alpha1"}));
  EXPECT_EQ(group.at("preferredVersion").at("version"), "v1");
  // /apis lists the group the same way.
  json::value all = GetJson("/apis");
  for (const auto& g : all.at("groups").as_array()) {
    if (g.at("name") != "monitoring.example.com") continue;
    std::vector<std::string> listed;
    for (const auto& v : g.at("versions").as_array()) listed.emplace_back(v.at("version").as_string());
    EXPECT_EQ(listed, versions);
  }
  // kubectl api-resources takes each resource from the first version that has it.
  auto ar = K({"api-resources", "--api-group=monitoring.example.com", "--no-headers"});
  ASSERT_EQ(ar.exit_code, 0) << ar.err;
  EXPECT_TRUE(std::regex_search(ar.out, std::regex("alertmanagerconfigs +monitoring.example.com/v1beta1 ")))
      << ar.out;
  // Built-in groups too: autoscaling v2 before v1.
  json::value autoscaling = GetJson("/apis/autoscaling");
  EXPECT_EQ(autoscaling.at("versions").at(0).at("version"), "v2");
  EXPECT_EQ(autoscaling.at("versions").at(1).at("version"), "v1");
}

// --- item: unsupported field selectors

TEST_F(ClientCompatTest, UnsupportedFieldSelectorIsKubesBadRequest) {
  // A kind without a field label conversion of its own: kube's default conversion's text.
  auto cm = K({"get", "configmaps", "--field-selector", "data.x=y"});
  EXPECT_NE(cm.exit_code, 0);
  EXPECT_NE(cm.err.find(R"(Error from server (BadRequest): Unable to find "/v1, Resource=configmaps" that match )"
                        R"(label selector "", field selector "data.x=y": "data.x" is not a known field selector: )"
                        R"(only "metadata.name", "metadata.namespace")"),
            std::string::npos)
      << cm.err;
  // The same for a cluster-scoped kind (metadata.namespace is known to the default conversion).
  auto pv = K({"get", "persistentvolumes", "--field-selector", "name=x"});
  EXPECT_NE(pv.err.find(R"("name" is not a known field selector: only "metadata.name", "metadata.namespace")"),
            std::string::npos)
      << pv.err;
  EXPECT_EQ(K({"get", "clusterroles", "--field-selector", "metadata.namespace=", "-o", "name"}).exit_code, 0);
  // A kind with its own list says so in its own words.
  auto pod = K({"get", "pods", "--field-selector", "data.x=y"});
  EXPECT_NE(pod.err.find("field label not supported: data.x"), std::string::npos) << pod.err;
  auto job = K({"get", "jobs", "--field-selector", "data.x=y"});
  EXPECT_NE(job.err.find(R"(field label "data.x" not supported for Job)"), std::string::npos) << job.err;
  // apps/v1 ReplicaSets have no conversion of their own.
  auto rs = K({"get", "replicasets", "--field-selector", "status.replicas=1"});
  EXPECT_NE(rs.err.find(R"("status.replicas" is not a known field selector)"), std::string::npos) << rs.err;
  // 400 BadRequest on the wire.
  std::string raw = Raw("GET", "/api/v1/namespaces/default/configmaps?fieldSelector=data.x%3Dy");
  EXPECT_EQ(HttpStatusOf(raw), 400) << raw;
  EXPECT_NE(raw.find(R"("reason":"BadRequest")"), std::string::npos) << raw;
}

// --- every Status body: Go's JSON bytes

TEST_F(ClientCompatTest, StatusBodiesAreGosBytesOnEveryPath) {
  // The filters' answers (here the authorization filter's 403 to an anonymous request, with kube's
  // sanitized path) and the handlers' answers escape <, > and & as Go's encoder does.
  std::string req = "GET /apis/%3Cx%3E&y HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  std::string forbidden = RawHttps(server_->port(), {req}).response;
  EXPECT_EQ(HttpStatusOf(forbidden), 403) << forbidden;
  EXPECT_TRUE(Contains(forbidden, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                                  R"("message":"forbidden: User \"system:anonymous\" cannot get path )"
                                  R"(\"/apis/\u0026lt;x\u0026gt;\u0026amp;y\"","reason":"Forbidden","details":{},"code":403})"))
      << forbidden;
  std::string missing = Raw("GET", "/api/v1/namespaces/default/configmaps/a%3Cb");
  EXPECT_TRUE(Contains(missing, R"("message":"configmaps \"a\u003cb\" not found","reason":"NotFound",)"
                                R"("details":{"name":"a\u003cb","kind":"configmaps"},"code":404})"))
      << missing;
}

// --- item: /version

TEST_F(ClientCompatTest, VersionCarriesTheBuildAsKubesVersionPackageDoes) {
  auto r = K({"version", "-o", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json::value v = json::parse(r.out);
  const auto& sv = v.at("serverVersion").as_object();
  std::string go(sv.at("goVersion").as_string());
  EXPECT_FALSE(go.empty());
  EXPECT_EQ(go.find_first_of(" \t\n", go.size() - 1), std::string::npos) << "'" << go << "'";
  EXPECT_TRUE(std::regex_match(std::string(sv.at("buildDate").as_string()),
                               std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")))
      << sv.at("buildDate");
  // Built from a git checkout (as here and in CI): its commit and tree state; else both empty.
  const char* src = std::getenv("CAPSTAN_SOURCE_DIR");
  bool git = src && RunCommand({"git", "-C", src, "rev-parse", "HEAD"}).exit_code == 0;
  std::string commit(sv.at("gitCommit").as_string());
  std::string tree(sv.at("gitTreeState").as_string());
  if (git) {
    EXPECT_TRUE(std::regex_match(commit, std::regex("[0-9a-f]{40}"))) << commit;
    EXPECT_TRUE(tree == "clean" || tree == "dirty") << tree;
  } else {
    EXPECT_EQ(commit, "");
    EXPECT_EQ(tree, "");
  }
  // kubectl's YAML prints goVersion unquoted, as it does kube's.
  auto y = K({"version", "-o", "yaml"});
  EXPECT_NE(y.out.find("  goVersion: " + go + "\n"), std::string::npos) << y.out;
}

// --- item: client CA names in the TLS handshake

TEST_F(ClientCompatTest, TlsHandshakeNamesTheClientCas) {
  auto s = RunCommand({"openssl", "s_client", "-connect", "127.0.0.1:" + std::to_string(server_->port())}, "",
                      std::chrono::seconds(20));
  std::string out = s.out + s.err;
  EXPECT_NE(out.find("Acceptable client certificate CA names"), std::string::npos) << out;
  EXPECT_EQ(out.find("No client certificate CA names sent"), std::string::npos) << out;
  EXPECT_NE(out.find("CN = capstan-ca"), std::string::npos) << out;
}

// --- item: kubectl get --subresource tables

TEST_F(ClientCompatTest, SubresourceTablesPrintAsKubesPrinters) {
  auto p = K({"run", "subres-p", "--image=busybox", "--restart=Never"});
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto st = K({"get", "pod", "subres-p", "--subresource=status"});
  ASSERT_EQ(st.exit_code, 0) << st.err;
  EXPECT_TRUE(std::regex_search(st.out, std::regex("^NAME +READY +STATUS +RESTARTS +AGE\n"))) << st.out;
  auto d = K({"create", "deployment", "subres-d", "--image=busybox", "--replicas=3"});
  ASSERT_EQ(d.exit_code, 0) << d.err;
  auto sc = K({"get", "deploy", "subres-d", "--subresource=scale"});
  ASSERT_EQ(sc.exit_code, 0) << sc.err;
  EXPECT_TRUE(std::regex_search(sc.out, std::regex("^NAME +DESIRED +AVAILABLE\nsubres-d +3 +0\n$"))) << sc.out;
  auto dst = K({"get", "deploy", "subres-d", "--subresource=status"});
  EXPECT_TRUE(std::regex_search(dst.out, std::regex("^NAME +READY +UP-TO-DATE +AVAILABLE +AGE\n"))) << dst.out;
}

// --- item: conversion None reports the version asked for

std::string VirtualServiceCrd(const std::string& storage) {
  std::string versions;
  for (const char* v : {"v1alpha3", "v1beta1", "v1"}) {
    if (!versions.empty()) versions += ",";
    versions += std::string(R"({"name":")") + v + R"(","served":true,"storage":)" + (storage == v ? "true" : "false") +
                R"(,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}})";
  }
  return R"({"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
   "metadata":{"name":"virtualservices.networking.example.io"},
   "spec":{"group":"networking.example.io","scope":"Namespaced","conversion":{"strategy":"None"},
    "names":{"plural":"virtualservices","singular":"virtualservice","kind":"VirtualService"},
    "versions":[)" + versions + "]}}";
}

TEST_F(ClientCompatTest, NoneConversionReportsTheRequestedVersionOnEveryPath) {
  ASSERT_EQ(K({"apply", "-f", "-"}, VirtualServiceCrd("v1alpha3")).exit_code, 0);
  ASSERT_EQ(K({"wait", "--for=condition=Established", "--timeout=20s", "crd/virtualservices.networking.example.io"})
                .exit_code,
            0);
  auto created = K({"create", "-f", "-"}, R"({"apiVersion":"networking.example.io/v1beta1","kind":"VirtualService",
    "metadata":{"name":"vs1","namespace":"default"},"spec":{"hosts":["a"]}})");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  // The storage version moves on: vs1 stays stored as v1alpha3 until it is written again.
  ASSERT_EQ(K({"apply", "-f", "-"}, VirtualServiceCrd("v1")).exit_code, 0);
  const std::string v1 = "virtualservices.v1.networking.example.io";
  const std::string want = "networking.example.io/v1";
  auto api_version_of = [](const std::string& doc) {
    boost::system::error_code ec;
    json::value v = json::parse(doc, ec);
    return ec ? std::string("<bad json>") : std::string(v.at("apiVersion").as_string());
  };
  std::string got;
  for (int i = 0; i < 50; ++i) {  // the storage version's change takes effect asynchronously
    got = api_version_of(K({"get", v1, "vs1", "-o", "json"}).out);
    if (got == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(got, want) << "get";
  json::value list = GetJson("/apis/networking.example.io/v1/namespaces/default/virtualservices");
  EXPECT_EQ(list.at("items").at(0).at("apiVersion"), want.c_str()) << "list";
  auto watch = K({"get", "--raw",
                  "/apis/networking.example.io/v1/namespaces/default/virtualservices?watch=true&timeoutSeconds=1"});
  EXPECT_NE(watch.out.find(R"("type":"ADDED","object":{"apiVersion":"networking.example.io/v1",)"), std::string::npos)
      << "watch: " << watch.out;
  auto patched = K({"patch", v1, "vs1", "--type=merge", "-p", R"({"spec":{"x":1}})", "-o", "json"});
  ASSERT_EQ(patched.exit_code, 0) << patched.err;
  EXPECT_EQ(api_version_of(patched.out), want) << "patch";
  auto current = K({"get", v1, "vs1", "-o", "json"});
  auto replaced = K({"replace", "-f", "-", "-o", "json"}, current.out);
  ASSERT_EQ(replaced.exit_code, 0) << replaced.err;
  EXPECT_EQ(api_version_of(replaced.out), want) << "update";
  // Another served version reads it as itself.
  EXPECT_EQ(api_version_of(K({"get", "virtualservices.v1beta1.networking.example.io", "vs1", "-o", "json"}).out),
            "networking.example.io/v1beta1");
}

// --- item: an expired continue token

TEST(ClientCompatContinueTest, ExpiredContinueTokenCarriesAnInconsistentListToken) {
  // Lists come from the store (kube delegates continued lists to etcd), compacted every second.
  ServerProcess server({"--watch-cache=false", "--etcd-compaction-interval=1s"});
  ASSERT_TRUE(server.ok()) << server.error();
  auto raw = [&](const std::string& path) {
    std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    std::string r = RawHttps(server.port(), {req}, server.data_dir() + "/pki/admin.crt",
                             server.data_dir() + "/pki/admin.key")
                        .response;
    auto body = r.find("\r\n\r\n");
    return std::make_pair(HttpStatusOf(r), body == std::string::npos ? std::string() : r.substr(body + 4));
  };
  for (const char* n : {"c1", "c2", "c3"}) {
    ASSERT_EQ(server.Kubectl({"create", "configmap", n}).exit_code, 0);
  }
  auto [code, first] = raw("/api/v1/namespaces/default/configmaps?limit=1");
  ASSERT_EQ(code, 200) << first;
  std::string token(json::parse(first).at("metadata").at("continue").as_string());
  ASSERT_FALSE(token.empty());
  // Writes move the revision on; compaction then passes the token's revision.
  std::pair<int, std::string> expired;
  for (int i = 0; i < 40; ++i) {
    ASSERT_EQ(server.Kubectl({"create", "configmap", "later-" + std::to_string(i)}).exit_code, 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    expired = raw("/api/v1/namespaces/default/configmaps?limit=1&continue=" + token);
    if (expired.first == 410) break;
  }
  ASSERT_EQ(expired.first, 410) << expired.second;
  json::value st = json::parse(expired.second);
  EXPECT_EQ(st.at("reason"), "Expired");
  EXPECT_EQ(st.at("message"),
            "The provided continue parameter is too old to display a consistent list result. You can start a new "
            "list without the continue parameter, or use the continue token in this response to retrieve the "
            "remainder of the results. Continuing with the provided token results in an inconsistent list - objects "
            "that were created, modified, or deleted between the time the first chunk was returned and now may show "
            "up in the list.");
  std::string fresh(st.at("metadata").at("continue").as_string());
  ASSERT_FALSE(fresh.empty());
  // The fresh token goes on from the same key, at the latest revision.
  auto [code2, rest] = raw("/api/v1/namespaces/default/configmaps?continue=" + fresh);
  ASSERT_EQ(code2, 200) << rest;
  std::vector<std::string> names;
  json::value page = json::parse(rest);
  for (const auto& item : page.at("items").as_array()) {
    names.emplace_back(item.at("metadata").at("name").as_string());
  }
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.front(), "c2");
}

}  // namespace
}  // namespace capstan::e2e
