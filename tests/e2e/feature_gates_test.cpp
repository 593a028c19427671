// End-to-end: --feature-gates, --runtime-config, --admission-control, --allow-privileged, --event-ttl,
// --endpoint-reconciler-type, the toleration defaults, --tls-min-version's names and the identity Lease as
// kube-apiserver 1.32 has them (issues 23, 25): a bad
// or locked gate stops the start with kube's error, gates switch what Capstan has (WatchList's
// sendInitialEvents), kubernetes_feature_enabled reports them, and privileged containers are refused
// unless --allow-privileged=true. Driven by the real binary and kubectl 1.32.
#include <gtest/gtest.h>

#include <fstream>

#include <cstdlib>
#include <chrono>
#include <string>
#include <thread>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

std::string PrivilegedPod(const std::string& name) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name +
         "\nspec:\n  containers:\n  - name: c\n    image: nginx\n    securityContext:\n      privileged: true\n";
}

std::string PrivilegedDeployment(const std::string& name) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
         "\nspec:\n  selector:\n    matchLabels: {app: x}\n  template:\n    metadata:\n      labels: {app: x}\n"
         "    spec:\n      initContainers:\n      - name: i\n        image: busybox\n        securityContext:\n"
         "          privileged: true\n      containers:\n      - name: c\n        image: nginx\n";
}

TEST(FeatureGatesStartTest, UnknownAndLockedGatesStopTheStartWithKubesError) {
  std::string dir = MakeTempDir("capstan-gates");
  auto unknown = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--feature-gates=NoSuchGate=true"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_TRUE(Contains(unknown.err, "Error: unrecognized feature gate: NoSuchGate\n")) << unknown.err;
  auto locked = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--feature-gates", "WatchList=true",
                            "--feature-gates", "APIListChunking=false"});
  EXPECT_EQ(locked.exit_code, 1);
  EXPECT_TRUE(Contains(locked.err, "Error: cannot set feature gate APIListChunking to false, feature is locked to true\n"))
      << locked.err;
  auto group = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--runtime-config=example.com/v1=true"});
  EXPECT_EQ(group.exit_code, 1);
  EXPECT_TRUE(Contains(group.err, "Error: unknown api groups example.com\n")) << group.err;
  auto apf = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--runtime-config=api/ga=false"});
  EXPECT_EQ(apf.exit_code, 1);
  EXPECT_TRUE(Contains(apf.err, "Error: --runtime-config=api/ga=false conflicts with --enable-priority-and-fairness=true\n"))
      << apf.err;
  auto plugins = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--admission-control=NamespaceLifecycle",
                             "--enable-admission-plugins=AlwaysPullImages"});
  EXPECT_EQ(plugins.exit_code, 1);
  EXPECT_TRUE(Contains(plugins.err, "admission-control and enable-admission-plugins/disable-admission-plugins flags are "
                                    "mutually exclusive"))
      << plugins.err;
  auto unknown_plugin = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--admission-control=Nope"});
  EXPECT_EQ(unknown_plugin.exit_code, 1);
  EXPECT_TRUE(Contains(unknown_plugin.err, "admission-control plugin \"Nope\" is unknown")) << unknown_plugin.err;
  auto reconciler = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--endpoint-reconciler-type=bogus"});
  EXPECT_EQ(reconciler.exit_code, 1);
  EXPECT_TRUE(Contains(reconciler.err, "Reconciler not implemented: bogus")) << reconciler.err;
  auto authn = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--authentication-config=/nonexistent/authn.yaml"});
  EXPECT_EQ(authn.exit_code, 1);
  EXPECT_TRUE(Contains(authn.err, "open /nonexistent/authn.yaml: no such file or directory")) << authn.err;
  const std::string authn_file = dir + "/authn.yaml";
  {
    std::ofstream f(authn_file);
    f << "apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AuthenticationConfiguration\n"
         "jwt:\n- issuer: {url: 'http://issuer.example', audiences: [a]}\n  claimMappings: {username: {claim: sub}}\n";
  }
  auto exclusive = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--authentication-config=" + authn_file,
                               "--oidc-issuer-url=https://issuer.example"});
  EXPECT_EQ(exclusive.exit_code, 1);
  EXPECT_TRUE(Contains(exclusive.err, "authentication-config file and oidc-* flags are mutually exclusive")) << exclusive.err;
  auto invalid = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--authentication-config=" + authn_file});
  EXPECT_EQ(invalid.exit_code, 1);
  EXPECT_TRUE(Contains(invalid.err, "[jwt[0].issuer.url: Invalid value: \"http://issuer.example\": URL scheme must be https, "
                                    "jwt[0].claimMappings.username.prefix: Required value: prefix is required when claim is "
                                    "set. It can be set to an empty string to disable prefixing]"))
      << invalid.err;
  auto authz = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--authorization-config=/nonexistent/authz.yaml"});
  EXPECT_EQ(authz.exit_code, 1);
  EXPECT_TRUE(Contains(authz.err, "open /nonexistent/authz.yaml: no such file or directory")) << authz.err;
  auto tls = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--tls-min-version=TLS13"});
  EXPECT_EQ(tls.exit_code, 1);
  EXPECT_TRUE(Contains(tls.err, "Error: unknown tls version \"TLS13\"")) << tls.err;
  auto hsts = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--strict-transport-security-directives=max-age"});
  EXPECT_EQ(hsts.exit_code, 2);
  EXPECT_TRUE(Contains(hsts.err, "--strict-transport-security-directives invalid, allowed values")) << hsts.err;
  auto component = RunCommand({Binary(), "--data-dir", dir, "--secure-port", "0", "--feature-gates=wardle:A=true"});
  EXPECT_NE(component.exit_code, 0);
  EXPECT_TRUE(Contains(component.err, "component not registered: wardle")) << component.err;
}

class FeatureGatesTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    defaults_ = new ServerProcess();
    gated_ = new ServerProcess({"--feature-gates=kube:WatchList=false", "--feature-gates=kube:AllAlpha=false,kube:APIServerIdentity=false,kube:InPlacePodVerticalScaling=true",
                                "--allow-privileged=true", "--runtime-config=batch/v1/cronjobs=false,storage.k8s.io/v1=false",
                                "--runtime-config=resource.k8s.io/v1beta1=true",
                                "--admission-control=NamespaceLifecycle,DefaultTolerationSeconds",
                                "--default-not-ready-toleration-seconds=60", "--default-unreachable-toleration-seconds=90",
                                "--endpoint-reconciler-type=none", "--event-ttl=2s"});
  }
  static void TearDownTestSuite() {
    delete defaults_;
    delete gated_;
    defaults_ = gated_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(defaults_->ok()) << defaults_->error();
    ASSERT_TRUE(gated_->ok()) << gated_->error();
  }
  static ServerProcess* defaults_;
  static ServerProcess* gated_;
};
ServerProcess* FeatureGatesTest::defaults_ = nullptr;
ServerProcess* FeatureGatesTest::gated_ = nullptr;

TEST_F(FeatureGatesTest, WatchListGateDecidesSendInitialEvents) {
  const std::string watch_list =
      "/api/v1/namespaces/default/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
      "&allowWatchBookmarks=true&timeoutSeconds=1";
  auto on = defaults_->Kubectl({"get", "--raw", watch_list});
  EXPECT_EQ(on.exit_code, 0) << on.err;
  EXPECT_TRUE(Contains(on.out, "\"type\":\"BOOKMARK\"")) << on.out;
  EXPECT_TRUE(Contains(on.out, "k8s.io/initial-events-end")) << on.out;
  auto off = gated_->Kubectl({"get", "--raw", watch_list});
  EXPECT_NE(off.exit_code, 0);
  EXPECT_TRUE(Contains(off.err, "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the "
                                "WatchList feature gate is enabled"))
      << off.err;
}

TEST_F(FeatureGatesTest, RuntimeConfigSwitchesVersionsAndResources) {
  auto on = defaults_->Kubectl({"api-resources", "-o", "name"}).out;
  EXPECT_TRUE(Contains(on, "\ncronjobs.batch\n")) << on;
  EXPECT_TRUE(Contains(on, "\nstorageclasses.storage.k8s.io\n")) << on;
  auto off = gated_->Kubectl({"api-resources", "-o", "name"}).out;
  EXPECT_FALSE(Contains(off, "cronjobs.batch")) << off;
  EXPECT_TRUE(Contains(off, "\njobs.batch\n")) << off;
  EXPECT_FALSE(Contains(off, "storage.k8s.io")) << off;
  auto get = gated_->Kubectl({"get", "--raw", "/apis/batch/v1/namespaces/default/cronjobs"});
  EXPECT_NE(get.exit_code, 0);
  EXPECT_TRUE(Contains(get.err, "NotFound")) << get.err;
  EXPECT_TRUE(Contains(gated_->log(), "API group versions enabled by --runtime-config are not served"))
      << "a version Capstan lacks is named at start";
  EXPECT_TRUE(Contains(gated_->log(), "groupVersions=\"resource.k8s.io/v1beta1\"")) << gated_->log().substr(0, 3000);
}

TEST_F(FeatureGatesTest, AdmissionControlNamesTheWholePluginSet) {
  const std::string pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: plain\nspec:\n  containers:\n  - name: c\n    image: nginx\n";
  ASSERT_TRUE(defaults_->WaitForDefaultServiceAccount());
  ASSERT_TRUE(gated_->WaitForDefaultServiceAccount());
  ASSERT_EQ(defaults_->Kubectl({"create", "-f", "-"}, pod).exit_code, 0);
  ASSERT_EQ(gated_->Kubectl({"create", "-f", "-"}, pod).exit_code, 0);
  const std::vector<std::string> get = {"get", "pod", "plain", "-o", "jsonpath={.spec.tolerations[*].key} {.spec.serviceAccountName}"};
  EXPECT_EQ(defaults_->Kubectl(get).out, "node.kubernetes.io/not-ready node.kubernetes.io/unreachable default")
      << "DefaultTolerationSeconds and ServiceAccount are on by default";
  EXPECT_EQ(gated_->Kubectl(get).out, "node.kubernetes.io/not-ready node.kubernetes.io/unreachable ")
      << "--admission-control names the whole set: ServiceAccount is off";
  const std::vector<std::string> seconds = {"get", "pod", "plain", "-o", "jsonpath={.spec.tolerations[*].tolerationSeconds}"};
  EXPECT_EQ(defaults_->Kubectl(seconds).out, "300 300");
  EXPECT_EQ(gated_->Kubectl(seconds).out, "60 90") << "--default-not-ready/unreachable-toleration-seconds";
}

TEST_F(FeatureGatesTest, EndpointReconcilerNoneLeavesTheKubernetesEndpointsAlone) {
  EXPECT_EQ(defaults_->Kubectl({"get", "service", "kubernetes", "-o", "name"}).out, "service/kubernetes\n");
  EXPECT_EQ(gated_->Kubectl({"get", "service", "kubernetes", "-o", "name"}).out, "service/kubernetes\n");
  std::string on;
  for (int i = 0; i < 50 && on.empty(); ++i) {
    on = defaults_->Kubectl({"get", "endpoints", "kubernetes", "-o", "jsonpath={.subsets[*].ports[*].name}"}).out;
    if (on.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(on, "https");
  auto none = gated_->Kubectl({"get", "endpoints", "kubernetes"});
  EXPECT_NE(none.exit_code, 0);
  EXPECT_TRUE(Contains(none.err, "NotFound")) << none.err;
}

TEST_F(FeatureGatesTest, EventTtlDecidesHowLongEventsAreKept) {
  const std::string event = "apiVersion: v1\nkind: Event\nmetadata:\n  name: e1\ninvolvedObject:\n  kind: Pod\n"
                            "  name: plain\n  namespace: default\nreason: Test\nmessage: hello\ntype: Normal\n";
  ASSERT_EQ(defaults_->Kubectl({"create", "-f", "-"}, event).exit_code, 0);
  ASSERT_EQ(gated_->Kubectl({"create", "-f", "-"}, event).exit_code, 0);
  bool gone = false;
  for (int i = 0; i < 60 && !gone; ++i) {
    gone = gated_->Kubectl({"get", "event", "e1", "-o", "name"}).exit_code != 0;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_TRUE(gone) << "--event-ttl=2s";
  EXPECT_EQ(defaults_->Kubectl({"get", "event", "e1", "-o", "name"}).out, "event/e1\n") << "an hour by default";
}

TEST_F(FeatureGatesTest, EachServerKeepsAnIdentityLeaseUnlessItsGateIsOff) {
  const std::vector<std::string> get = {"get", "leases", "-n", "kube-system", "-l", "apiserver.kubernetes.io/identity=kube-apiserver",
                                        "-o", "jsonpath={.items[*].metadata.name} {.items[*].spec.leaseDurationSeconds}"};
  std::string out;
  for (int i = 0; i < 50 && out.rfind("apiserver-", 0) != 0; ++i) {
    out = defaults_->Kubectl(get).out;
    if (out.rfind("apiserver-", 0) != 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(out.size(), std::string("apiserver-").size() + 26 + std::string(" 3600").size()) << out;
  EXPECT_TRUE(Contains(out, " 3600")) << out;
  auto holder = defaults_->Kubectl({"get", "lease", "-n", "kube-system", out.substr(0, out.find(' ')), "-o",
                                    "jsonpath={.spec.holderIdentity}"}).out;
  EXPECT_EQ(holder.rfind(out.substr(0, out.find(' ')) + "_", 0), 0u) << holder;
  EXPECT_EQ(gated_->Kubectl(get).out, " ") << "APIServerIdentity=false";
}

TEST_F(FeatureGatesTest, GatesThatDecideNothingAreNamedAtStart) {
  EXPECT_TRUE(Contains(gated_->log(), "feature gates switched from their default that Capstan does not act on"))
      << gated_->log().substr(0, 3000);
  // InPlacePodVerticalScaling=true by name; WindowsHostNetwork (alpha, on by default) through AllAlpha=false;
  // WatchList and APIServerIdentity act, so they are not named.
  EXPECT_TRUE(Contains(gated_->log(), "gates=\"InPlacePodVerticalScaling,WindowsHostNetwork\"")) << gated_->log().substr(0, 3000);
  EXPECT_FALSE(Contains(defaults_->log(), "does not act on"));
}

TEST_F(FeatureGatesTest, MetricsReportEveryGate) {
  auto on = defaults_->Kubectl({"get", "--raw", "/metrics"}).out;
  EXPECT_TRUE(Contains(on, "kubernetes_feature_enabled{name=\"WatchList\",stage=\"BETA\"} 1")) << on.substr(0, 500);
  EXPECT_TRUE(Contains(on, "kubernetes_feature_enabled{name=\"APIListChunking\",stage=\"\"} 1"));
  EXPECT_TRUE(Contains(on, "kubernetes_feature_enabled{name=\"MutatingAdmissionPolicy\",stage=\"ALPHA\"} 0"));
  auto off = gated_->Kubectl({"get", "--raw", "/metrics"}).out;
  EXPECT_TRUE(Contains(off, "kubernetes_feature_enabled{name=\"WatchList\",stage=\"BETA\"} 0"));
}

TEST_F(FeatureGatesTest, PrivilegedContainersNeedAllowPrivileged) {
  auto pod = defaults_->Kubectl({"create", "-f", "-"}, PrivilegedPod("p"));
  EXPECT_NE(pod.exit_code, 0);
  EXPECT_TRUE(Contains(pod.err, "The Pod \"p\" is invalid: spec.containers[0].securityContext.privileged: Forbidden: "
                                "disallowed by cluster policy"))
      << pod.err;
  auto deploy = defaults_->Kubectl({"create", "-f", "-"}, PrivilegedDeployment("d"));
  EXPECT_NE(deploy.exit_code, 0);
  EXPECT_TRUE(Contains(deploy.err, "spec.template.spec.initContainers[0].securityContext.privileged: Forbidden: "
                                   "disallowed by cluster policy"))
      << deploy.err;
  EXPECT_NE(defaults_->Kubectl({"get", "pod", "p"}).exit_code, 0) << "nothing was stored";
  EXPECT_NE(defaults_->Kubectl({"get", "deployment", "d"}).exit_code, 0);

  auto allowed = gated_->Kubectl({"create", "-f", "-"}, PrivilegedPod("p"));
  EXPECT_EQ(allowed.exit_code, 0) << allowed.err;
  auto allowed_deploy = gated_->Kubectl({"create", "-f", "-"}, PrivilegedDeployment("d"));
  EXPECT_EQ(allowed_deploy.exit_code, 0) << allowed_deploy.err;
}

}  // namespace
}  // namespace capstan::e2e
