// End-to-end ResourceQuota: the real build/capstan and kubectl 1.31. A quota (pods=2, requests.cpu=1,
// count/configmaps=3) gets status.hard and status.used from the quota controller; creates are charged
// by the admission plugin until one is refused with kube's message; a delete gives the quota back
// (the controller recomputes used) and the create succeeds again; a pod without a cpu request is
// refused while the quota tracks requests.cpu; kubectl describe shows the usage. With
// --admission-control-config-file, limitedResources make pods of a priority class need a covering quota.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;

constexpr const char* kQuota = R"(apiVersion: v1
kind: ResourceQuota
metadata:
  name: q
  namespace: rq
spec:
  hard:
    pods: "2"
    requests.cpu: "1"
    count/configmaps: "3"
)";

std::string Pod(const std::string& name, const std::string& cpu) {
  std::string res = cpu.empty() ? "" : "\n    resources:\n      requests:\n        cpu: " + cpu;
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\n  namespace: rq\nspec:\n  containers:\n  - name: app\n    image: busybox" + res + "\n";
}

class ResourceQuotaE2E : public ::testing::Test {
 protected:
  CommandResult K(const std::vector<std::string>& args, const std::string& input = "") {
    return server_.Kubectl(args, input, "31");
  }
  // status.used of quota q as "name=value" pairs, sorted; "" while there is none.
  std::string Used() {
    auto r = K({"get", "resourcequota", "q", "-n", "rq", "-o", "json"});
    if (r.exit_code != 0) return "";
    auto obj = json::parse(r.out).as_object();
    const auto* st = obj.if_contains("status");
    if (!st || !st->as_object().contains("used")) return "";
    std::string out;
    std::map<std::string, std::string> sorted;
    for (const auto& [k, v] : st->as_object().at("used").as_object()) sorted[std::string(k)] = std::string(v.as_string());
    for (const auto& [k, v] : sorted) out += (out.empty() ? "" : ",") + k + "=" + v;
    return out;
  }
  bool WaitUsed(const std::string& want) {
    for (int i = 0; i < 150; ++i) {
      if (Used() == want) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  bool WaitFor(const std::vector<std::string>& get_args) {
    for (int i = 0; i < 150; ++i) {
      if (K(get_args).exit_code == 0) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  ServerProcess server_;
};

TEST_F(ResourceQuotaE2E, ChargesRefusesAndReplenishes) {
  ASSERT_TRUE(server_.ok()) << server_.error();
  ASSERT_EQ(K({"create", "namespace", "rq"}).exit_code, 0);
  // The namespace's own objects from the controllers: kube-root-ca.crt counts as a configmap.
  ASSERT_TRUE(WaitFor({"get", "configmap", "kube-root-ca.crt", "-n", "rq"}));
  ASSERT_TRUE(WaitFor({"get", "serviceaccount", "default", "-n", "rq"}));
  auto created = K({"create", "-f", "-"}, kQuota);
  ASSERT_EQ(created.exit_code, 0) << created.err;

  ASSERT_TRUE(WaitUsed("count/configmaps=1,pods=0,requests.cpu=0")) << Used() << "\n" << server_.log();
  auto hard = K({"get", "resourcequota", "q", "-n", "rq", "-o", "jsonpath={.status.hard}"});
  EXPECT_EQ(hard.out, R"({"count/configmaps":"3","pods":"2","requests.cpu":"1"})");

  ASSERT_EQ(K({"create", "configmap", "c1", "-n", "rq"}).exit_code, 0);
  ASSERT_EQ(K({"create", "configmap", "c2", "-n", "rq"}).exit_code, 0);
  EXPECT_EQ(Used(), "count/configmaps=3,pods=0,requests.cpu=0");  // charged at admission
  auto refused = K({"create", "configmap", "c3", "-n", "rq"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_EQ(refused.err,
            "error: failed to create configmap: configmaps \"c3\" is forbidden: exceeded quota: q, requested: "
            "count/configmaps=1, used: count/configmaps=3, limited: count/configmaps=3\n");

  ASSERT_EQ(K({"delete", "configmap", "c1", "-n", "rq"}).exit_code, 0);
  ASSERT_TRUE(WaitUsed("count/configmaps=2,pods=0,requests.cpu=0")) << Used();
  auto again = K({"create", "configmap", "c3", "-n", "rq"});
  EXPECT_EQ(again.exit_code, 0) << again.err;

  // Pods: a cpu request is required while the quota tracks requests.cpu.
  auto bare = K({"create", "-f", "-"}, Pod("bare", ""));
  EXPECT_NE(bare.exit_code, 0);
  EXPECT_NE(bare.err.find("Error from server (Forbidden): error when creating \"STDIN\": pods \"bare\" is forbidden: "
                          "failed quota: q: must specify requests.cpu for: app\n"),
            std::string::npos)
      << bare.err;
  auto p1 = K({"create", "-f", "-"}, Pod("p1", "600m"));
  EXPECT_EQ(p1.exit_code, 0) << p1.err;
  auto p2 = K({"create", "-f", "-"}, Pod("p2", "600m"));
  EXPECT_NE(p2.exit_code, 0);
  EXPECT_NE(p2.err.find("Error from server (Forbidden): error when creating \"STDIN\": pods \"p2\" is forbidden: "
                        "exceeded quota: q, requested: requests.cpu=600m, used: requests.cpu=600m, limited: "
                        "requests.cpu=1\n"),
            std::string::npos)
      << p2.err;
  EXPECT_EQ(Used(), "count/configmaps=3,pods=1,requests.cpu=600m");

  auto describe = K({"describe", "resourcequota", "q", "-n", "rq"});
  EXPECT_NE(describe.out.find("requests.cpu      600m  1"), std::string::npos) << describe.out;
  EXPECT_NE(describe.out.find("count/configmaps  3     3"), std::string::npos) << describe.out;

  // Deleting the pod gives its cpu back.
  ASSERT_EQ(K({"delete", "pod", "p1", "-n", "rq", "--grace-period=0", "--force"}).exit_code, 0);
  EXPECT_TRUE(WaitUsed("count/configmaps=3,pods=0,requests.cpu=0")) << Used();
  auto p3 = K({"create", "-f", "-"}, Pod("p3", "1"));
  EXPECT_EQ(p3.exit_code, 0) << p3.err;
}

constexpr const char* kAdmissionConfig = R"(apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ResourceQuota
  configuration:
    apiVersion: apiserver.config.k8s.io/v1
    kind: ResourceQuotaConfiguration
    limitedResources:
    - resource: pods
      matchScopes:
      - scopeName: PriorityClass
        operator: In
        values: ["cluster-services"]
)";

TEST(ResourceQuotaConfigE2E, LimitedScopesNeedACoveringQuota) {
  std::string dir = MakeTempDir("capstan-rq-config");
  std::string config = dir + "/admission.yaml";
  std::ofstream(config) << kAdmissionConfig;
  ServerProcess server({"--admission-control-config-file", config});
  ASSERT_TRUE(server.ok()) << server.error();
  auto K = [&](const std::vector<std::string>& args, const std::string& input = "") {
    return server.Kubectl(args, input, "31");
  };
  ASSERT_EQ(K({"create", "priorityclass", "cluster-services", "--value=1000"}).exit_code, 0);
  const std::string pod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: crit\n  namespace: default\nspec:\n"
      "  priorityClassName: cluster-services\n  containers:\n  - name: app\n    image: busybox\n";
  for (int i = 0; i < 100 && K({"get", "serviceaccount", "default"}).exit_code != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto refused = K({"create", "-f", "-"}, pod);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("Error from server: error when creating \"STDIN\": insufficient quota to match these "
                             "scopes: [{PriorityClass In [cluster-services]}]"),
            std::string::npos)
      << refused.err;
  ASSERT_EQ(K({"create", "quota", "critical", "--hard=pods=10", "--scopes=PriorityClass"}).exit_code, 0);
  bool created = false;
  for (int i = 0; i < 100 && !created; ++i) {  // until the controller has written the quota's status
    created = K({"create", "-f", "-"}, pod).exit_code == 0;
    if (!created) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(created);
  auto used = K({"get", "quota", "critical", "-o", "jsonpath={.status.used}"});
  EXPECT_EQ(used.out, R"({"pods":"1"})");
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace capstan::e2e
