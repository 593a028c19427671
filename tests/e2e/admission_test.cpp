// End-to-end admission webhooks: the real build/capstan and real kubectl against an HTTPS webhook
// server the test runs on loopback (Capstan's own server code with a test CA, trusted through
// caBundle). A validating webhook refuses a configmap with kube's message, a mutating webhook adds a
// label (its JSONPatch applied, its warning shown by kubectl, its audit annotation logged), a
// namespaceSelector limits both to one namespace, and a webhook that is down fails the request under
// failurePolicy Fail and is skipped under Ignore. Also the audit webhook backend.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <fstream>
#include <mutex>
#include <sstream>

#include "authn_test_util.h"
#include "e2e_util.h"
#include "util/strings.h"

namespace capstan::e2e {
namespace {

namespace json = boost::json;
using authn::testing::JsonReply;
using authn::testing::TestCa;
using authn::testing::TestHttpsServer;

http::HttpResponse Review(const http::HttpRequest& req, std::atomic<int>& calls) {
  calls++;
  auto review = json::parse(req.body).as_object();
  auto& request = review["request"].as_object();
  json::object resp;
  resp["uid"] = request["uid"];
  resp["allowed"] = true;
  std::string name;
  if (request["object"].is_object()) {
    auto& md = request["object"].as_object()["metadata"].as_object();
    if (auto* n = md.if_contains("name")) name = std::string(n->as_string());
    if (req.path == "/mutate") {
      json::array patch;
      if (md.contains("labels")) {
        patch.push_back(json::object{{"op", "add"}, {"path", "/metadata/labels/mutated"}, {"value", "true"}});
      } else {
        patch.push_back(json::object{{"op", "add"}, {"path", "/metadata/labels"}, {"value", json::object{{"mutated", "true"}}}});
      }
      resp["patchType"] = "JSONPatch";
      resp["patch"] = Base64Encode(json::serialize(patch));
      resp["warnings"] = json::array{"label added by the test webhook"};
    }
  }
  if (req.path == "/validate" && name.rfind("bad-", 0) == 0) {
    resp["allowed"] = false;
    resp["status"] = json::object{{"code", 403}, {"message", "configmap names may not start with bad-"}};
  }
  json::object out{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", resp}};
  return JsonReply(200, json::serialize(out));
}

std::string Config(const std::string& kind, const std::string& name, const std::string& url, const std::string& ca,
                   const std::string& ns_label, const std::string& failure_policy = "Fail") {
  std::string path = kind == "MutatingWebhookConfiguration" ? "mutate" : "validate";
  return "apiVersion: admissionregistration.k8s.io/v1\nkind: " + kind + "\nmetadata:\n  name: " + name +
         "\nwebhooks:\n- name: " + name + ".capstan.test\n  clientConfig:\n    url: " + url +
         "\n    caBundle: " + Base64Encode(ca) +
         "\n  rules:\n  - operations: [CREATE, UPDATE]\n    apiGroups: [\"\"]\n    apiVersions: [v1]\n    resources: "
         "[configmaps]\n  namespaceSelector:\n    matchLabels:\n      " +
         ns_label + ": \"yes\"\n  failurePolicy: " + failure_policy +
         "\n  sideEffects: None\n  admissionReviewVersions: [v1]\n  timeoutSeconds: 5\n";
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AdmissionE2eTest, ValidatingAndMutatingWebhooks) {
  TestCa ca;
  std::atomic<int> calls{0};
  TestHttpsServer hook(ca, [&calls](const http::HttpRequest& req) { return Review(req, calls); });
  ASSERT_TRUE(hook.ok());
  std::string dir = MakeTempDir("capstan-admission-e2e");
  std::string policy = dir + "/policy.yaml";
  std::ofstream(policy) << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Request\n  resources: [{group: \"\", "
                           "resources: [configmaps]}]\n";
  ServerProcess server({"--audit-policy-file=" + policy, "--audit-log-path=" + dir + "/audit.log"});
  ASSERT_TRUE(server.ok()) << server.error();

  ASSERT_EQ(server.Kubectl({"create", "namespace", "wh"}).exit_code, 0);
  ASSERT_EQ(server.Kubectl({"label", "namespace", "wh", "webhooks=yes"}).exit_code, 0);
  auto v = server.Kubectl({"apply", "-f", "-"},
                          Config("ValidatingWebhookConfiguration", "deny", hook.url("/validate"), ca.pem(), "webhooks"));
  ASSERT_EQ(v.exit_code, 0) << v.err;
  auto m = server.Kubectl({"apply", "-f", "-"},
                          Config("MutatingWebhookConfiguration", "label", hook.url("/mutate"), ca.pem(), "webhooks"));
  ASSERT_EQ(m.exit_code, 0) << m.err;

  auto denied = server.Kubectl({"create", "configmap", "bad-one", "-n", "wh", "--from-literal=a=b"});
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.err.find("admission webhook \"deny.capstan.test\" denied the request: configmap names may not "
                            "start with bad-"),
            std::string::npos)
      << denied.err;

  auto good = server.Kubectl({"create", "configmap", "good-one", "-n", "wh", "--from-literal=a=b"});
  ASSERT_EQ(good.exit_code, 0) << good.err;
  EXPECT_NE(good.err.find("Warning: label added by the test webhook"), std::string::npos) << good.err;
  auto label = server.Kubectl({"get", "configmap", "good-one", "-n", "wh", "-o", "jsonpath={.metadata.labels.mutated}"});
  EXPECT_EQ(label.out, "true");

  // Outside the selected namespace neither webhook is called.
  int before = calls;
  auto plain = server.Kubectl({"create", "configmap", "bad-but-elsewhere", "--from-literal=a=b"});
  EXPECT_EQ(plain.exit_code, 0) << plain.err;
  auto unlabeled = server.Kubectl({"get", "configmap", "bad-but-elsewhere", "-o", "jsonpath={.metadata.labels}"});
  EXPECT_EQ(unlabeled.out, "");
  EXPECT_EQ(calls, before);

  // A webhook that is down: Fail refuses, Ignore lets the request through.
  ASSERT_EQ(server.Kubectl({"create", "namespace", "down"}).exit_code, 0);
  ASSERT_EQ(server.Kubectl({"label", "namespace", "down", "down=yes"}).exit_code, 0);
  auto d = server.Kubectl({"apply", "-f", "-"}, Config("ValidatingWebhookConfiguration", "unreachable",
                                                       "https://127.0.0.1:1/validate", ca.pem(), "down"));
  ASSERT_EQ(d.exit_code, 0) << d.err;
  auto fails = server.Kubectl({"create", "configmap", "x", "-n", "down", "--from-literal=a=b"});
  EXPECT_NE(fails.exit_code, 0);
  EXPECT_NE(fails.err.find("Internal error occurred: failed calling webhook \"unreachable.capstan.test\": failed to "
                           "call webhook: Post \"https://127.0.0.1:1/validate?timeout=5s\""),
            std::string::npos)
      << fails.err;
  auto d2 = server.Kubectl({"apply", "-f", "-"}, Config("ValidatingWebhookConfiguration", "unreachable",
                                                        "https://127.0.0.1:1/validate", ca.pem(), "down", "Ignore"));
  ASSERT_EQ(d2.exit_code, 0) << d2.err;
  auto passes = server.Kubectl({"create", "configmap", "x", "-n", "down", "--from-literal=a=b"});
  EXPECT_EQ(passes.exit_code, 0) << passes.err;

  ASSERT_EQ(server.Stop(), 0);
  std::string log = ReadAll(dir + "/audit.log");
  EXPECT_NE(log.find("\"mutation.webhook.admission.k8s.io/round_0_index_0\":\"{\\\"configuration\\\":\\\"label\\\","
                     "\\\"webhook\\\":\\\"label.capstan.test\\\",\\\"mutated\\\":true}\""),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("\"patch.webhook.admission.k8s.io/round_0_index_0\""), std::string::npos);
  EXPECT_NE(log.find("\"failed-open.validating.webhook.admission.k8s.io/round_0_index_0\":\"unreachable.capstan.test\""),
            std::string::npos);
}

// The built-in plugins kube enables by default that Capstan has, through kubectl.
TEST(BuiltinAdmissionE2eTest, ServiceAccountTolerationsStorageClassPriorityAndLimits) {
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto run = server.Kubectl({"run", "plain", "--image=nginx"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto pod = server.Kubectl({"get", "pod", "plain", "-o",
                             "jsonpath={.spec.serviceAccountName}|{.spec.volumes[0].name}|"
                             "{.spec.containers[0].volumeMounts[0].mountPath}|{.spec.tolerations[*].key}|"
                             "{.spec.tolerations[0].tolerationSeconds}"});
  ASSERT_EQ(pod.exit_code, 0) << pod.err;
  auto parts = Split(pod.out, '|');
  ASSERT_EQ(parts.size(), 5u) << pod.out;
  EXPECT_EQ(parts[0], "default");
  EXPECT_EQ(parts[1].rfind("kube-api-access-", 0), 0u) << pod.out;
  EXPECT_EQ(parts[2], "/var/run/secrets/kubernetes.io/serviceaccount");
  EXPECT_EQ(parts[3], "node.kubernetes.io/not-ready node.kubernetes.io/unreachable");
  EXPECT_EQ(parts[4], "300");

  auto missing = server.Kubectl({"create", "-f", "-"},
                                "apiVersion: v1\nkind: Pod\nmetadata: {name: lost}\nspec:\n  serviceAccountName: nope\n"
                                "  containers: [{name: c, image: nginx}]\n");
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("pods \"lost\" is forbidden: error looking up service account default/nope: "
                             "serviceaccount \"nope\" not found"),
            std::string::npos)
      << missing.err;

  auto no_mount = server.Kubectl({"create", "-f", "-"},
                                 "apiVersion: v1\nkind: Pod\nmetadata: {name: quiet}\nspec:\n  automountServiceAccountToken: false\n"
                                 "  containers: [{name: c, image: nginx}]\n");
  ASSERT_EQ(no_mount.exit_code, 0) << no_mount.err;
  EXPECT_EQ(server.Kubectl({"get", "pod", "quiet", "-o", "jsonpath={.spec.volumes}"}).out, "");

  auto sc = server.Kubectl({"apply", "-f", "-"},
                           "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: standard\n  annotations:\n"
                           "    storageclass.kubernetes.io/is-default-class: \"true\"\nprovisioner: example.com/none\n");
  ASSERT_EQ(sc.exit_code, 0) << sc.err;
  auto pvc = server.Kubectl({"create", "-f", "-"},
                            "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec:\n  accessModes: "
                            "[ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n");
  ASSERT_EQ(pvc.exit_code, 0) << pvc.err;
  EXPECT_EQ(server.Kubectl({"get", "pvc", "data", "-o", "jsonpath={.spec.storageClassName}"}).out, "standard");

  // Priority: the class's value; kube's system classes exist.
  EXPECT_EQ(server.Kubectl({"get", "pod", "plain", "-o", "jsonpath={.spec.priority},{.spec.preemptionPolicy}"}).out,
            "0,PreemptLowerPriority");
  auto critical = server.Kubectl({"create", "-f", "-"},
                                 "apiVersion: v1\nkind: Pod\nmetadata: {name: critical, namespace: kube-system}\nspec:\n"
                                 "  priorityClassName: system-cluster-critical\n  containers: [{name: c, image: nginx}]\n");
  ASSERT_EQ(critical.exit_code, 0) << critical.err;
  EXPECT_EQ(server.Kubectl({"get", "pod", "critical", "-n", "kube-system", "-o", "jsonpath={.spec.priority}"}).out,
            "2000000000");
  auto unknown = server.Kubectl({"create", "-f", "-"},
                                "apiVersion: v1\nkind: Pod\nmetadata: {name: unknown}\nspec:\n  priorityClassName: gold\n"
                                "  containers: [{name: c, image: nginx}]\n");
  EXPECT_NE(unknown.err.find("pods \"unknown\" is forbidden: no PriorityClass with name gold was found"), std::string::npos)
      << unknown.err;

  // LimitRanger: defaults from the namespace's LimitRange, and its max.
  auto lr = server.Kubectl({"apply", "-f", "-"},
                           "apiVersion: v1\nkind: LimitRange\nmetadata: {name: limits}\nspec:\n  limits:\n  - type: Container\n"
                           "    default: {cpu: 500m}\n    defaultRequest: {cpu: 100m}\n    max: {cpu: \"1\"}\n");
  ASSERT_EQ(lr.exit_code, 0) << lr.err;
  ASSERT_EQ(server.Kubectl({"run", "limited", "--image=nginx"}).exit_code, 0);
  EXPECT_EQ(server.Kubectl({"get", "pod", "limited", "-o",
                            "jsonpath={.spec.containers[0].resources.limits.cpu},{.spec.containers[0].resources.requests.cpu}"})
                .out,
            "500m,100m");
  auto too_big = server.Kubectl({"run", "greedy", "--image=nginx", "--overrides",
                                 R"({"spec":{"containers":[{"name":"greedy","image":"nginx","resources":{"limits":{"cpu":"2"}}}]}})"});
  EXPECT_NE(too_big.err.find("maximum cpu usage per Container is 1, but limit is 2"), std::string::npos) << too_big.err;
  // Claims: min and max of the storage request; pods: the limit-to-request ratio.
  auto lr2 = server.Kubectl({"apply", "-f", "-"},
                            "apiVersion: v1\nkind: LimitRange\nmetadata: {name: storage}\nspec:\n  limits:\n"
                            "  - type: PersistentVolumeClaim\n    min: {storage: 1Gi}\n"
                            "  - type: Container\n    maxLimitRequestRatio: {memory: \"2\"}\n");
  ASSERT_EQ(lr2.exit_code, 0) << lr2.err;
  auto small = server.Kubectl({"create", "-f", "-"},
                              "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: small}\nspec:\n"
                              "  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 500Mi}}\n");
  EXPECT_NE(small.err.find("persistentvolumeclaims \"small\" is forbidden: minimum storage usage per PersistentVolumeClaim "
                           "is 1Gi, but request is 500Mi"),
            std::string::npos)
      << small.err;
  auto ratio = server.Kubectl({"run", "spiky", "--image=nginx", "--overrides",
                               R"({"spec":{"containers":[{"name":"spiky","image":"nginx","resources":{"requests":{"memory":"100Mi"},"limits":{"memory":"300Mi"}}}]}})"});
  EXPECT_NE(ratio.err.find("memory max limit to request ratio per Container is 2, but provided ratio is 3.000000"),
            std::string::npos)
      << ratio.err;
}

// The audit webhook backend (kept here for the test HTTPS server): batches reach the webhook as
// EventLists, and a webhook that answers 500 never fails a request.
TEST(AuditWebhookE2eTest, EventsArePostedInBatches) {
  TestCa ca;
  std::mutex mu;
  std::vector<std::string> bodies;
  int status = 200;
  TestHttpsServer hook(ca, [&](const http::HttpRequest& req) {
    std::lock_guard lock(mu);
    bodies.push_back(req.body);
    return JsonReply(status, "{}");
  });
  ASSERT_TRUE(hook.ok());
  std::string dir = MakeTempDir("capstan-audit-webhook-e2e");
  std::ofstream(dir + "/policy.yaml") << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  "
                                         "resources: [{group: \"\", resources: [configmaps]}]\n";
  std::ofstream(dir + "/webhook.kubeconfig")
      << "apiVersion: v1\nkind: Config\nclusters:\n- name: audit\n  cluster:\n    server: " << hook.url("/audit")
      << "\n    certificate-authority-data: " << Base64Encode(ca.pem())
      << "\ncontexts:\n- name: audit\n  context: {cluster: audit}\ncurrent-context: audit\n";
  ServerProcess server({"--audit-policy-file=" + dir + "/policy.yaml", "--audit-webhook-config-file=" + dir + "/webhook.kubeconfig",
                        "--audit-webhook-batch-max-wait=1s", "--audit-webhook-initial-backoff=10ms"});
  ASSERT_TRUE(server.ok()) << server.error();
  ASSERT_EQ(server.Kubectl({"create", "configmap", "sent", "--from-literal=a=b"}).exit_code, 0);
  {
    std::lock_guard lock(mu);
    status = 500;  // the webhook fails from now on: requests still succeed
  }
  auto r = server.Kubectl({"create", "configmap", "sent-while-failing", "--from-literal=a=b"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(server.Stop(), 0);
  std::lock_guard lock(mu);
  ASSERT_FALSE(bodies.empty());
  auto first = json::parse(bodies[0]).as_object();
  EXPECT_EQ(first["kind"].as_string(), "EventList");
  bool found = false;
  for (const auto& b : bodies) found = found || b.find("\"name\":\"sent\"") != std::string::npos;
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace capstan::e2e
