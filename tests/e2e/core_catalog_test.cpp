// End-to-end: the core/v1 catalog through the real kubectl: kubectl run, get -o wide, describe, logs
// and exec on a pod without a node, create service clusterip/nodeport, expose, get all, scale of a
// replication controller, the default/kubernetes Service and Endpoints, ClusterIP and NodePort
// allocation under concurrent creates (no duplicates), release on delete and reuse, and allocations
// kept across a restart, componentstatuses (kubectl get cs).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
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

class CoreCatalogTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(MakeTempDir("capstan-e2e-catalog"));
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
  static CommandResult K(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input, "32");
  }
  static std::string* dir_;
  static ServerProcess* server_;
};
std::string* CoreCatalogTest::dir_ = nullptr;
ServerProcess* CoreCatalogTest::server_ = nullptr;

TEST_F(CoreCatalogTest, RunGetWideDescribeLogsExec) {
  auto run = K({"run", "nginx", "--image=nginx"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.out, "pod/nginx created\n");
  auto wide = K({"get", "pods", "-o", "wide"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err;
  auto lines = Lines(wide.out);
  ASSERT_EQ(lines.size(), 2u) << wide.out;
  EXPECT_TRUE(std::regex_match(lines[0], std::regex("NAME +READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE +READINESS GATES")))
      << lines[0];
  auto row = Fields(lines[1]);
  ASSERT_EQ(row.size(), 9u) << lines[1];
  EXPECT_EQ(row[0], "nginx");
  EXPECT_EQ(row[1], "0/1");
  EXPECT_EQ(row[2], "Pending");
  EXPECT_EQ(row[3], "0");
  EXPECT_EQ(row[5], "<none>");
  EXPECT_EQ(row[6], "<none>");
  auto plain = K({"get", "pods"});
  EXPECT_TRUE(std::regex_match(Lines(plain.out)[0], std::regex("NAME +READY +STATUS +RESTARTS +AGE"))) << plain.out;
  auto yaml = K({"get", "pod", "nginx", "-o",
                 "jsonpath={.spec.restartPolicy},{.spec.dnsPolicy},{.spec.schedulerName},{.spec.terminationGracePeriodSeconds},"
                 "{.spec.containers[0].imagePullPolicy},{.spec.containers[0].terminationMessagePolicy},{.status.phase},"
                 "{.status.qosClass}"});
  EXPECT_EQ(yaml.out, "Always,ClusterFirst,default-scheduler,30,Always,File,Pending,BestEffort") << yaml.err;
  auto describe = K({"describe", "pod", "nginx"});
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_TRUE(std::regex_search(describe.out, std::regex("Name: +nginx")));
  EXPECT_TRUE(std::regex_search(describe.out, std::regex("Status: +Pending")));
  EXPECT_TRUE(std::regex_search(describe.out, std::regex("Image: +nginx")));
  EXPECT_TRUE(std::regex_search(describe.out, std::regex("QoS Class: +BestEffort")));
  // No node: logs are empty, exec is refused as kube refuses it.
  auto logs = K({"logs", "nginx"});
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_EQ(logs.out, "");
  auto exec = K({"exec", "nginx", "--", "ls"});
  EXPECT_NE(exec.exit_code, 0);
  EXPECT_NE(exec.err.find("does not have a host assigned"), std::string::npos) << exec.err;
  auto pf = K({"get", "--raw", "/api/v1/namespaces/default/pods/nginx/portforward"});
  EXPECT_NE(pf.exit_code, 0);
  EXPECT_NE(pf.err.find("does not have a host assigned"), std::string::npos) << pf.err;
}

TEST_F(CoreCatalogTest, CreateServicesExposeAndGetAll) {
  auto cip = K({"create", "service", "clusterip", "web", "--tcp=80:8080"});
  ASSERT_EQ(cip.exit_code, 0) << cip.err;
  EXPECT_EQ(cip.out, "service/web created\n");
  auto ip = K({"get", "svc", "web", "-o", "jsonpath={.spec.clusterIP} {.spec.ports[0].targetPort} {.spec.type}"});
  EXPECT_TRUE(std::regex_match(ip.out, std::regex(R"(10\.0\.0\.\d+ 8080 ClusterIP)"))) << ip.out;
  auto np = K({"create", "service", "nodeport", "np", "--tcp=80:80"});
  ASSERT_EQ(np.exit_code, 0) << np.err;
  auto port = K({"get", "svc", "np", "-o", "jsonpath={.spec.ports[0].nodePort}"});
  int node_port = std::atoi(port.out.c_str());
  EXPECT_GE(node_port, 30000);
  EXPECT_LE(node_port, 32767);
  auto svcs = K({"get", "svc", "np"});
  auto lines = Lines(svcs.out);
  ASSERT_EQ(lines.size(), 2u) << svcs.out;
  EXPECT_TRUE(std::regex_match(lines[0], std::regex("NAME +TYPE +CLUSTER-IP +EXTERNAL-IP +PORT\\(S\\) +AGE"))) << lines[0];
  auto row = Fields(lines[1]);
  EXPECT_EQ(row[1], "NodePort");
  EXPECT_EQ(row[3], "<none>");
  EXPECT_EQ(row[4], "80:" + std::to_string(node_port) + "/TCP");
  // Expose a pod.
  ASSERT_EQ(K({"run", "exposed", "--image=nginx:1.27", "--labels=app=exposed"}).exit_code, 0);
  auto expose = K({"expose", "pod", "exposed", "--port=80"});
  ASSERT_EQ(expose.exit_code, 0) << expose.err;
  EXPECT_EQ(expose.out, "service/exposed exposed\n");
  auto sel = K({"get", "svc", "exposed", "-o", "jsonpath={.spec.selector.app}"});
  EXPECT_EQ(sel.out, "exposed");
  auto all = K({"get", "all"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("pod/exposed"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("service/kubernetes"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("service/web"), std::string::npos) << all.out;
}

TEST_F(CoreCatalogTest, KubernetesServiceAndEndpoints) {
  std::string out;
  for (int i = 0; i < 50; ++i) {
    out = K({"get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[0].ports[0].port}"}).out;
    if (!out.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(out, std::to_string(server_->port()));
  auto svc = K({"get", "svc", "kubernetes", "-o", "jsonpath={.spec.clusterIP} {.spec.ports[0].port} {.spec.ports[0].targetPort}"});
  EXPECT_EQ(svc.out, "10.0.0.1 443 " + std::to_string(server_->port()));
}

TEST_F(CoreCatalogTest, ScaleAReplicationController) {
  std::string rc =
      "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: rc\nspec:\n  replicas: 1\n  template:\n    metadata:\n"
      "      labels:\n        app: rc\n    spec:\n      containers:\n      - name: c\n        image: nginx\n";
  ASSERT_EQ(K({"apply", "-f", "-"}, rc).exit_code, 0);
  auto scale = K({"scale", "rc", "rc", "--replicas=3"});
  ASSERT_EQ(scale.exit_code, 0) << scale.err;
  EXPECT_EQ(scale.out, "replicationcontroller/rc scaled\n");
  auto get = K({"get", "rc", "rc"});
  auto lines = Lines(get.out);
  ASSERT_EQ(lines.size(), 2u) << get.out;
  EXPECT_TRUE(std::regex_match(lines[0], std::regex("NAME +DESIRED +CURRENT +READY +AGE"))) << lines[0];
  EXPECT_EQ(Fields(lines[1])[1], "3");
}

TEST_F(CoreCatalogTest, ConcurrentCreatesGetDistinctAllocationsAndDeletesFreeThem) {
  constexpr int kServices = 12;
  std::vector<std::thread> threads;
  std::mutex mu;
  std::vector<std::string> errors;
  for (int i = 0; i < kServices; ++i) {
    threads.emplace_back([&, i] {
      auto r = K({"create", "service", "nodeport", "c" + std::to_string(i), "--tcp=80:80"});
      if (r.exit_code != 0) {
        std::lock_guard lock(mu);
        errors.push_back(r.err);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(errors.empty()) << errors[0];
  auto list = K({"get", "svc", "-o", "jsonpath={range .items[*]}{.spec.clusterIP} {.spec.ports[0].nodePort}{\"\\n\"}{end}"});
  std::set<std::string> ips;
  std::set<std::string> ports;
  int rows = 0;
  for (const auto& l : Lines(list.out)) {
    auto f = Fields(l);
    if (f.empty()) continue;
    ++rows;
    EXPECT_TRUE(ips.insert(f[0]).second) << "duplicate ClusterIP " << f[0];
    if (f.size() > 1) EXPECT_TRUE(ports.insert(f[1]).second) << "duplicate NodePort " << f[1];
  }
  EXPECT_GE(rows, kServices);
  // An explicit address: taken once, refused twice, free again after delete. Explicit addresses come
  // from the static band (the range's first 16), which automatic allocation uses last, as in kube.
  ASSERT_EQ(K({"create", "service", "clusterip", "fixed", "--clusterip=10.0.0.12", "--tcp=80"}).exit_code, 0);
  auto dup = K({"create", "service", "clusterip", "fixed2", "--clusterip=10.0.0.12", "--tcp=80"});
  EXPECT_NE(dup.exit_code, 0);
  EXPECT_NE(dup.err.find("provided IP is already allocated"), std::string::npos) << dup.err;
  ASSERT_EQ(K({"delete", "service", "fixed"}).exit_code, 0);
  auto again = K({"create", "service", "clusterip", "fixed2", "--clusterip=10.0.0.12", "--tcp=80"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

// Last (the suite's server is restarted): allocations survive a restart of the server.
// componentstatuses as kube-apiserver 1.32 serves it, through kubectl 1.31: the table with kube's
// columns and the deprecation warning, the short name, get of one, discovery with get and list only.
TEST_F(CoreCatalogTest, ComponentStatuses) {
  auto k31 = [](const std::vector<std::string>& args) { return server_->Kubectl(args, "", "31"); };
  // The control loops lead (the sole replica takes the Lease at start): controller-manager is Healthy.
  CommandResult cs;
  for (int i = 0; i < 100; ++i) {
    cs = k31({"get", "componentstatuses"});
    if (cs.exit_code == 0 && cs.out.find("controller-manager   Healthy") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_EQ(cs.exit_code, 0) << cs.err;
  std::printf("%s%s", cs.err.c_str(), cs.out.c_str());
  EXPECT_NE(cs.err.find("Warning: v1 ComponentStatus is deprecated in v1.19+"), std::string::npos) << cs.err;
  auto lines = Lines(cs.out);
  ASSERT_EQ(lines.size(), 4u) << cs.out;
  EXPECT_EQ(Fields(lines[0]), (std::vector<std::string>{"NAME", "STATUS", "MESSAGE", "ERROR"}));
  EXPECT_EQ(Fields(lines[1]),
            (std::vector<std::string>{"scheduler", "Unhealthy", "Get", "\"https://127.0.0.1:10259/healthz\":", "dial",
                                      "tcp", "127.0.0.1:10259:", "connect:", "connection", "refused"}));
  EXPECT_EQ(Fields(lines[2]), (std::vector<std::string>{"controller-manager", "Healthy", "ok"}));
  EXPECT_EQ(Fields(lines[3]), (std::vector<std::string>{"etcd-0", "Healthy", "ok"}));

  auto short_name = k31({"get", "cs", "etcd-0"});
  ASSERT_EQ(short_name.exit_code, 0) << short_name.err;
  EXPECT_NE(short_name.err.find("Warning: v1 ComponentStatus is deprecated in v1.19+"), std::string::npos);
  EXPECT_EQ(Fields(Lines(short_name.out).at(1)), (std::vector<std::string>{"etcd-0", "Healthy", "ok"}));
  auto json = k31({"get", "cs", "scheduler", "-o", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_NE(json.out.find(R"("kind": "ComponentStatus")"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(R"("type": "Healthy")"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(R"("status": "False")"), std::string::npos) << json.out;
  // The list has no resourceVersion (nothing is stored): kube's empty ListMeta.
  auto raw = k31({"get", "--raw", "/api/v1/componentstatuses"});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_EQ(raw.out.rfind(R"({"kind":"ComponentStatusList","apiVersion":"v1","metadata":{},"items":[{"kind":"ComponentStatus")", 0),
            0u)
      << raw.out;
  auto missing = k31({"get", "cs", "kubelet"});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("Component not found: kubelet"), std::string::npos) << missing.err;
  auto create = k31({"delete", "cs", "etcd-0"});
  EXPECT_NE(create.exit_code, 0);

  // Discovery: cluster-scoped, short name cs, verbs get and list only.
  auto disco = k31({"get", "--raw", "/api/v1"});
  ASSERT_EQ(disco.exit_code, 0) << disco.err;
  auto at = disco.out.find(R"({"name":"componentstatuses")");
  ASSERT_NE(at, std::string::npos) << disco.out;
  std::string entry = disco.out.substr(at, disco.out.find('}', at) - at);
  EXPECT_NE(entry.find(R"("namespaced":false)"), std::string::npos) << entry;
  EXPECT_NE(entry.find(R"("kind":"ComponentStatus")"), std::string::npos) << entry;
  EXPECT_NE(entry.find(R"("verbs":["get","list"])"), std::string::npos) << entry;
  EXPECT_NE(entry.find(R"("shortNames":["cs"])"), std::string::npos) << entry;
  auto resources = k31({"api-resources", "--api-group="});
  ASSERT_EQ(resources.exit_code, 0) << resources.err;
  bool listed = false;
  for (const auto& l : Lines(resources.out)) {
    if (Fields(l) == std::vector<std::string>{"componentstatuses", "cs", "v1", "false", "ComponentStatus"}) listed = true;
  }
  EXPECT_TRUE(listed) << resources.out;
}

TEST_F(CoreCatalogTest, ZAllocationsSurviveARestart) {
  ASSERT_EQ(K({"create", "service", "clusterip", "kept", "--clusterip=10.0.0.13", "--tcp=80"}).exit_code, 0);
  EXPECT_EQ(server_->Stop(), 0);
  delete server_;
  server_ = new ServerProcess({}, *dir_);
  ASSERT_TRUE(server_->ok()) << server_->error();
  auto dup = K({"create", "service", "clusterip", "kept2", "--clusterip=10.0.0.13", "--tcp=80"});
  EXPECT_NE(dup.exit_code, 0);
  EXPECT_NE(dup.err.find("provided IP is already allocated"), std::string::npos) << dup.err;
}

}  // namespace
}  // namespace capstan::e2e
