// End-to-end admission webhooks: the real build/capstan and real kubectl against an HTTPS webhook
// server the test runs on loopback (Capstan's own server code with a test CA, trusted through
// caBundle). A validating webhook refuses a configmap with kube's message, a mutating webhook adds a
// label (its JSONPatch applied, its warning shown by kubectl, its audit annotation logged), a
// namespaceSelector limits both to one namespace, and a webhook that is down fails the request under
// failurePolicy Fail and is skipped under Ignore. Also the audit webhook backend.
// CEL admission: webhook matchConditions (the test webhook counts its calls: a true condition calls
// it, a false one skips it, a bad expression is refused at creation, an evaluation error follows
// failurePolicy) and a ValidatingAdmissionPolicy limiting deployment replicas (Deny with kube's
// message, Warn as a kubectl warning, Audit in the audit log, deleting the binding stops enforcement).
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

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
TEST(OptInAdmissionE2eTest, ExternalIPsAntiAffinityExtendedResourceTolerationsAndClaimResize) {
  ServerProcess server({"--enable-admission-plugins=DenyServiceExternalIPs,LimitPodHardAntiAffinityTopology,"
                        "ExtendedResourceToleration,NamespaceExists,NamespaceAutoProvision"});
  ASSERT_TRUE(server.ok()) << server.error();
  // None of them is in the start-up line naming enabled plugins that are not available.
  std::string log = server.log();
  size_t warn = log.find("admission plugins enabled but not available yet");
  std::string missing = warn == std::string::npos ? "" : log.substr(warn, log.find('\n', warn) - warn);
  for (const char* name : {"DenyServiceExternalIPs", "LimitPodHardAntiAffinityTopology", "ExtendedResourceToleration",
                           "NamespaceExists", "PersistentVolumeClaimResize", "NamespaceAutoProvision"}) {
    EXPECT_FALSE(Contains(missing, name)) << missing;
  }
  // NamespaceAutoProvision: a create in a missing namespace makes it; a dry run does not.
  auto dry = server.Kubectl({"create", "configmap", "c", "-n", "dry", "--dry-run=server"});
  EXPECT_NE(dry.exit_code, 0);
  EXPECT_TRUE(Contains(dry.err, "namespaces \"dry\" not found")) << dry.err;
  auto made = server.Kubectl({"create", "configmap", "c", "-n", "fresh"});
  EXPECT_EQ(made.exit_code, 0) << made.err;
  EXPECT_EQ(server.Kubectl({"get", "namespace", "fresh", "-o", "jsonpath={.status.phase}"}).out, "Active");
  const std::string svc = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: [{port: 80}]\n";
  auto denied = server.Kubectl({"create", "-f", "-"}, svc + "  externalIPs: [192.0.2.10]\n");
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_TRUE(Contains(denied.err, "services \"web\" is forbidden: Use of external IPs is denied by admission control"))
      << denied.err;
  ASSERT_EQ(server.Kubectl({"create", "-f", "-"}, svc).exit_code, 0);
  auto patched = server.Kubectl({"patch", "service", "web", "-p", R"({"spec":{"externalIPs":["192.0.2.11"]}})"});
  EXPECT_NE(patched.exit_code, 0);
  EXPECT_TRUE(Contains(patched.err, "Use of external IPs is denied by admission control")) << patched.err;

  ASSERT_TRUE(server.WaitForDefaultServiceAccount());
  auto zone = server.Kubectl({"create", "-f", "-"},
                             "apiVersion: v1\nkind: Pod\nmetadata: {name: spread}\nspec:\n  containers: [{name: c, image: nginx}]\n"
                             "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n"
                             "      - {topologyKey: topology.kubernetes.io/zone, labelSelector: {matchLabels: {app: x}}}\n");
  EXPECT_NE(zone.exit_code, 0);
  EXPECT_TRUE(Contains(zone.err, "pods \"spread\" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has "
                                 "TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed"))
      << zone.err;

  auto gpu = server.Kubectl({"create", "-f", "-"},
                            "apiVersion: v1\nkind: Pod\nmetadata: {name: gpu}\nspec:\n  containers:\n  - name: c\n    image: cuda\n"
                            "    resources: {requests: {example.com/gpu: 1}, limits: {example.com/gpu: 1}}\n");
  ASSERT_EQ(gpu.exit_code, 0) << gpu.err;
  auto tol = server.Kubectl({"get", "pod", "gpu", "-o",
                             R"(jsonpath={.spec.tolerations[?(@.key=="example.com/gpu")].operator}/{.spec.tolerations[?(@.key=="example.com/gpu")].effect})"});
  EXPECT_EQ(tol.out, "Exists/NoSchedule") << tol.err;

  // PersistentVolumeClaimResize (on by default): growing needs a Bound claim of a class allowing expansion.
  ASSERT_EQ(server.Kubectl({"apply", "-f", "-"},
                           "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: grows}\n"
                           "provisioner: example.com/none\nallowVolumeExpansion: true\n---\n"
                           "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fixed}\n"
                           "provisioner: example.com/none\n")
                .exit_code,
            0);
  for (const char* cls : {"grows", "fixed"}) {
    std::string name = std::string("claim-") + cls;
    ASSERT_EQ(server.Kubectl({"create", "-f", "-"},
                             "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: " + name +
                                 "}\nspec:\n  storageClassName: " + cls +
                                 "\n  accessModes: [ReadWriteOnce]\n  resources: {requests: {storage: 1Gi}}\n")
                  .exit_code,
              0);
  }
  const std::string grow = R"({"spec":{"resources":{"requests":{"storage":"2Gi"}}}})";
  auto unbound = server.Kubectl({"patch", "pvc", "claim-grows", "-p", grow});
  EXPECT_NE(unbound.exit_code, 0);
  // As in kube, validation refuses it before admission runs.
  EXPECT_TRUE(Contains(unbound.err, "spec is immutable after creation except resources.requests and "
                                    "volumeAttributesClassName for bound claims"))
      << unbound.err;
  for (const char* name : {"claim-grows", "claim-fixed"}) {
    ASSERT_EQ(server.Kubectl({"patch", "pvc", name, "--subresource=status", "--type=merge", "-p",
                              R"({"status":{"phase":"Bound"}})"})
                  .exit_code,
              0);
  }
  auto grown = server.Kubectl({"patch", "pvc", "claim-grows", "-p", grow});
  EXPECT_EQ(grown.exit_code, 0) << grown.err;
  auto fixed = server.Kubectl({"patch", "pvc", "claim-fixed", "-p", grow});
  EXPECT_NE(fixed.exit_code, 0);
  EXPECT_TRUE(Contains(fixed.err, "only dynamically provisioned pvc can be resized and the storageclass that provisions "
                                  "the pvc must support resize"))
      << fixed.err;
}

TEST(OptInAdmissionE2eTest, OwnerReferencesNeedDeleteAndOwnerFinalizerRights) {
  ServerProcess server({"--enable-admission-plugins=OwnerReferencesPermissionEnforcement"});
  ASSERT_TRUE(server.ok()) << server.error();
  ASSERT_EQ(server.Kubectl({"create", "role", "writer", "--verb=create,get,update,patch", "--resource=configmaps"}).exit_code, 0);
  ASSERT_EQ(server.Kubectl({"create", "rolebinding", "writer", "--role=writer", "--user=dev"}).exit_code, 0);
  ASSERT_EQ(server.Kubectl({"create", "configmap", "owner"}).exit_code, 0);
  std::string uid = server.Kubectl({"get", "configmap", "owner", "-o", "jsonpath={.metadata.uid}"}).out;
  ASSERT_FALSE(uid.empty());
  auto dependent = [&](const std::string& name, bool block) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name +
           "\n  ownerReferences:\n  - {apiVersion: v1, kind: ConfigMap, name: owner, uid: " + uid +
           (block ? ", blockOwnerDeletion: true" : "") + "}\n";
  };
  auto blocked = server.Kubectl({"--as=dev", "create", "-f", "-"}, dependent("blocking", true));
  EXPECT_NE(blocked.exit_code, 0);
  EXPECT_TRUE(Contains(blocked.err, "configmaps \"blocking\" is forbidden: cannot set blockOwnerDeletion if an "
                                    "ownerReference refers to a resource you can't set finalizers on"))
      << blocked.err;
  // The cluster admin may; so may dev a reference that does not block.
  EXPECT_EQ(server.Kubectl({"create", "-f", "-"}, dependent("blocking", true)).exit_code, 0);
  auto plain = server.Kubectl({"--as=dev", "create", "-f", "-"}, dependent("plain", false));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  // Changing the references afterwards needs delete on the object.
  auto dropped = server.Kubectl({"--as=dev", "patch", "configmap", "plain", "--type=json", "-p",
                                 R"([{"op":"remove","path":"/metadata/ownerReferences"}])"});
  EXPECT_NE(dropped.exit_code, 0);
  EXPECT_TRUE(Contains(dropped.err, "configmaps \"plain\" is forbidden: cannot set an ownerRef on a resource you "
                                    "can't delete"))
      << dropped.err;
  EXPECT_EQ(server.Kubectl({"--as=dev", "label", "configmap", "plain", "x=y"}).exit_code, 0);
}

TEST(BuiltinAdmissionE2eTest, ServiceAccountTolerationsStorageClassPriorityAndLimits) {
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  ASSERT_TRUE(server.WaitForDefaultServiceAccount());
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

http::HttpResponse Allow(const http::HttpRequest& req, std::atomic<int>& calls) {
  calls++;
  auto review = json::parse(req.body).as_object();
  json::object resp{{"uid", review["request"].as_object()["uid"]}, {"allowed", true}};
  json::object out{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", resp}};
  return JsonReply(200, json::serialize(out));
}

std::string WebhookConfig(const std::string& url, const std::string& ca, const std::string& conditions,
                          const std::string& failure_policy = "Fail") {
  return "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: cel\n"
         "webhooks:\n- name: cel.capstan.test\n  clientConfig:\n    url: " + url + "\n    caBundle: " + Base64Encode(ca) +
         "\n  rules:\n  - operations: [CREATE]\n    apiGroups: [\"\"]\n    apiVersions: [v1]\n    resources: [configmaps]\n"
         "  failurePolicy: " + failure_policy + "\n  sideEffects: None\n  admissionReviewVersions: [v1]\n"
         "  matchConditions:\n" + conditions;
}

TEST(WebhookMatchConditionsE2eTest, CalledOrSkipped) {
  TestCa ca;
  std::atomic<int> calls{0};
  TestHttpsServer hook(ca, [&calls](const http::HttpRequest& req) { return Allow(req, calls); });
  ASSERT_TRUE(hook.ok());
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();

  // A condition that does not compile is refused when the configuration is written.
  auto bad = server.Kubectl({"apply", "-f", "-"},
                            WebhookConfig(hook.url("/validate"), ca.pem(), "  - name: bad\n    expression: \"object.x >\"\n"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("webhooks[0].matchConditions[0].expression: Invalid value: \"object.x >\": compilation "
                         "failed: ERROR: <input>:1:11: Syntax error:"),
            std::string::npos)
      << bad.err;

  auto ok = server.Kubectl({"apply", "-f", "-"},
                           WebhookConfig(hook.url("/validate"), ca.pem(),
                                         "  - name: prefix\n    expression: \"object.metadata.name.startsWith('call-')\"\n"
                                         "  - name: user\n    expression: \"request.userInfo.username != 'nobody'\"\n"));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  auto called = server.Kubectl({"create", "configmap", "call-me", "--from-literal=a=b"});
  ASSERT_EQ(called.exit_code, 0) << called.err;
  EXPECT_EQ(calls, 1);
  auto skipped = server.Kubectl({"create", "configmap", "skip-me", "--from-literal=a=b"});
  ASSERT_EQ(skipped.exit_code, 0) << skipped.err;
  EXPECT_EQ(calls, 1);

  // An evaluation error: Fail refuses with kube's text, Ignore skips the webhook.
  const std::string erroring = "  - name: missing\n    expression: \"object.data.missing == 'x'\"\n";
  ASSERT_EQ(server.Kubectl({"apply", "-f", "-"}, WebhookConfig(hook.url("/validate"), ca.pem(), erroring)).exit_code, 0);
  auto refused = server.Kubectl({"create", "configmap", "err-one", "--from-literal=a=b"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("configmaps \"err-one\" is forbidden: expression 'object.data.missing == 'x'' resulted in "
                             "error: no such key: missing"),
            std::string::npos)
      << refused.err;
  ASSERT_EQ(server.Kubectl({"apply", "-f", "-"}, WebhookConfig(hook.url("/validate"), ca.pem(), erroring, "Ignore")).exit_code,
            0);
  auto ignored = server.Kubectl({"create", "configmap", "err-two", "--from-literal=a=b"});
  EXPECT_EQ(ignored.exit_code, 0) << ignored.err;
  EXPECT_EQ(calls, 1);
}

constexpr char kPolicy[] = R"y(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: [apps]
      apiVersions: [v1]
      operations: [CREATE, UPDATE]
      resources: [deployments]
  validations:
  - expression: "object.spec.replicas <= 5"
    messageExpression: "'replicas must be at most 5, not ' + string(object.spec.replicas)"
)y";

std::string Binding(const std::string& name, const std::string& actions) {
  return "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n  name: " + name +
         "\nspec:\n  policyName: replica-limit\n  validationActions: [" + actions + "]\n";
}

// Retries `create` until `done` says the answer is the expected one (the policy source follows the
// watch cache, which lags a write by milliseconds), at most 5 s.
template <class Done>
CommandResult Eventually(const ServerProcess& server, const std::vector<std::string>& args, Done done) {
  CommandResult r;
  for (int i = 0; i < 50; ++i) {
    r = server.Kubectl(args);
    if (done(r)) return r;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return r;
}

TEST(ValidatingAdmissionPolicyE2eTest, ReplicaLimitDenyWarnAuditAndUnbind) {
  std::string dir = MakeTempDir("capstan-vap-e2e");
  std::ofstream(dir + "/policy.yaml") << "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n"
                                         "  resources: [{group: apps, resources: [deployments]}]\n";
  ServerProcess server({"--audit-policy-file=" + dir + "/policy.yaml", "--audit-log-path=" + dir + "/audit.log"});
  ASSERT_TRUE(server.ok()) << server.error();
  // Every plugin kube enables by default is built: a default start names none as unavailable.
  for (const auto& line : Split(server.log(), '\n')) {
    EXPECT_EQ(line.find("admission plugins enabled but not available yet"), std::string::npos) << line;
  }

  auto p = server.Kubectl({"apply", "-f", "-"}, kPolicy);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  auto b = server.Kubectl({"apply", "-f", "-"}, Binding("replica-limit-deny", "Deny"));
  ASSERT_EQ(b.exit_code, 0) << b.err;

  auto denied = Eventually(server, {"create", "deployment", "big", "--image=nginx", "--replicas=7"},
                           [](const CommandResult& r) { return r.exit_code != 0; });
  EXPECT_NE(denied.exit_code, 0);
  EXPECT_NE(denied.err.find("deployments.apps \"big\" is forbidden: ValidatingAdmissionPolicy 'replica-limit' with "
                            "binding 'replica-limit-deny' denied request: replicas must be at most 5, not 7"),
            std::string::npos)
      << denied.err;
  auto small = server.Kubectl({"create", "deployment", "small", "--image=nginx", "--replicas=3"});
  EXPECT_EQ(small.exit_code, 0) << small.err;
  // An update is checked too (the scale subresource is not: the rule names deployments only, as in kube).
  auto patched = server.Kubectl({"patch", "deployment", "small", "-p", "{\"spec\":{\"replicas\":9}}"});
  EXPECT_NE(patched.exit_code, 0);
  EXPECT_NE(patched.err.find("replicas must be at most 5, not 9"), std::string::npos) << patched.err;
  auto scaled = server.Kubectl({"scale", "deployment", "small", "--replicas=9"});
  EXPECT_EQ(scaled.exit_code, 0) << scaled.err;

  // Warn and Audit instead of Deny: the request passes, kubectl prints the warning.
  ASSERT_EQ(server.Kubectl({"delete", "validatingadmissionpolicybinding", "replica-limit-deny"}).exit_code, 0);
  ASSERT_EQ(server.Kubectl({"apply", "-f", "-"}, Binding("replica-limit-warn", "Warn, Audit")).exit_code, 0);
  auto warned = Eventually(server, {"create", "deployment", "warned", "--image=nginx", "--replicas=8"},
                           [](const CommandResult& r) { return r.exit_code == 0; });
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_NE(warned.err.find("Warning: Validation failed for ValidatingAdmissionPolicy 'replica-limit' with binding "
                            "'replica-limit-warn': replicas must be at most 5, not 8"),
            std::string::npos)
      << warned.err;

  // No binding: no enforcement, no warning.
  ASSERT_EQ(server.Kubectl({"delete", "validatingadmissionpolicybinding", "replica-limit-warn"}).exit_code, 0);
  auto free = Eventually(server, {"create", "deployment", "free", "--image=nginx", "--replicas=9"},
                         [](const CommandResult& r) { return r.exit_code == 0 && r.err.find("Warning") == std::string::npos; });
  EXPECT_EQ(free.exit_code, 0) << free.err;
  EXPECT_EQ(free.err.find("Warning"), std::string::npos) << free.err;

  // Every denial and warning was counted by policy, binding and action, as kube-apiserver counts them.
  std::string metrics = server.Kubectl({"get", "--raw", "/metrics"}).out;
  for (const char* sample :
       {R"(apiserver_validating_admission_policy_check_total{enforcement_action="deny",error_type="invalid_error",policy="replica-limit",policy_binding="replica-limit-deny"} 2)",
        R"(apiserver_validating_admission_policy_check_total{enforcement_action="warn",error_type="invalid_error",policy="replica-limit",policy_binding="replica-limit-warn"} 1)",
        R"(apiserver_validating_admission_policy_check_total{enforcement_action="audit",error_type="invalid_error",policy="replica-limit",policy_binding="replica-limit-warn"} 1)"}) {
    EXPECT_NE(metrics.find(sample), std::string::npos) << sample;
  }

  ASSERT_EQ(server.Stop(), 0);
  std::string log = ReadAll(dir + "/audit.log");
  EXPECT_NE(log.find("\"validation.policy.admission.k8s.io/validation_failure\":\"[{\\\"message\\\":\\\"replicas must be "
                     "at most 5, not 8\\\",\\\"policy\\\":\\\"replica-limit\\\",\\\"binding\\\":\\\"replica-limit-warn\\\","
                     "\\\"expressionIndex\\\":0,\\\"validationActions\\\":[\\\"Warn\\\",\\\"Audit\\\"]}]\""),
            std::string::npos)
      << log.substr(0, 4000);
}

}  // namespace
}  // namespace capstan::e2e
