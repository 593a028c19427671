// End-to-end: the opt-in admission plugins that read namespace annotations or a rate configuration:
// EventRateLimit, PodNodeSelector and PodTolerationRestriction, enabled by flag and configured through
// --admission-control-config-file, driven with kubectl 1.32.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

// Each test has its own server (they start in well under a second), so rate buckets start full.
class AdmissionLimitsE2eTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = MakeTempDir("admission-limits-e2e");
    std::ofstream(dir + "/eventratelimit.yaml") << "apiVersion: eventratelimit.admission.k8s.io/v1alpha1\n"
                                                   "kind: Configuration\nlimits:\n- type: Namespace\n  qps: 1\n  burst: 3\n";
    std::ofstream(dir + "/admission.yaml") << "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n"
                                              "plugins:\n- name: EventRateLimit\n  path: eventratelimit.yaml\n";
    server_ = std::make_unique<ServerProcess>(
        std::vector<std::string>{"--enable-admission-plugins=EventRateLimit,PodNodeSelector,PodTolerationRestriction",
                                 "--admission-control-config-file=" + dir + "/admission.yaml"});
    ASSERT_TRUE(server_->ok()) << server_->error();
  }

  CommandResult Kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input);
  }
  static std::string Pod(const std::string& name, const std::string& ns, const std::string& spec_extra = "") {
    return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
           "\nspec:\n  containers:\n  - name: c\n    image: nginx\n" + spec_extra;
  }

  std::unique_ptr<ServerProcess> server_;
};

std::string Events(const std::string& ns, int n) {
  std::string docs;
  for (int i = 0; i < n; ++i) {
    docs += "---\napiVersion: v1\nkind: Event\nmetadata:\n  name: e" + std::to_string(i) + "\n  namespace: " + ns +
            "\ninvolvedObject:\n  kind: Pod\n  name: p\n  namespace: " + ns + "\nreason: Tested\nmessage: m\n";
  }
  return docs;
}

TEST_F(AdmissionLimitsE2eTest, EventRateLimitRefusesEventsPastTheNamespaceBurst) {
  ASSERT_EQ(Kubectl({"create", "namespace", "chatty"}).exit_code, 0);
  ASSERT_EQ(Kubectl({"create", "namespace", "quiet"}).exit_code, 0);
  // Ten creates in one kubectl run, well inside a second: the burst of 3 passes, most others do not.
  auto burst = Kubectl({"create", "-f", "-"}, Events("chatty", 10));
  EXPECT_NE(burst.exit_code, 0);
  EXPECT_TRUE(Contains(burst.err, "Too many requests: limit reached on type Namespace for key chatty")) << burst.err;
  EXPECT_TRUE(Contains(burst.out, "event/e0 created")) << burst.out;
  // Each namespace has its own bucket; other kinds are not limited.
  auto other = Kubectl({"create", "-f", "-"}, Events("quiet", 2));
  EXPECT_EQ(other.exit_code, 0) << other.err;
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Kubectl({"create", "configmap", "c" + std::to_string(i), "-n", "chatty"}).exit_code, 0);
  }
}

TEST_F(AdmissionLimitsE2eTest, PodNodeSelectorMergesTheNamespaceSelector) {
  ASSERT_EQ(Kubectl({"create", "namespace", "prod"}).exit_code, 0);
  ASSERT_EQ(Kubectl({"annotate", "namespace", "prod", "scheduler.alpha.kubernetes.io/node-selector=env=prod"}).exit_code, 0);
  ASSERT_TRUE(server_->WaitForDefaultServiceAccount("prod"));
  auto made = Kubectl({"create", "-f", "-"}, Pod("web", "prod", "  nodeSelector:\n    disk: ssd\n"));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(Kubectl({"get", "pod", "web", "-n", "prod", "-o", "jsonpath={.spec.nodeSelector}"}).out,
            R"({"disk":"ssd","env":"prod"})");
  auto conflict = Kubectl({"create", "-f", "-"}, Pod("dev", "prod", "  nodeSelector:\n    env: dev\n"));
  EXPECT_NE(conflict.exit_code, 0);
  EXPECT_TRUE(Contains(conflict.err, "pods \"dev\" is forbidden: pod node label selector conflicts with its namespace node "
                                     "label selector"))
      << conflict.err;
}

TEST_F(AdmissionLimitsE2eTest, PodTolerationRestrictionAddsDefaultsAndEnforcesTheWhitelist) {
  ASSERT_EQ(Kubectl({"create", "namespace", "gpu"}).exit_code, 0);
  ASSERT_EQ(Kubectl({"annotate", "namespace", "gpu",
                     R"(scheduler.alpha.kubernetes.io/defaultTolerations=[{"key":"dedicated","operator":"Equal","value":"gpu","effect":"NoSchedule"}])",
                     R"(scheduler.alpha.kubernetes.io/tolerationsWhitelist=[{"key":"dedicated","operator":"Equal","value":"gpu"},)"
                     R"({"key":"node.kubernetes.io/not-ready","operator":"Exists"},)"
                     R"({"key":"node.kubernetes.io/unreachable","operator":"Exists"}])"})
                .exit_code,
            0);
  ASSERT_TRUE(server_->WaitForDefaultServiceAccount("gpu"));
  // DefaultTolerationSeconds (on by default, and before this plugin) adds the not-ready and
  // unreachable tolerations, so a whitelist must cover them, as with kube.
  auto made = Kubectl({"create", "-f", "-"}, Pod("train", "gpu"));
  ASSERT_EQ(made.exit_code, 0) << made.err;
  auto keys = Kubectl({"get", "pod", "train", "-n", "gpu", "-o", "jsonpath={.spec.tolerations[*].key}"});
  EXPECT_TRUE(Contains(keys.out, "dedicated")) << keys.out;
  auto outside = Kubectl({"create", "-f", "-"},
                         Pod("rogue", "gpu", "  tolerations:\n  - key: other\n    operator: Exists\n    effect: NoSchedule\n"));
  EXPECT_NE(outside.exit_code, 0);
  EXPECT_TRUE(Contains(outside.err, "pod tolerations (possibly merged with namespace default tolerations) conflict with its "
                                    "namespace whitelist"))
      << outside.err;
}

}  // namespace
}  // namespace capstan::e2e
