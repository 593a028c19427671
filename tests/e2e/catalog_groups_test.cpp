// End-to-end: the catalog groups (networking, discovery, events.k8s.io, storage, scheduling, node,
// certificates, admissionregistration, apiregistration, flowcontrol) through the real kubectl 1.31 and
// 1.33 (1.33 sends protobuf bodies for `kubectl create`): discovery as `kubectl api-resources` prints
// it, the objects kube creates at start, create/get/describe/delete with kube's printer columns, the
// CSR approval subresource, events.k8s.io field selectors; and the core checks: `kubectl run`,
// `expose`, `logs`/`exec`/`port-forward`/`attach`/`proxy` on a pod no node serves, NodePort and
// ClusterIP allocation (refused twice, free after delete, kept across a restart of the server).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

std::vector<std::string> Fields(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

// The whitespace-separated words of each line, joined by one space.
std::string Squeeze(const std::string& line) {
  std::string out;
  for (const auto& f : Fields(line)) out += (out.empty() ? "" : " ") + f;
  return out;
}

// The squeezed row whose first word is `name`, or "".
std::string RowOf(const std::string& table, const std::string& name) {
  for (const auto& l : Lines(table)) {
    auto f = Fields(l);
    if (!f.empty() && f[0] == name) return Squeeze(l);
  }
  return "";
}

// A row with its AGE cell (at `age_index`) replaced by "AGE", so that rows compare exactly.
std::string WithoutAge(const std::string& row, size_t age_index) {
  auto f = Fields(row);
  if (age_index < f.size()) f[age_index] = "AGE";
  std::string out;
  for (const auto& w : f) out += (out.empty() ? "" : " ") + w;
  return out;
}

class CatalogGroupsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(MakeTempDir("capstan-e2e-groups"));
    server_ = new ServerProcess({}, *dir_);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    std::error_code ec;
    std::filesystem::remove_all(*dir_, ec);
    delete dir_;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }
  static CommandResult K(const std::vector<std::string>& args, const std::string& input = "",
                         const std::string& minor = "33") {
    return server_->Kubectl(args, input, minor);
  }
  static std::string* dir_;
  static ServerProcess* server_;
};
std::string* CatalogGroupsTest::dir_ = nullptr;
ServerProcess* CatalogGroupsTest::server_ = nullptr;

TEST_F(CatalogGroupsTest, ApiResourcesListTheCatalogGroupsAsKube) {
  auto r = K({"api-resources"}, "", "31");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> rows;
  for (const auto& l : Lines(r.out)) rows.insert(Squeeze(l));
  // kube-apiserver 1.32's rows for these groups (kubectl api-resources, default flags).
  for (const char* want : {
           "bindings v1 true Binding",
           "mutatingwebhookconfigurations admissionregistration.k8s.io/v1 false MutatingWebhookConfiguration",
           "validatingadmissionpolicies admissionregistration.k8s.io/v1 false ValidatingAdmissionPolicy",
           "validatingadmissionpolicybindings admissionregistration.k8s.io/v1 false ValidatingAdmissionPolicyBinding",
           "validatingwebhookconfigurations admissionregistration.k8s.io/v1 false ValidatingWebhookConfiguration",
           "apiservices apiregistration.k8s.io/v1 false APIService",
           "certificatesigningrequests csr certificates.k8s.io/v1 false CertificateSigningRequest",
           "endpointslices discovery.k8s.io/v1 true EndpointSlice",
           "events ev events.k8s.io/v1 true Event",
           "flowschemas flowcontrol.apiserver.k8s.io/v1 false FlowSchema",
           "prioritylevelconfigurations flowcontrol.apiserver.k8s.io/v1 false PriorityLevelConfiguration",
           "ingressclasses networking.k8s.io/v1 false IngressClass",
           "ingresses ing networking.k8s.io/v1 true Ingress",
           "networkpolicies netpol networking.k8s.io/v1 true NetworkPolicy",
           "runtimeclasses node.k8s.io/v1 false RuntimeClass",
           "priorityclasses pc scheduling.k8s.io/v1 false PriorityClass",
           "csidrivers storage.k8s.io/v1 false CSIDriver",
           "csinodes storage.k8s.io/v1 false CSINode",
           "csistoragecapacities storage.k8s.io/v1 true CSIStorageCapacity",
           "storageclasses sc storage.k8s.io/v1 false StorageClass",
           "volumeattachments storage.k8s.io/v1 false VolumeAttachment",
       }) {
    EXPECT_TRUE(rows.count(want)) << "missing: " << want << "\n" << r.out;
  }
  // Nothing beta is served by default (kube 1.32 serves none of these without --runtime-config).
  EXPECT_EQ(r.out.find("v1beta"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("v1alpha"), std::string::npos) << r.out;
}

TEST_F(CatalogGroupsTest, ObjectsKubeCreatesAtStart) {
  auto pc = K({"get", "priorityclasses"}, "", "31");
  ASSERT_EQ(pc.exit_code, 0) << pc.err;
  EXPECT_EQ(Squeeze(Lines(pc.out)[0]), "NAME VALUE GLOBAL-DEFAULT AGE PREEMPTIONPOLICY");
  EXPECT_EQ(WithoutAge(RowOf(pc.out, "system-node-critical"), 3),
            "system-node-critical 2000001000 false AGE PreemptLowerPriority");
  EXPECT_EQ(WithoutAge(RowOf(pc.out, "system-cluster-critical"), 3),
            "system-cluster-critical 2000000000 false AGE PreemptLowerPriority");
  auto del = K({"delete", "priorityclass", "system-node-critical"});
  EXPECT_NE(del.exit_code, 0);
  EXPECT_NE(del.err.find("this is a system priority class and cannot be deleted"), std::string::npos) << del.err;

  auto fs = K({"get", "flowschemas"});
  ASSERT_EQ(fs.exit_code, 0) << fs.err;
  EXPECT_EQ(Squeeze(Lines(fs.out)[0]), "NAME PRIORITYLEVEL MATCHINGPRECEDENCE DISTINGUISHERMETHOD AGE MISSINGPL");
  std::set<std::string> schemas;
  for (size_t i = 1; i < Lines(fs.out).size(); ++i) schemas.insert(Fields(Lines(fs.out)[i])[0]);
  EXPECT_EQ(schemas, (std::set<std::string>{"catch-all", "endpoint-controller", "exempt", "global-default",
                                            "kube-controller-manager", "kube-scheduler", "kube-system-service-accounts",
                                            "probes", "service-accounts", "system-leader-election", "system-node-high",
                                            "system-nodes", "workload-leader-election"}));
  EXPECT_EQ(WithoutAge(RowOf(fs.out, "exempt"), 4), "exempt exempt 1 <none> AGE False");
  EXPECT_EQ(WithoutAge(RowOf(fs.out, "service-accounts"), 4), "service-accounts workload-low 9000 ByUser AGE False");
  auto pl = K({"get", "prioritylevelconfigurations"});
  ASSERT_EQ(pl.exit_code, 0) << pl.err;
  EXPECT_EQ(Squeeze(Lines(pl.out)[0]), "NAME TYPE NOMINALCONCURRENCYSHARES QUEUES HANDSIZE QUEUELENGTHLIMIT AGE");
  EXPECT_EQ(Lines(pl.out).size(), 9u) << pl.out;
  EXPECT_EQ(WithoutAge(RowOf(pl.out, "exempt"), 6), "exempt Exempt <none> <none> <none> <none> AGE");
  EXPECT_EQ(WithoutAge(RowOf(pl.out, "global-default"), 6), "global-default Limited 20 128 6 50 AGE");

  auto as = K({"get", "apiservices"});
  ASSERT_EQ(as.exit_code, 0) << as.err;
  EXPECT_EQ(Squeeze(Lines(as.out)[0]), "NAME SERVICE AVAILABLE AGE");
  for (const char* name : {"v1.", "v1.networking.k8s.io", "v1.storage.k8s.io", "v1.scheduling.k8s.io", "v1.node.k8s.io",
                           "v1.discovery.k8s.io", "v1.events.k8s.io", "v1.certificates.k8s.io",
                           "v1.admissionregistration.k8s.io",
                           "v1.flowcontrol.apiserver.k8s.io", "v1.apps", "v2.autoscaling", "v1.autoscaling"}) {
    EXPECT_EQ(WithoutAge(RowOf(as.out, name), 3), std::string(name) + " Local True AGE") << as.out;
  }
  // The aggregator serves apiregistration.k8s.io itself: kube registers no APIService for it.
  EXPECT_EQ(RowOf(as.out, "v1.apiregistration.k8s.io"), "");
  auto spec = K({"get", "apiservice", "v1.networking.k8s.io", "-o",
                 "jsonpath={.spec.group} {.spec.groupPriorityMinimum} {.spec.versionPriority} "
                 "{.metadata.labels.kube-aggregator\\.kubernetes\\.io/automanaged}"});
  EXPECT_EQ(spec.out, "networking.k8s.io 17200 15 onstart") << spec.err;

  // The kubernetes Service's EndpointSlice, mirrored from its Endpoints.
  std::string slice;
  for (int i = 0; i < 50 && slice.empty(); ++i) {
    slice = K({"get", "endpointslice", "kubernetes", "-o",
               "jsonpath={.addressType} {.ports[0].port} {.metadata.labels.kubernetes\\.io/service-name}"})
                .out;
    if (slice.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(slice, "IPv4 " + std::to_string(server_->port()) + " kubernetes");
}

// kubectl create ingress|priorityclass|quota with 1.31 (JSON) and 1.33 (protobuf).
TEST_F(CatalogGroupsTest, CreateIngressPriorityClassQuota) {
  for (std::string v : {"31", "33"}) {
    SCOPED_TRACE("kubectl 1." + v);
    auto ing = K({"create", "ingress", "web" + v, "--class=nginx", "--rule=foo.com/bar=svc1:8080,tls=my-cert"}, "", v);
    ASSERT_EQ(ing.exit_code, 0) << ing.err;
    EXPECT_EQ(ing.out, "ingress.networking.k8s.io/web" + v + " created\n");
    auto get = K({"get", "ingress", "web" + v}, "", v);
    ASSERT_EQ(get.exit_code, 0) << get.err;
    EXPECT_EQ(Squeeze(Lines(get.out)[0]), "NAME CLASS HOSTS ADDRESS PORTS AGE");
    // ADDRESS is empty (no controller), PORTS is "80, 443".
    EXPECT_EQ(WithoutAge(RowOf(get.out, "web" + v), 5), "web" + v + " nginx foo.com 80, 443 AGE") << get.out;
    auto path = K({"get", "ingress", "web" + v, "-o",
                   "jsonpath={.spec.rules[0].http.paths[0].pathType} {.spec.tls[0].secretName} {.metadata.generation}"},
                  "", v);
    EXPECT_EQ(path.out, "Exact my-cert 1");
    auto desc = K({"describe", "ingress", "web" + v}, "", v);
    ASSERT_EQ(desc.exit_code, 0) << desc.err;
    EXPECT_TRUE(std::regex_search(desc.out, std::regex("Ingress Class: +nginx"))) << desc.out;
    EXPECT_TRUE(std::regex_search(desc.out, std::regex("my-cert terminates foo.com"))) << desc.out;
    auto bad = K({"create", "ingress", "bad" + v, "--rule=foo.com/bar=svc1:99999"}, "", v);
    EXPECT_NE(bad.exit_code, 0);
    EXPECT_NE(bad.err.find("spec.rules[0].http.paths[0].backend.service.port.number: Invalid value: 99999: must be "
                           "between 1 and 65535, inclusive"),
              std::string::npos)
        << bad.err;

    auto pc = K({"create", "priorityclass", "high" + v, "--value=1000", "--description=high priority",
                 "--preemption-policy=Never"},
                "", v);
    ASSERT_EQ(pc.exit_code, 0) << pc.err;
    EXPECT_EQ(pc.out, "priorityclass.scheduling.k8s.io/high" + v + " created\n");
    EXPECT_EQ(WithoutAge(RowOf(K({"get", "pc", "high" + v}, "", v).out, "high" + v), 3),
              "high" + v + " 1000 false AGE Never");
    auto reserved = K({"create", "priorityclass", "system-x" + v, "--value=5"}, "", v);
    EXPECT_NE(reserved.exit_code, 0);
    EXPECT_NE(reserved.err.find("priority class names with 'system-' prefix are reserved for system use only"),
              std::string::npos)
        << reserved.err;
    auto too_high = K({"create", "priorityclass", "huge" + v, "--value=1000000001"}, "", v);
    EXPECT_NE(too_high.err.find("value: Forbidden: maximum allowed value of a user defined priority is 1000000000"),
              std::string::npos)
        << too_high.err;

    auto quota = K({"create", "quota", "q" + v, "--hard=cpu=1,memory=1G,pods=2,limits.cpu=2"}, "", v);
    ASSERT_EQ(quota.exit_code, 0) << quota.err;
    EXPECT_EQ(quota.out, "resourcequota/q" + v + " created\n");
    // The quota controller writes status.hard and status.used; kube prints used/hard from the status.
    const std::string want = "q" + v + " AGE cpu: 0/1, memory: 0/1G, pods: 0/2 limits.cpu: 0/2";
    CommandResult q;
    for (int i = 0; i < 100; ++i) {
      q = K({"get", "quota", "q" + v}, "", v);
      if (WithoutAge(RowOf(q.out, "q" + v), 1) == want) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(Squeeze(Lines(q.out)[0]), "NAME AGE REQUEST LIMIT");
    EXPECT_EQ(WithoutAge(RowOf(q.out, "q" + v), 1), want) << q.out;
    EXPECT_EQ(K({"delete", "ingress", "web" + v}, "", v).exit_code, 0);
    EXPECT_EQ(K({"delete", "pc", "high" + v}, "", v).exit_code, 0);
    EXPECT_EQ(K({"delete", "quota", "q" + v}, "", v).exit_code, 0);
  }
}

constexpr const char* kObjects = R"(apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: nginx
  annotations:
    ingressclass.kubernetes.io/is-default-class: "true"
spec:
  controller: k8s.io/ingress-nginx
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: db
spec:
  podSelector:
    matchLabels:
      app: db
  ingress:
  - from:
    - podSelector:
        matchLabels:
          role: api
    ports:
    - port: 5432
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: fast
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: csi.example.com
parameters:
  type: ssd
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata:
  name: csi.example.com
spec:
  attachRequired: false
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata:
  name: node-1
spec:
  drivers:
  - name: csi.example.com
    nodeID: n1
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttachment
metadata:
  name: va1
spec:
  attacher: csi.example.com
  nodeName: node-1
  source:
    persistentVolumeName: pv-1
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata:
  name: cap1
storageClassName: fast
capacity: 10Gi
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: gvisor
handler: runsc
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: web-abc
  labels:
    kubernetes.io/service-name: web
addressType: IPv4
ports:
- name: http
  port: 80
  protocol: TCP
endpoints:
- addresses: ["10.1.2.3"]
  conditions:
    ready: true
)";

TEST_F(CatalogGroupsTest, ClusterAndNamespacedKindsWithKubesPrinters) {
  auto created = K({"create", "-f", "-"}, kObjects);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out,
            "ingressclass.networking.k8s.io/nginx created\nnetworkpolicy.networking.k8s.io/db created\n"
            "storageclass.storage.k8s.io/fast created\ncsidriver.storage.k8s.io/csi.example.com created\n"
            "csinode.storage.k8s.io/node-1 created\nvolumeattachment.storage.k8s.io/va1 created\n"
            "csistoragecapacity.storage.k8s.io/cap1 created\nruntimeclass.node.k8s.io/gvisor created\n"
            "endpointslice.discovery.k8s.io/web-abc created\n");
  struct Case {
    std::string resource, name, header, row;
    size_t age;
  };
  std::vector<Case> cases = {
      {"ingressclasses", "nginx", "NAME CONTROLLER PARAMETERS AGE", "nginx k8s.io/ingress-nginx <none> AGE", 3},
      {"networkpolicies", "db", "NAME POD-SELECTOR AGE", "db app=db AGE", 2},
      {"storageclasses", "fast", "NAME PROVISIONER RECLAIMPOLICY VOLUMEBINDINGMODE ALLOWVOLUMEEXPANSION AGE",
       "fast (default) csi.example.com Delete Immediate false AGE", 6},
      {"csidrivers", "csi.example.com",
       "NAME ATTACHREQUIRED PODINFOONMOUNT STORAGECAPACITY TOKENREQUESTS REQUIRESREPUBLISH MODES AGE",
       "csi.example.com false false false <unset> false Persistent AGE", 7},
      {"csinodes", "node-1", "NAME DRIVERS AGE", "node-1 1 AGE", 2},
      {"volumeattachments", "va1", "NAME ATTACHER PV NODE ATTACHED AGE", "va1 csi.example.com pv-1 node-1 false AGE", 5},
      {"csistoragecapacities", "cap1", "NAME STORAGECLASSNAME CAPACITY", "cap1 fast 10Gi", 99},
      {"runtimeclasses", "gvisor", "NAME HANDLER AGE", "gvisor runsc AGE", 2},
      {"endpointslices", "web-abc", "NAME ADDRESSTYPE PORTS ENDPOINTS AGE", "web-abc IPv4 80 10.1.2.3 AGE", 4},
  };
  for (const auto& c : cases) {
    for (std::string v : {"31", "33"}) {
      auto get = K({"get", c.resource, c.name}, "", v);
      ASSERT_EQ(get.exit_code, 0) << c.resource << ": " << get.err;
      auto lines = Lines(get.out);
      ASSERT_EQ(lines.size(), 2u) << get.out;
      EXPECT_EQ(Squeeze(lines[0]), c.header) << c.resource;
      EXPECT_EQ(WithoutAge(Squeeze(lines[1]), c.age), c.row) << c.resource;
    }
    auto desc = K({"describe", c.resource, c.name});
    EXPECT_EQ(desc.exit_code, 0) << c.resource << ": " << desc.err;
    EXPECT_TRUE(std::regex_search(desc.out, std::regex("Name: +" + c.name))) << desc.out;
  }
  // Defaults kube writes.
  EXPECT_EQ(K({"get", "sc", "fast", "-o", "jsonpath={.reclaimPolicy} {.volumeBindingMode}"}).out, "Delete Immediate");
  EXPECT_EQ(K({"get", "csidriver", "csi.example.com", "-o",
               "jsonpath={.spec.fsGroupPolicy} {.spec.volumeLifecycleModes} {.spec.requiresRepublish}"})
                .out,
            "ReadWriteOnceWithFSType [\"Persistent\"] false");
  EXPECT_EQ(K({"get", "netpol", "db", "-o", "jsonpath={.spec.policyTypes} {.spec.ingress[0].ports[0].protocol}"}).out,
            "[\"Ingress\"] TCP");
  // Immutable fields, as kube refuses them.
  auto sc = K({"patch", "sc", "fast", "-p", R"({"provisioner":"other.example.com"})"});
  EXPECT_NE(sc.exit_code, 0);
  EXPECT_NE(sc.err.find("provisioner: Forbidden: updates to provisioner are forbidden."), std::string::npos) << sc.err;
  auto rc = K({"patch", "runtimeclass", "gvisor", "-p", R"({"handler":"kata"})"});
  EXPECT_NE(rc.exit_code, 0);
  EXPECT_NE(rc.err.find("handler: Invalid value: \"kata\": field is immutable"), std::string::npos) << rc.err;
  auto describe_np = K({"describe", "networkpolicy", "db"});
  EXPECT_NE(describe_np.out.find("PodSelector: role=api"), std::string::npos) << describe_np.out;
  auto describe_sc = K({"describe", "storageclass", "fast"});
  EXPECT_TRUE(std::regex_search(describe_sc.out, std::regex("IsDefaultClass: +Yes"))) << describe_sc.out;

  for (const auto& c : cases) {
    auto del = K({"delete", c.resource, c.name}, "", "31");
    EXPECT_EQ(del.exit_code, 0) << c.resource << ": " << del.err;
    auto gone = K({"get", c.resource, c.name});
    EXPECT_NE(gone.err.find("NotFound"), std::string::npos) << c.resource << ": " << gone.err;
  }
}

TEST_F(CatalogGroupsTest, EventsK8sIoEventsShareCoreEvents) {
  constexpr const char* kEvent = R"(apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: scaled
eventTime: "2024-01-01T00:00:00.000000Z"
reportingController: example.com/ctl
reportingInstance: ctl-1
action: Scale
reason: Scaled
type: Normal
note: scaled up
regarding:
  kind: Pod
  name: web
  namespace: default
)";
  auto created = K({"create", "-f", "-"}, kEvent);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, "event.events.k8s.io/scaled created\n");
  // The same object in core/v1's form.
  EXPECT_EQ(K({"get", "events.v1.", "scaled", "-o", "jsonpath={.involvedObject.name} {.reportingComponent} {.message}"}).out,
            "web example.com/ctl scaled up");
  // Lists (served from the watch cache) come back in events.k8s.io's form.
  auto raw = K({"get", "--raw", "/apis/events.k8s.io/v1/namespaces/default/events?fieldSelector=regarding.name%3Dweb"});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_NE(raw.out.find(R"("apiVersion":"events.k8s.io/v1","kind":"Event")"), std::string::npos) << raw.out;
  EXPECT_NE(raw.out.find(R"("note":"scaled up")"), std::string::npos) << raw.out;
  EXPECT_EQ(raw.out.find(R"("involvedObject")"), std::string::npos) << raw.out;
  for (const char* sel : {"regarding.name=web", "regarding.kind=Pod", "reportingController=example.com/ctl",
                          "reason=Scaled,type=Normal"}) {
    auto got = K({"get", "events.events.k8s.io", "--field-selector", sel, "-o", "name"});
    EXPECT_EQ(got.out, "event.events.k8s.io/scaled\n") << sel << ": " << got.err;
  }
  EXPECT_EQ(K({"get", "events.events.k8s.io", "--field-selector", "regarding.name=other", "-o", "name"}).out, "");
  auto refused = K({"get", "events.events.k8s.io", "--field-selector", "involvedObject.name=web"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("field label not supported: involvedObject.name"), std::string::npos) << refused.err;
  auto table = K({"get", "events.events.k8s.io"});
  EXPECT_EQ(Squeeze(Lines(table.out)[0]), "LAST SEEN TYPE REASON OBJECT MESSAGE") << table.out;
  EXPECT_NE(table.out.find("pod/web"), std::string::npos) << table.out;
  EXPECT_EQ(K({"delete", "events.events.k8s.io", "scaled"}).exit_code, 0);
}

// A PEM certificate request for CN=<cn>, made with openssl.
std::string CertificateRequest(const std::string& dir, const std::string& cn) {
  std::string key = dir + "/" + cn + ".key", csr = dir + "/" + cn + ".csr";
  auto r = RunCommand({"openssl", "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                       "-keyout", key, "-subj", "/CN=" + cn + "/O=dev", "-out", csr});
  if (r.exit_code != 0) return "";
  std::ifstream in(csr);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Base64(const std::string& s) {
  static const char* kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < s.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(s[i]) << 16) | (static_cast<unsigned char>(s[i + 1]) << 8) |
                 static_cast<unsigned char>(s[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out.push_back(kAlphabet[(v >> k) & 63]);
  }
  if (i < s.size()) {
    unsigned v = static_cast<unsigned char>(s[i]) << 16;
    if (i + 1 < s.size()) v |= static_cast<unsigned char>(s[i + 1]) << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < s.size() ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

TEST_F(CatalogGroupsTest, CertificateSigningRequestsAndApproval) {
  for (std::string v : {"31", "33"}) {
    SCOPED_TRACE("kubectl 1." + v);
    std::string name = "alice" + v;
    std::string pem = CertificateRequest(*dir_, name);
    ASSERT_FALSE(pem.empty());
    std::string csr = "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: " + name +
                      "\nspec:\n  request: " + Base64(pem) +
                      "\n  signerName: kubernetes.io/kube-apiserver-client\n  expirationSeconds: 86400\n  usages:\n  - client auth\n";
    auto created = K({"create", "-f", "-"}, csr, v);
    ASSERT_EQ(created.exit_code, 0) << created.err;
    auto get = K({"get", "csr", name}, "", v);
    EXPECT_EQ(Squeeze(Lines(get.out)[0]), "NAME AGE SIGNERNAME REQUESTOR REQUESTEDDURATION CONDITION");
    auto row = Fields(RowOf(get.out, name));
    ASSERT_EQ(row.size(), 6u) << get.out;
    EXPECT_EQ(row[2], "kubernetes.io/kube-apiserver-client");
    EXPECT_EQ(row[4], "24h");
    EXPECT_EQ(row[5], "Pending");
    auto approve = K({"certificate", "approve", name}, "", v);
    ASSERT_EQ(approve.exit_code, 0) << approve.err;
    EXPECT_EQ(approve.out, "certificatesigningrequest.certificates.k8s.io/" + name + " approved\n");
    EXPECT_EQ(Fields(RowOf(K({"get", "csr", name}, "", v).out, name)).back(), "Approved");
    EXPECT_EQ(K({"get", "csr", name, "-o", "jsonpath={.status.conditions[0].type} {.status.conditions[0].reason}"}, "", v).out,
              "Approved KubectlApprove");
    auto desc = K({"describe", "csr", name}, "", v);
    EXPECT_TRUE(std::regex_search(desc.out, std::regex("Common Name: +" + name))) << desc.out;
    EXPECT_TRUE(std::regex_search(desc.out, std::regex("Status: +Approved"))) << desc.out;
    // The spec is immutable: the main resource keeps it.
    auto spec = K({"patch", "csr", name, "-p", R"({"spec":{"expirationSeconds":3600}})"}, "", v);
    EXPECT_EQ(K({"get", "csr", name, "-o", "jsonpath={.spec.expirationSeconds}"}, "", v).out, "86400") << spec.err;
    EXPECT_EQ(K({"delete", "csr", name}, "", v).exit_code, 0);
  }
  // Denial through the approval subresource.
  std::string pem = CertificateRequest(*dir_, "bob");
  std::string csr = "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: bob\nspec:\n"
                    "  request: " + Base64(pem) + "\n  signerName: example.com/custom\n  usages:\n  - digital signature\n";
  ASSERT_EQ(K({"create", "-f", "-"}, csr).exit_code, 0);
  auto deny = K({"certificate", "deny", "bob"});
  ASSERT_EQ(deny.exit_code, 0) << deny.err;
  EXPECT_EQ(Fields(RowOf(K({"get", "csr", "bob"}).out, "bob")).back(), "Denied");
}

TEST_F(CatalogGroupsTest, WebhookConfigurationsPoliciesAndApiServices) {
  // The webhooks match a group nothing serves, so that no request of the other tests calls them.
  constexpr const char* kObjects = R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: vwh
webhooks:
- name: v.example.com
  clientConfig:
    url: https://example.com/validate
  rules:
  - apiGroups: ["example.com"]
    apiVersions: ["v1"]
    operations: ["CREATE"]
    resources: ["widgets"]
  admissionReviewVersions: ["v1"]
  sideEffects: None
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mwh
webhooks:
- name: m.example.com
  clientConfig:
    url: https://example.com/mutate
  rules:
  - apiGroups: ["example.com"]
    apiVersions: ["v1"]
    operations: ["CREATE"]
    resources: ["widgets"]
  admissionReviewVersions: ["v1"]
  sideEffects: None
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: vap
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.replicas <= 5"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: vapb
spec:
  policyName: vap
  validationActions: [Deny]
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.metrics.k8s.io
spec:
  group: metrics.k8s.io
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service:
    name: metrics-server
    namespace: kube-system
)";
  auto created = K({"create", "-f", "-"}, kObjects);
  ASSERT_EQ(created.exit_code, 0) << created.err;
  struct Case {
    std::string resource, name, header, row;
    size_t age;
  };
  std::vector<Case> cases = {
      {"validatingwebhookconfigurations", "vwh", "NAME WEBHOOKS AGE", "vwh 1 AGE", 2},
      {"mutatingwebhookconfigurations", "mwh", "NAME WEBHOOKS AGE", "mwh 1 AGE", 2},
      {"validatingadmissionpolicies", "vap", "NAME VALIDATIONS PARAMKIND AGE", "vap 1 <unset> AGE", 3},
      {"validatingadmissionpolicybindings", "vapb", "NAME POLICYNAME PARAMREF AGE", "vapb vap <unset> AGE", 3},
      // The availability loop finds no Service: kube's table shows the condition's reason.
      {"apiservices", "v1beta1.metrics.k8s.io", "NAME SERVICE AVAILABLE AGE",
       "v1beta1.metrics.k8s.io kube-system/metrics-server False (ServiceNotFound) AGE", 4},
  };
  std::string reason;
  for (int i = 0; i < 300 && reason != "ServiceNotFound"; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    reason = K({"get", "apiservice", "v1beta1.metrics.k8s.io", "-o",
                R"(jsonpath={.status.conditions[?(@.type=="Available")].reason})"})
                 .out;
  }
  ASSERT_EQ(reason, "ServiceNotFound");
  for (const auto& c : cases) {
    for (std::string v : {"31", "33"}) {
      auto get = K({"get", c.resource, c.name}, "", v);
      ASSERT_EQ(get.exit_code, 0) << c.resource << ": " << get.err;
      auto lines = Lines(get.out);
      ASSERT_EQ(lines.size(), 2u) << get.out;
      EXPECT_EQ(Squeeze(lines[0]), c.header) << c.resource;
      EXPECT_EQ(WithoutAge(Squeeze(lines[1]), c.age), c.row) << c.resource;
    }
    auto desc = K({"describe", c.resource, c.name});
    EXPECT_EQ(desc.exit_code, 0) << c.resource << ": " << desc.err;
  }
  // kube's webhook defaults.
  EXPECT_EQ(K({"get", "validatingwebhookconfiguration", "vwh", "-o",
               "jsonpath={.webhooks[0].failurePolicy} {.webhooks[0].matchPolicy} {.webhooks[0].timeoutSeconds} "
               "{.webhooks[0].rules[0].scope} {.webhooks[0].namespaceSelector}"})
                .out,
            "Fail Equivalent 10 * {}");
  EXPECT_EQ(K({"get", "mutatingwebhookconfiguration", "mwh", "-o", "jsonpath={.webhooks[0].reinvocationPolicy}"}).out,
            "Never");
  auto bad = K({"create", "-f", "-"},
               "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: bad\n"
               "webhooks:\n- name: nodots\n  clientConfig:\n    url: https://example.com\n  admissionReviewVersions: [\"v1\"]\n"
               "  sideEffects: None\n");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("webhooks[0].name: Invalid value: \"nodots\": should be a domain with at least three segments "
                         "separated by dots"),
            std::string::npos)
      << bad.err;
  for (const auto& c : cases) EXPECT_EQ(K({"delete", c.resource, c.name}).exit_code, 0) << c.resource;
}

// The core checks with kubectl 1.33: run, expose, and the node-bound subresources of a pod no node serves.
TEST_F(CatalogGroupsTest, RunExposeAndNodeBoundSubresourcesWith133) {
  auto run = K({"run", "web", "--image=nginx:1.27", "--port=80", "--labels=app=web"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "pod/web created\n");
  EXPECT_EQ(K({"get", "pod", "web", "-o", "jsonpath={.spec.containers[0].imagePullPolicy} {.spec.containers[0].ports[0].containerPort} {.status.phase}"}).out,
            "IfNotPresent 80 Pending");
  auto expose = K({"expose", "pod", "web", "--port=80", "--target-port=8080", "--type=NodePort"});
  ASSERT_EQ(expose.exit_code, 0) << expose.err;
  EXPECT_EQ(expose.out, "service/web exposed\n");
  auto svc = K({"get", "svc", "web", "-o", "jsonpath={.spec.selector.app} {.spec.ports[0].targetPort} {.spec.type}"});
  EXPECT_EQ(svc.out, "web 8080 NodePort");
  auto all = K({"get", "all", "-A"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_TRUE(std::regex_search(all.out, std::regex("NAMESPACE +NAME +READY +STATUS +RESTARTS +AGE"))) << all.out;
  EXPECT_TRUE(std::regex_search(all.out, std::regex("default +pod/web +0/1 +Pending +0"))) << all.out;
  EXPECT_TRUE(std::regex_search(all.out, std::regex("NAMESPACE +NAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\\(S\\) +AGE")))
      << all.out;
  EXPECT_TRUE(std::regex_search(all.out, std::regex(R"(default +service/web +NodePort +10\.0\.0\.\d+ +<none> +80:3\d{4}/TCP)")))
      << all.out;
  EXPECT_TRUE(std::regex_search(all.out, std::regex(R"(default +service/kubernetes +ClusterIP +10\.0\.0\.1 +<none> +443/TCP)")))
      << all.out;

  // No node: logs are empty (kube returns no location), exec and attach are refused by the server,
  // port-forward by kubectl (the pod is not running), proxy by the server (no pod IP).
  auto logs = K({"logs", "web"});
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_EQ(logs.out, "");
  auto exec = K({"exec", "web", "--", "ls"});
  EXPECT_NE(exec.exit_code, 0);
  EXPECT_NE(exec.err.find("Error from server (BadRequest): pod web does not have a host assigned"), std::string::npos)
      << exec.err;
  auto attach = K({"attach", "web"});
  EXPECT_NE(attach.exit_code, 0);
  EXPECT_NE(attach.err.find("pod web does not have a host assigned"), std::string::npos) << attach.err;
  auto pf = K({"port-forward", "pod/web", "0:80"});
  EXPECT_NE(pf.exit_code, 0);
  EXPECT_NE(pf.err.find("unable to forward port because pod is not running. Current status=Pending"), std::string::npos)
      << pf.err;
  auto raw_pf = K({"get", "--raw", "/api/v1/namespaces/default/pods/web/portforward"});
  EXPECT_NE(raw_pf.err.find("pod web does not have a host assigned"), std::string::npos) << raw_pf.err;
  auto proxy = K({"get", "--raw", "/api/v1/namespaces/default/pods/web/proxy/"});
  EXPECT_NE(proxy.exit_code, 0);
  EXPECT_NE(proxy.err.find("address not allowed"), std::string::npos) << proxy.err;

  // kube's top-level bindings collection assigns a node as pods/binding does.
  auto bind = K({"create", "-f", "-"}, "apiVersion: v1\nkind: Binding\nmetadata:\n  name: web\ntarget:\n  kind: Node\n  name: node-1\n");
  ASSERT_EQ(bind.exit_code, 0) << bind.err;
  // The server answers with kube's Success Status, which kubectl names as it does for kube.
  EXPECT_EQ(bind.out, "status/<unknown> created\n");
  EXPECT_EQ(K({"get", "pod", "web", "-o", "jsonpath={.spec.nodeName}"}).out, "node-1");
  auto again = K({"create", "-f", "-"}, "apiVersion: v1\nkind: Binding\nmetadata:\n  name: web\ntarget:\n  kind: Node\n  name: node-2\n");
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("pod web is already assigned to node \"node-1\""), std::string::npos) << again.err;
}

// Explicit NodePorts and ClusterIPs are taken from the static bands (30000-30085, 10.0.0.2-10.0.0.16),
// which automatic allocation uses last (kube's split ranges), so the other tests' services cannot hold them.
TEST_F(CatalogGroupsTest, NodePortsAndClusterIPsAreNeverSharedAndFreedOnDelete) {
  auto a = K({"create", "service", "nodeport", "np-a", "--tcp=80:80", "--node-port=30010"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  auto dup = K({"create", "service", "nodeport", "np-b", "--tcp=80:80", "--node-port=30010"});
  EXPECT_NE(dup.exit_code, 0);
  EXPECT_NE(dup.err.find("Service \"np-b\" is invalid: spec.ports[0].nodePort: Invalid value: 30010: provided port is "
                         "already allocated"),
            std::string::npos)
      << dup.err;
  auto range = K({"create", "service", "nodeport", "np-c", "--tcp=80:80", "--node-port=40000"});
  EXPECT_NE(range.err.find("spec.ports[0].nodePort: Invalid value: 40000: provided port is not in the valid range. "
                           "The range of valid ports is 30000-32767"),
            std::string::npos)
      << range.err;
  ASSERT_EQ(K({"delete", "service", "np-a"}).exit_code, 0);
  auto reuse = K({"create", "service", "nodeport", "np-b", "--tcp=80:80", "--node-port=30010"});
  EXPECT_EQ(reuse.exit_code, 0) << reuse.err;
  // A changed nodePort frees the old one and holds the new one.
  auto moved = K({"patch", "svc", "np-b", "-p",
                  R"({"spec":{"ports":[{"name":"80-80","port":80,"protocol":"TCP","targetPort":80,"nodePort":30011}]}})"});
  ASSERT_EQ(moved.exit_code, 0) << moved.err;
  EXPECT_EQ(K({"create", "service", "nodeport", "np-d", "--tcp=80:80", "--node-port=30010"}).exit_code, 0);
  EXPECT_NE(K({"create", "service", "nodeport", "np-e", "--tcp=80:80", "--node-port=30011"}).err.find(
                "provided port is already allocated"),
            std::string::npos);
  // NodePort to ClusterIP releases the port.
  auto to_cip = K({"patch", "svc", "np-d", "--type=json", "-p",
                   R"([{"op":"replace","path":"/spec/type","value":"ClusterIP"},{"op":"remove","path":"/spec/ports/0/nodePort"}])"});
  ASSERT_EQ(to_cip.exit_code, 0) << to_cip.err;
  EXPECT_EQ(K({"create", "service", "nodeport", "np-f", "--tcp=80:80", "--node-port=30010"}).exit_code, 0);

  ASSERT_EQ(K({"create", "service", "clusterip", "c-a", "--clusterip=10.0.0.10", "--tcp=80"}).exit_code, 0);
  auto ip_dup = K({"create", "service", "clusterip", "c-b", "--clusterip=10.0.0.10", "--tcp=80"});
  EXPECT_NE(ip_dup.err.find("Service \"c-b\" is invalid: spec.clusterIPs: Invalid value: []string{\"10.0.0.10\"}: failed "
                            "to allocate IP 10.0.0.10: provided IP is already allocated"),
            std::string::npos)
      << ip_dup.err;
  auto ip_range = K({"create", "service", "clusterip", "c-c", "--clusterip=10.1.0.50", "--tcp=80"});
  EXPECT_NE(ip_range.err.find("failed to allocate IP 10.1.0.50: the provided IP (10.1.0.50) is not in the valid range. "
                              "The range of valid IPs is 10.0.0.0/24"),
            std::string::npos)
      << ip_range.err;
  ASSERT_EQ(K({"delete", "service", "c-a"}).exit_code, 0);
  EXPECT_EQ(K({"create", "service", "clusterip", "c-b", "--clusterip=10.0.0.10", "--tcp=80"}).exit_code, 0);
}

// Last (the suite's server is restarted): NodePorts and ClusterIPs stay allocated across a restart,
// and a delete after the restart frees them.
TEST_F(CatalogGroupsTest, ZAllocationsSurviveARestartAndAreFreedAfterIt) {
  ASSERT_EQ(K({"create", "service", "nodeport", "kept", "--tcp=80:80", "--node-port=30020"}).exit_code, 0);
  auto ip = K({"get", "svc", "kept", "-o", "jsonpath={.spec.clusterIP}"}).out;
  ASSERT_FALSE(ip.empty());
  EXPECT_EQ(server_->Stop(), 0);
  delete server_;
  server_ = new ServerProcess({}, *dir_);
  ASSERT_TRUE(server_->ok()) << server_->error();
  auto port_dup = K({"create", "service", "nodeport", "kept2", "--tcp=80:80", "--node-port=30020"});
  EXPECT_NE(port_dup.err.find("provided port is already allocated"), std::string::npos) << port_dup.err;
  auto ip_dup = K({"create", "service", "clusterip", "kept3", "--clusterip=" + ip, "--tcp=80"});
  EXPECT_NE(ip_dup.err.find("provided IP is already allocated"), std::string::npos) << ip_dup.err;
  // The start-up objects are there once, not twice.
  EXPECT_EQ(Lines(K({"get", "priorityclasses", "-o", "name"}).out).size(), 2u);
  EXPECT_EQ(Lines(K({"get", "flowschemas", "-o", "name"}).out).size(), 13u);
  ASSERT_EQ(K({"delete", "service", "kept"}).exit_code, 0);
  EXPECT_EQ(K({"create", "service", "nodeport", "kept2", "--tcp=80:80", "--node-port=30020"}).exit_code, 0);
  EXPECT_EQ(K({"create", "service", "clusterip", "kept3", "--clusterip=" + ip, "--tcp=80"}).exit_code, 0);
}

}  // namespace
}  // namespace capstan::e2e
