// End-to-end: the in-process control loops driven with the real kubectl (issue 13): namespace
// deletion with content, a finalizer holding a namespace in Terminating with kube's condition,
// garbage collection under background, foreground and orphan cascades, the default service account
// and kube-root-ca.crt in new namespaces, service-account token Secrets, --controllers, the leader Lease and the workqueue metrics.
// Waits poll with generous deadlines; the elapsed times are printed, not asserted.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "e2e_util.h"

namespace capstan::e2e {
namespace {

std::string ReadFile(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool Eventually(const std::function<bool()>& cond, std::chrono::seconds timeout = std::chrono::seconds(90)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return cond();
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

class ControllersE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new ServerProcess(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(server_->ok()) << server_->error(); }

  // kubectl 1.31: its `create <kind>` commands send JSON.
  static CommandResult K(const std::vector<std::string>& args, const std::string& input = "") {
    return server_->Kubectl(args, input, "31");
  }
  // Standard output without its trailing newline; "" when kubectl failed.
  static std::string Out(const std::vector<std::string>& args) {
    auto r = K(args);
    if (r.exit_code != 0) return "";
    while (!r.out.empty() && r.out.back() == '\n') r.out.pop_back();
    return r.out;
  }
  static bool NotFound(const std::vector<std::string>& get_args) {
    auto r = K(get_args);
    return r.exit_code != 0 && r.err.find("NotFound") != std::string::npos;
  }
  static std::string Uid(const std::string& kind, const std::string& ns, const std::string& name) {
    return Out({"get", kind, name, "-n", ns, "-o", "jsonpath={.metadata.uid}"});
  }
  // An owner ConfigMap and `n` ConfigMap and Secret dependents that reference it.
  static void MakeFamily(const std::string& ns, const std::string& owner, int n, bool block) {
    ASSERT_EQ(K({"create", "configmap", owner, "-n", ns, "--from-literal=role=owner"}).exit_code, 0);
    std::string uid = Uid("configmap", ns, owner);
    ASSERT_FALSE(uid.empty());
    std::string ref = R"({"apiVersion":"v1","kind":"ConfigMap","name":")" + owner + R"(","uid":")" + uid + "\"" +
                      (block ? R"(,"blockOwnerDeletion":true)" : "") + "}";
    std::string items;
    for (int i = 0; i < n; ++i) {
      if (!items.empty()) items += ",";
      items += R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":")" + owner + "-cm-" + std::to_string(i) +
               R"(","ownerReferences":[)" + ref + R"(]},"data":{"k":"v"}})";
      items += R"(,{"apiVersion":"v1","kind":"Secret","metadata":{"name":")" + owner + "-secret-" + std::to_string(i) +
               R"(","ownerReferences":[)" + ref + R"(]},"stringData":{"k":"v"}})";
    }
    auto r = K({"create", "-n", ns, "-f", "-"}, R"({"apiVersion":"v1","kind":"List","items":[)" + items + "]}");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static bool FamilyGone(const std::string& ns, const std::string& owner, int n) {
    for (int i = 0; i < n; ++i) {
      if (!NotFound({"get", "configmap", owner + "-cm-" + std::to_string(i), "-n", ns})) return false;
      if (!NotFound({"get", "secret", owner + "-secret-" + std::to_string(i), "-n", ns})) return false;
    }
    return true;
  }

  static ServerProcess* server_;
};
ServerProcess* ControllersE2E::server_ = nullptr;

TEST_F(ControllersE2E, DeleteNamespaceWithContentCompletes) {
  ASSERT_EQ(K({"create", "namespace", "e2e-del"}).exit_code, 0);
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(K({"create", "configmap", "cm-" + std::to_string(i), "-n", "e2e-del", "--from-literal=a=b"}).exit_code, 0);
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(K({"create", "secret", "generic", "s-" + std::to_string(i), "-n", "e2e-del", "--from-literal=a=b"}).exit_code, 0);
  }
  ASSERT_EQ(K({"create", "serviceaccount", "builder", "-n", "e2e-del"}).exit_code, 0);
  ASSERT_EQ(K({"create", "-n", "e2e-del", "-f", "-"},
              R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"holderIdentity":"x"}})")
                .exit_code,
            0);
  auto t0 = std::chrono::steady_clock::now();
  auto del = K({"delete", "namespace", "e2e-del", "--timeout=120s"});
  ASSERT_EQ(del.exit_code, 0) << del.err;
  std::printf("kubectl delete namespace (14 objects + defaults) returned after %.2f s\n", SecondsSince(t0));
  EXPECT_TRUE(NotFound({"get", "namespace", "e2e-del"}));
  EXPECT_EQ(Out({"get", "configmaps", "-n", "e2e-del", "-o", "name"}), "");
}

TEST_F(ControllersE2E, FinalizerHoldsNamespaceInTerminatingWithCondition) {
  ASSERT_EQ(K({"create", "namespace", "e2e-hold"}).exit_code, 0);
  ASSERT_EQ(K({"create", "-n", "e2e-hold", "-f", "-"},
              R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"pinned","finalizers":["example.com/hold"]}})")
                .exit_code,
            0);
  ASSERT_EQ(K({"delete", "namespace", "e2e-hold", "--wait=false"}).exit_code, 0);
  const std::string want = "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances";
  ASSERT_TRUE(Eventually([&] {
    return Out({"get", "namespace", "e2e-hold", "-o",
                R"(jsonpath={.status.conditions[?(@.type=="NamespaceFinalizersRemaining")].message})"}) == want;
  }));
  EXPECT_EQ(Out({"get", "namespace", "e2e-hold", "-o",
                 R"(jsonpath={.status.conditions[?(@.type=="NamespaceContentRemaining")].message})"}),
            "Some resources are remaining: configmaps. has 1 resource instances");
  EXPECT_EQ(Out({"get", "namespace", "e2e-hold", "-o", "jsonpath={.status.phase}"}), "Terminating");
  auto table = K({"get", "namespace", "e2e-hold"});
  EXPECT_NE(table.out.find("Terminating"), std::string::npos) << table.out;

  auto t0 = std::chrono::steady_clock::now();
  auto patch = K({"patch", "configmap", "pinned", "-n", "e2e-hold", "--type=merge", "-p", R"({"metadata":{"finalizers":null}})"});
  ASSERT_EQ(patch.exit_code, 0) << patch.err;
  auto wait = K({"wait", "--for=delete", "namespace/e2e-hold", "--timeout=90s"});
  EXPECT_EQ(wait.exit_code, 0) << wait.err;
  std::printf("namespace gone %.2f s after its last finalizer was removed\n", SecondsSince(t0));
  EXPECT_TRUE(NotFound({"get", "namespace", "e2e-hold"}));
}

TEST_F(ControllersE2E, BackgroundCascadeCollectsDependents) {
  MakeFamily("default", "bg-owner", 3, false);
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(K({"delete", "configmap", "bg-owner", "-n", "default"}).exit_code, 0);
  EXPECT_TRUE(Eventually([&] { return FamilyGone("default", "bg-owner", 3); }));
  std::printf("background: 6 dependents collected %.2f s after the owner was deleted\n", SecondsSince(t0));
}

TEST_F(ControllersE2E, ForegroundCascadeDeletesBlockingDependentsBeforeTheOwner) {
  MakeFamily("default", "fg-owner", 3, true);
  auto t0 = std::chrono::steady_clock::now();
  auto r = K({"delete", "configmap", "fg-owner", "-n", "default", "--cascade=foreground", "--timeout=90s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::printf("foreground: owner gone %.2f s after kubectl delete\n", SecondsSince(t0));
  // kubectl waited for the owner to go; its blocking dependents had to go first.
  EXPECT_TRUE(NotFound({"get", "configmap", "fg-owner", "-n", "default"}));
  EXPECT_TRUE(FamilyGone("default", "fg-owner", 3));
}

TEST_F(ControllersE2E, OrphanCascadeLeavesDependents) {
  MakeFamily("default", "or-owner", 2, true);
  auto r = K({"delete", "configmap", "or-owner", "-n", "default", "--cascade=orphan", "--timeout=90s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(NotFound({"get", "configmap", "or-owner", "-n", "default"}));
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(Out({"get", "configmap", "or-owner-cm-" + std::to_string(i), "-n", "default", "-o",
                   "jsonpath={.metadata.name}|{.metadata.ownerReferences}"}),
              "or-owner-cm-" + std::to_string(i) + "|");
    EXPECT_EQ(Out({"get", "secret", "or-owner-secret-" + std::to_string(i), "-n", "default", "-o",
                   "jsonpath={.metadata.name}|{.metadata.ownerReferences}"}),
              "or-owner-secret-" + std::to_string(i) + "|");
  }
}

TEST_F(ControllersE2E, NewNamespaceGetsDefaultServiceAccountAndRootCA) {
  ASSERT_EQ(K({"create", "namespace", "e2e-fresh"}).exit_code, 0);
  EXPECT_TRUE(Eventually([&] { return Out({"get", "serviceaccount", "default", "-n", "e2e-fresh", "-o", "name"}) ==
                                      "serviceaccount/default"; }));
  std::string ca = ReadFile(server_->data_dir() + "/pki/ca.crt");
  ASSERT_FALSE(ca.empty());
  while (!ca.empty() && ca.back() == '\n') ca.pop_back();  // as Out() returns it
  EXPECT_TRUE(Eventually([&] {
    return Out({"get", "configmap", "kube-root-ca.crt", "-n", "e2e-fresh", "-o", R"(jsonpath={.data.ca\.crt})"}) == ca;
  }));
  // The default namespaces got them at start too.
  EXPECT_EQ(Out({"get", "configmap", "kube-root-ca.crt", "-n", "kube-system", "-o", R"(jsonpath={.data.ca\.crt})"}), ca);
  // Deleted: it comes back.
  ASSERT_EQ(K({"delete", "serviceaccount", "default", "-n", "e2e-fresh"}).exit_code, 0);
  EXPECT_TRUE(Eventually([&] { return Out({"get", "serviceaccount", "default", "-n", "e2e-fresh", "-o", "name"}) ==
                                      "serviceaccount/default"; }));
}

TEST_F(ControllersE2E, ServiceAccountTokenSecretsAreFilledAndGoWithTheirAccount) {
  ASSERT_EQ(K({"create", "namespace", "e2e-tokens"}).exit_code, 0);
  ASSERT_EQ(K({"create", "serviceaccount", "robot", "-n", "e2e-tokens"}).exit_code, 0);
  const std::string secret = R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"robot-token",
    "annotations":{"kubernetes.io/service-account.name":"robot"}},"type":"kubernetes.io/service-account-token"})";
  ASSERT_EQ(K({"apply", "-n", "e2e-tokens", "-f", "-"}, secret).exit_code, 0);
  std::string token_b64;
  EXPECT_TRUE(Eventually([&] {
    token_b64 = Out({"get", "secret", "robot-token", "-n", "e2e-tokens", "-o", "jsonpath={.data.token}"});
    return !token_b64.empty();
  }));
  const std::string uid = Out({"get", "serviceaccount", "robot", "-n", "e2e-tokens", "-o", "jsonpath={.metadata.uid}"});
  EXPECT_EQ(Out({"get", "secret", "robot-token", "-n", "e2e-tokens", "-o",
                 R"(jsonpath={.metadata.annotations.kubernetes\.io/service-account\.uid})"}),
            uid);
  EXPECT_EQ(Out({"get", "secret", "robot-token", "-n", "e2e-tokens", "-o", R"(jsonpath={.data.namespace})"}),
            "ZTJlLXRva2Vucw==");  // base64 of e2e-tokens
  std::string ca = ReadFile(server_->data_dir() + "/pki/ca.crt");
  auto ca_b64 = Out({"get", "secret", "robot-token", "-n", "e2e-tokens", "-o", R"(jsonpath={.data.ca\.crt})"});
  auto decoded = RunCommand({"base64", "-d"}, ca_b64);
  EXPECT_EQ(decoded.out, ca);
  // The token authenticates as the service account (the legacy token authenticator).
  auto token = RunCommand({"base64", "-d"}, token_b64).out;
  ASSERT_FALSE(token.empty());
  auto who = RunCommand({KubectlPath("31"), "--server", "https://127.0.0.1:" + std::to_string(server_->port()),
                         "--insecure-skip-tls-verify", "--token", token, "auth", "whoami", "-o",
                         "jsonpath={.status.userInfo.username}"});
  EXPECT_EQ(who.out, "system:serviceaccount:e2e-tokens:robot") << who.err;
  // A token Secret for an account that does not exist is deleted.
  const std::string orphan = R"({"apiVersion":"v1","kind":"Secret","metadata":{"name":"ghost-token",
    "annotations":{"kubernetes.io/service-account.name":"ghost"}},"type":"kubernetes.io/service-account-token"})";
  ASSERT_EQ(K({"apply", "-n", "e2e-tokens", "-f", "-"}, orphan).exit_code, 0);
  EXPECT_TRUE(Eventually([&] { return K({"get", "secret", "ghost-token", "-n", "e2e-tokens"}).exit_code != 0; }));
  // Deleting the account deletes its token Secrets.
  ASSERT_EQ(K({"delete", "serviceaccount", "robot", "-n", "e2e-tokens"}).exit_code, 0);
  EXPECT_TRUE(Eventually([&] { return K({"get", "secret", "robot-token", "-n", "e2e-tokens"}).exit_code != 0; }));
}

TEST_F(ControllersE2E, LeaseNamesTheLeaderAndMetricsShowTheQueues) {
  EXPECT_FALSE(Out({"get", "lease", "capstan-controller-manager", "-n", "kube-system", "-o",
                    "jsonpath={.spec.holderIdentity}"})
                   .empty());
  std::string metrics = Out({"get", "--raw", "/metrics"});
  for (const char* s : {"workqueue_adds_total{name=\"namespace\"}", "workqueue_depth{name=\"serviceaccount\"}",
                        "workqueue_work_duration_seconds_bucket{name=\"garbage_collector_attempt_to_delete\"",
                        "workqueue_retries_total{name=\"root_ca_cert_publisher\"}",
                        "leader_election_master_status{name=\"capstan-controller-manager\"} 1"}) {
    EXPECT_NE(metrics.find(s), std::string::npos) << s;
  }
}

TEST_F(ControllersE2E, OwnerChainOfWorkloadsIsCollectedWhenServed) {
  if (Out({"api-resources", "--api-group=apps", "-o", "name"}).find("replicasets") == std::string::npos ||
      Out({"api-resources", "--api-group=", "-o", "name"}).find("pods") == std::string::npos) {
    GTEST_SKIP() << "apps/v1 ReplicaSets or core/v1 Pods are not served by this build";
  }
  // deployment → replicaset → pod, linked by hand (no workload controllers run here).
  auto dep = K({"create", "deployment", "web", "-n", "default", "--image=nginx"});
  ASSERT_EQ(dep.exit_code, 0) << dep.err;
  std::string dep_uid = Uid("deployment", "default", "web");
  std::string rs = R"({"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"web-1","labels":{"app":"web"},
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"Deployment","name":"web","uid":")" + dep_uid +
                   R"(","controller":true,"blockOwnerDeletion":true}]},"spec":{"replicas":0,"selector":{"matchLabels":{"app":"web"}},
    "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}})";
  auto r = K({"create", "-n", "default", "-f", "-"}, rs);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string rs_uid = Uid("replicaset", "default", "web-1");
  std::string pod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-1-x","labels":{"app":"web"},
    "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-1","uid":")" + rs_uid +
                    R"(","controller":true,"blockOwnerDeletion":true}]},"spec":{"containers":[{"name":"c","image":"nginx"}]}})";
  r = K({"create", "-n", "default", "-f", "-"}, pod);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = K({"delete", "deployment", "web", "-n", "default", "--cascade=foreground", "--timeout=90s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(Eventually([&] {
    return NotFound({"get", "replicaset", "web-1", "-n", "default"}) && NotFound({"get", "pod", "web-1-x", "-n", "default"});
  }));
}

TEST(ControllersFlagE2E, DisabledLoopsDoNotRunAndUnknownNamesAreRejected) {
  ServerProcess server({"--controllers=*,-serviceaccount-controller"});
  ASSERT_TRUE(server.ok()) << server.error();
  ASSERT_EQ(server.Kubectl({"create", "namespace", "no-sa"}, "", "31").exit_code, 0);
  // The root CA publisher runs: once its ConfigMap is there, the (disabled) account would have been too.
  ASSERT_TRUE(Eventually([&] {
    return server.Kubectl({"get", "configmap", "kube-root-ca.crt", "-n", "no-sa", "-o", "name"}, "", "31").exit_code == 0;
  }));
  auto sa = server.Kubectl({"get", "serviceaccount", "default", "-n", "no-sa"}, "", "31");
  EXPECT_NE(sa.exit_code, 0);

  auto bad = RunCommand({Binary(), "--controllers=*,-nosuch", "--data-dir", "/nonexistent-unused"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("\"nosuch\" is not in the list of known controllers"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace capstan::e2e
