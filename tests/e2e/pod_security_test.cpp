// PodSecurity through the real server and kubectl 1.31: enforce refusals with kube's message, warn
// warnings on stderr, workloads warned but created, invalid namespace labels refused, the warning on a
// tightened enforce level, and exemptions from a PodSecurityConfiguration given with
// --admission-control-config-file (and a bad configuration file stopping the server at start).
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e/e2e_util.h"

namespace capstan::e2e {
namespace {

const char kKubectl[] = "31";

std::string Pod(const std::string& name, const std::string& ns, bool privileged) {
  std::string y = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
                  "\nspec:\n  containers:\n  - name: c\n    image: nginx\n";
  if (privileged) y += "    securityContext:\n      privileged: true\n";
  return y;
}

std::string RestrictedPod(const std::string& name, const std::string& ns) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: " + ns +
         "\nspec:\n  securityContext:\n    runAsNonRoot: true\n    seccompProfile:\n      type: RuntimeDefault\n"
         "  containers:\n  - name: c\n    image: nginx\n    securityContext:\n      allowPrivilegeEscalation: false\n"
         "      capabilities:\n        drop: [\"ALL\"]\n";
}

class PodSecurityE2eTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(MakeTempDir("psa-e2e-config"));
    std::ofstream(*dir_ + "/psa.yaml") << "apiVersion: pod-security.admission.config.k8s.io/v1\n"
                                          "kind: PodSecurityConfiguration\n"
                                          "exemptions:\n  namespaces: [psa-exempt]\n  usernames: [exempt-user]\n";
    std::ofstream(*dir_ + "/admission.yaml") << "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n"
                                                "plugins:\n- name: PodSecurity\n  path: psa.yaml\n";
    std::ofstream(*dir_ + "/audit-policy.yaml") << "apiVersion: audit.k8s.io/v1\nkind: Policy\n"
                                                   "rules:\n- level: Metadata\n  resources:\n  - group: \"\"\n"
                                                   "    resources: [pods]\n- level: None\n";
    // Privileged pods pass validation only with --allow-privileged=true (as kubeadm starts kube-apiserver).
    server_ = new ServerProcess({"--allow-privileged=true", "--admission-control-config-file=" + *dir_ + "/admission.yaml",
                                 "--audit-policy-file=" + *dir_ + "/audit-policy.yaml",
                                 "--audit-log-path=" + *dir_ + "/audit.log"});
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
    delete dir_;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  static CommandResult Kubectl(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input, kKubectl);
  }
  // A namespace with the labels, once its default service account exists (ServiceAccount admission
  // needs it for pods).
  static void Namespace(const std::string& name, const std::vector<std::string>& labels) {
    ASSERT_EQ(Kubectl({"create", "namespace", name}).exit_code, 0);
    if (!labels.empty()) {
      std::vector<std::string> args = {"label", "namespace", name};
      args.insert(args.end(), labels.begin(), labels.end());
      auto r = Kubectl(args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (Kubectl({"get", "serviceaccount", "default", "-n", name}).exit_code != 0) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "no default service account in " << name;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  static std::string* dir_;
  static ServerProcess* server_;
};

std::string* PodSecurityE2eTest::dir_ = nullptr;
ServerProcess* PodSecurityE2eTest::server_ = nullptr;

TEST_F(PodSecurityE2eTest, EnforceRestricted) {
  Namespace("psa-r", {"pod-security.kubernetes.io/enforce=restricted"});
  auto refused = Kubectl({"create", "-f", "-"}, Pod("priv", "psa-r", true));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(Contains(refused.err,
                       "Error from server (Forbidden): error when creating \"STDIN\": pods \"priv\" is forbidden: "
                       "violates PodSecurity \"restricted:latest\": privileged (container \"c\" must not set "
                       "securityContext.privileged=true), allowPrivilegeEscalation != false (container \"c\" must set "
                       "securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container \"c\" must "
                       "set securityContext.capabilities.drop=[\"ALL\"]), runAsNonRoot != true (pod or container \"c\" "
                       "must set securityContext.runAsNonRoot=true), seccompProfile (pod or container \"c\" must set "
                       "securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\")"))
      << refused.err;
  auto ok = Kubectl({"create", "-f", "-"}, RestrictedPod("good", "psa-r"));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_FALSE(Contains(ok.err, "Warning")) << ok.err;
  EXPECT_EQ(Kubectl({"get", "pod", "good", "-n", "psa-r", "-o", "name"}).out, "pod/good\n");

  // A deployment is warned about its template, and created.
  auto deploy = Kubectl({"create", "deployment", "web", "--image=nginx", "-n", "psa-r"});
  EXPECT_EQ(deploy.exit_code, 0) << deploy.err;
  EXPECT_TRUE(Contains(deploy.err, "Warning: would violate PodSecurity \"restricted:latest\": allowPrivilegeEscalation != false "
                                   "(container \"nginx\" must set securityContext.allowPrivilegeEscalation=false)"))
      << deploy.err;
  EXPECT_EQ(Kubectl({"get", "deployment", "web", "-n", "psa-r", "-o", "name"}).out, "deployment.apps/web\n");

  // An invalid level label is refused.
  auto bad = Kubectl({"label", "namespace", "psa-r", "pod-security.kubernetes.io/enforce=strict", "--overwrite"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(Contains(bad.err, "The Namespace \"psa-r\" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: "
                                "Invalid value: \"strict\": must be one of privileged, baseline, restricted"))
      << bad.err;
}

TEST_F(PodSecurityE2eTest, WarnBaseline) {
  Namespace("psa-w", {"pod-security.kubernetes.io/warn=baseline"});
  auto r = Kubectl({"create", "-f", "-"}, Pod("priv", "psa-w", true));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.err, "Warning: would violate PodSecurity \"baseline:latest\": privileged (container \"c\" must not "
                              "set securityContext.privileged=true)"))
      << r.err;
  auto plain = Kubectl({"create", "-f", "-"}, Pod("plain", "psa-w", false));
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(Contains(plain.err, "Warning")) << plain.err;
}

TEST_F(PodSecurityE2eTest, TighteningEnforceWarnsAboutExistingPods) {
  Namespace("psa-t", {});
  ASSERT_EQ(Kubectl({"create", "-f", "-"}, Pod("p", "psa-t", true)).exit_code, 0);
  auto r = Kubectl({"label", "namespace", "psa-t", "pod-security.kubernetes.io/enforce=baseline"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Contains(r.err, "Warning: existing pods in namespace \"psa-t\" violate the new PodSecurity enforce level "
                              "\"baseline:latest\"\nWarning: p: privileged\n"))
      << r.err;
  auto refused = Kubectl({"create", "-f", "-"}, Pod("p2", "psa-t", true));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(Contains(refused.err, "pods \"p2\" is forbidden: violates PodSecurity \"baseline:latest\"")) << refused.err;
}

TEST_F(PodSecurityE2eTest, ExemptionsFromTheConfigFile) {
  Namespace("psa-exempt", {});
  auto label = Kubectl({"label", "namespace", "psa-exempt", "pod-security.kubernetes.io/enforce=restricted"});
  EXPECT_EQ(label.exit_code, 0) << label.err;
  EXPECT_TRUE(Contains(label.err, "Warning: namespace \"psa-exempt\" is exempt from Pod Security, and the policy "
                                  "(enforce=restricted:latest) will be ignored"))
      << label.err;
  auto r = Kubectl({"create", "-f", "-"}, Pod("priv", "psa-exempt", true));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Contains(r.err, "Warning")) << r.err;
  // An exempt user in an enforcing namespace.
  Namespace("psa-user", {"pod-security.kubernetes.io/enforce=baseline"});
  auto as_user = Kubectl({"create", "-f", "-", "--as=exempt-user", "--as-group=system:masters"}, Pod("priv", "psa-user", true));
  EXPECT_EQ(as_user.exit_code, 0) << as_user.err;
  auto other = Kubectl({"create", "-f", "-", "--as=someone", "--as-group=system:masters"}, Pod("priv2", "psa-user", true));
  EXPECT_NE(other.exit_code, 0);
  EXPECT_TRUE(Contains(other.err, "violates PodSecurity \"baseline:latest\"")) << other.err;
}

TEST_F(PodSecurityE2eTest, AuditAnnotationsAndMetrics) {
  Namespace("psa-a", {"pod-security.kubernetes.io/audit=restricted"});
  auto r = Kubectl({"create", "-f", "-"}, Pod("audited", "psa-a", false));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(Contains(r.err, "Warning")) << r.err;  // audit only: nothing for the client
  // The audit event of the create carries the violations and the enforced policy.
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (line.empty() && std::chrono::steady_clock::now() < deadline) {
    std::ifstream in(*dir_ + "/audit.log");
    for (std::string l; std::getline(in, l);) {
      if (Contains(l, "\"ResponseComplete\"") && Contains(l, "/namespaces/psa-a/pods") && Contains(l, "\"create\"")) line = l;
    }
    if (line.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(line.empty()) << "no audit event for the create";
  EXPECT_TRUE(Contains(line, "\"pod-security.kubernetes.io/enforce-policy\":\"privileged:latest\"")) << line;
  EXPECT_TRUE(Contains(line, "\"pod-security.kubernetes.io/audit-violations\":\"would violate PodSecurity "
                             "\\\"restricted:latest\\\": allowPrivilegeEscalation != false (container \\\"c\\\" must set "
                             "securityContext.allowPrivilegeEscalation=false)"))
      << line;
  auto metrics = Kubectl({"get", "--raw", "/metrics"});
  EXPECT_TRUE(Contains(metrics.out, "pod_security_evaluations_total{decision=\"deny\",mode=\"audit\",policy_level=\"restricted\","
                                    "policy_version=\"latest\",request_operation=\"create\",resource=\"pod\","
                                    "subresource=\"\"}"))
      << metrics.out.substr(0, 2000);
}

TEST(PodSecurityConfigE2eTest, BadConfigFileStopsTheServer) {
  std::string dir = MakeTempDir("psa-e2e-bad");
  std::ofstream(dir + "/admission.yaml") << "apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\n"
                                            "plugins:\n- name: PodSecurity\n  configuration:\n"
                                            "    apiVersion: pod-security.admission.config.k8s.io/v1\n"
                                            "    kind: PodSecurityConfiguration\n    defaults:\n      enforce: strict\n";
  const char* bin = std::getenv("CAPSTAN_BINARY");
  ASSERT_NE(bin, nullptr);
  auto r = RunCommand({bin, "--data-dir", dir + "/data", "--secure-port", "0",
                       "--admission-control-config-file=" + dir + "/admission.yaml"},
                      "", std::chrono::seconds(60));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(Contains(r.err, "Error: failed to initialize admission plugin \"PodSecurity\": enforce: must be one of "
                              "privileged, baseline, restricted\n"))
      << r.err;
  auto missing = RunCommand({bin, "--data-dir", dir + "/data", "--secure-port", "0",
                             "--admission-control-config-file=" + dir + "/none.yaml"},
                            "", std::chrono::seconds(60));
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_TRUE(Contains(missing.err, "Error: failed to read plugin config: unable to read admission control configuration from \"" +
                                        dir + "/none.yaml\" [open " + dir + "/none.yaml: no such file or directory]\n"))
      << missing.err;
}

}  // namespace
}  // namespace capstan::e2e
