// NodeRestriction (with --enable-admission-plugins), TaintNodesByCondition, StorageObjectInUseProtection
// with the volume protection controllers, and CertificateApproval/Signing through the real server and kubectl,
// a kubelet being impersonated (--as=system:node:n1 --as-group=system:nodes).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "e2e/e2e_util.h"

namespace capstan::e2e {
namespace {

std::vector<std::string> AsNode(std::vector<std::string> args, const std::string& node = "n1") {
  args.push_back("--as=system:node:" + node);
  args.push_back("--as-group=system:nodes");
  return args;
}

// Polls `kubectl get` until it fails with NotFound (the object is gone) or the time is up.
bool GoneWithin(const ServerProcess& server, std::vector<std::string> get, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    auto r = server.Kubectl(get);
    if (r.exit_code != 0 && Contains(r.err, "NotFound")) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

TEST(NodeAdmissionE2eTest, NodeRestrictionAndNotReadyTaint) {
  ServerProcess server({"--enable-admission-plugins=NodeRestriction"});
  ASSERT_TRUE(server.ok()) << server.error();

  // A kubelet registering with a label it may not set, then properly.
  auto bad = server.Kubectl(AsNode({"create", "-f", "-"}),
                            "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n"
                            "    node-role.kubernetes.io/control-plane: \"\"\n");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(Contains(bad.err, "nodes \"n1\" is forbidden: node \"n1\" is not allowed to set the following labels: "
                                "node-role.kubernetes.io/control-plane"))
      << bad.err;
  auto reg = server.Kubectl(AsNode({"create", "-f", "-"}),
                            "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n"
                            "    kubernetes.io/hostname: n1\n");
  ASSERT_EQ(reg.exit_code, 0) << reg.err;
  // TaintNodesByCondition: the new node is not ready until its controller says so.
  EXPECT_EQ(server.Kubectl({"get", "node", "n1", "-o", "jsonpath={.spec.taints[*].key}:{.spec.taints[*].effect}"}).out,
            "node.kubernetes.io/not-ready:NoSchedule");
  ASSERT_EQ(server.Kubectl({"create", "-f", "-"}, "apiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n").exit_code, 0);

  // Another node's object (a PUT: the Node authorizer does not let n1 read n2, which kubectl patch
  // would first), its own taints, its own allowed label.
  auto other = server.Kubectl(AsNode({"replace", "-f", "-"}),
                              "apiVersion: v1\nkind: Node\nmetadata:\n  name: n2\n  labels:\n    a: b\n");
  EXPECT_NE(other.exit_code, 0);
  EXPECT_TRUE(Contains(other.err, "nodes \"n2\" is forbidden: node \"n1\" is not allowed to modify node \"n2\"")) << other.err;
  auto taints = server.Kubectl(AsNode({"patch", "node", "n1", "--type=merge", "-p", R"({"spec":{"taints":null}})"}));
  EXPECT_NE(taints.exit_code, 0);
  EXPECT_TRUE(Contains(taints.err, "node \"n1\" is not allowed to modify taints")) << taints.err;
  auto own = server.Kubectl(AsNode({"patch", "node", "n1", "--type=merge", "-p", R"({"metadata":{"labels":{"example.com/rack":"r1"}}})"}));
  EXPECT_EQ(own.exit_code, 0) << own.err;
  auto role = server.Kubectl(AsNode({"patch", "node", "n1", "--type=merge", "-p",
                                     R"({"metadata":{"labels":{"node-restriction.kubernetes.io/x":"y"}}})"}));
  EXPECT_NE(role.exit_code, 0);
  EXPECT_TRUE(Contains(role.err, "is not allowed to modify labels: node-restriction.kubernetes.io/x")) << role.err;

  // Pods: only mirror pods bound to itself with its Node as controller owner.
  auto plain = server.Kubectl(AsNode({"create", "-f", "-"}),
                              "apiVersion: v1\nkind: Pod\nmetadata:\n  name: plain\nspec:\n  nodeName: n1\n"
                              "  containers:\n  - name: c\n    image: nginx\n");
  EXPECT_NE(plain.exit_code, 0);
  EXPECT_TRUE(Contains(plain.err, "pod does not have \"kubernetes.io/config.mirror\" annotation, node \"n1\" can only "
                                  "create mirror pods"))
      << plain.err;
  std::string uid = server.Kubectl({"get", "node", "n1", "-o", "jsonpath={.metadata.uid}"}).out;
  ASSERT_FALSE(uid.empty());
  std::string mirror = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: static-web-n1\n  annotations:\n"
                       "    kubernetes.io/config.mirror: abc\n  ownerReferences:\n  - apiVersion: v1\n    kind: Node\n"
                       "    name: n1\n    uid: " + uid + "\n    controller: true\n"
                       "spec:\n  nodeName: n1\n  containers:\n  - name: c\n    image: nginx\n";
  auto m = server.Kubectl(AsNode({"create", "-f", "-"}), mirror);
  EXPECT_EQ(m.exit_code, 0) << m.err;
  ASSERT_EQ(server.Kubectl({"create", "-f", "-"}, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: elsewhere\nspec:\n"
                                                  "  nodeName: n2\n  containers:\n  - name: c\n    image: nginx\n")
                .exit_code,
            0);
  auto del = server.Kubectl(AsNode({"delete", "pod", "elsewhere", "--wait=false"}));
  EXPECT_NE(del.exit_code, 0);
  EXPECT_TRUE(Contains(del.err, "pods \"elsewhere\" is forbidden: node \"n1\" can only delete pods with spec.nodeName set "
                                "to itself"))
      << del.err;

  // Evictions: only of its own pods (the Eviction posted as is).
  std::string eviction = server.data_dir() + "/eviction.json";
  {
    FILE* f = fopen(eviction.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fputs(R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"elsewhere","namespace":"default"}})", f);
    fclose(f);
  }
  auto evict = server.Kubectl(AsNode({"create", "--raw", "/api/v1/namespaces/default/pods/elsewhere/eviction", "-f", eviction}));
  EXPECT_NE(evict.exit_code, 0);
  EXPECT_TRUE(Contains(evict.err, "node n1 can only evict pods with spec.nodeName set to itself")) << evict.err;
  EXPECT_EQ(server.Kubectl({"get", "pod", "elsewhere", "-o", "name"}).out, "pod/elsewhere\n");
  {
    FILE* f = fopen(eviction.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fputs(R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"static-web-n1","namespace":"default"}})", f);
    fclose(f);
  }
  auto own_evict =
      server.Kubectl(AsNode({"create", "--raw", "/api/v1/namespaces/default/pods/static-web-n1/eviction", "-f", eviction}));
  EXPECT_EQ(own_evict.exit_code, 0) << own_evict.err;

  // Tokens: only bound to a pod (with its UID) running on the node. The Node authorizer lets n1 ask for
  // the default account's tokens once a pod on n1 runs as it.
  ASSERT_EQ(server.Kubectl({"create", "-f", "-"}, "apiVersion: v1\nkind: Pod\nmetadata:\n  name: mine\nspec:\n"
                                                  "  nodeName: n1\n  containers:\n  - name: c\n    image: nginx\n")
                .exit_code,
            0);
  std::string mine_uid = server.Kubectl({"get", "pod", "mine", "-o", "jsonpath={.metadata.uid}"}).out;
  std::string elsewhere_uid = server.Kubectl({"get", "pod", "elsewhere", "-o", "jsonpath={.metadata.uid}"}).out;
  CommandResult unbound;
  for (int i = 0; i < 50; ++i) {  // the authorizer's graph learns about the pod from its informer
    unbound = server.Kubectl(AsNode({"create", "token", "default"}));
    if (Contains(unbound.err, "node requested token not bound to a pod")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(Contains(unbound.err, "serviceaccounts \"default\" is forbidden: node requested token not bound to a pod"))
      << unbound.err;
  auto foreign = server.Kubectl(AsNode({"create", "token", "default", "--bound-object-kind=Pod",
                                        "--bound-object-name=elsewhere", "--bound-object-uid=" + elsewhere_uid}));
  EXPECT_TRUE(Contains(foreign.err, "node requested token bound to a pod scheduled on a different node")) << foreign.err;
  auto bound = server.Kubectl(AsNode({"create", "token", "default", "--bound-object-kind=Pod", "--bound-object-name=mine",
                                      "--bound-object-uid=" + mine_uid}));
  EXPECT_EQ(bound.exit_code, 0) << bound.err;

  // Leases: only its own in kube-node-lease.
  auto lease_other = server.Kubectl(AsNode({"create", "-f", "-"}),
                                    "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: n2\n"
                                    "  namespace: kube-node-lease\nspec:\n  holderIdentity: n1\n");
  EXPECT_NE(lease_other.exit_code, 0);
  EXPECT_TRUE(Contains(lease_other.err, "can only access node lease with the same name as the requesting node"))
      << lease_other.err;
  auto lease = server.Kubectl(AsNode({"create", "-f", "-"}),
                              "apiVersion: coordination.k8s.io/v1\nkind: Lease\nmetadata:\n  name: n1\n"
                              "  namespace: kube-node-lease\nspec:\n  holderIdentity: n1\n");
  EXPECT_EQ(lease.exit_code, 0) << lease.err;

  // Without the flag, NodeRestriction is off (kube's default set) but the taint is still added.
  ServerProcess plain_server;
  ASSERT_TRUE(plain_server.ok()) << plain_server.error();
  auto any = plain_server.Kubectl(AsNode({"create", "-f", "-"}),
                                  "apiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n  labels:\n"
                                  "    node-role.kubernetes.io/control-plane: \"\"\n");
  EXPECT_EQ(any.exit_code, 0) << any.err;
  EXPECT_EQ(plain_server.Kubectl({"get", "node", "n1", "-o", "jsonpath={.spec.taints[*].key}"}).out,
            "node.kubernetes.io/not-ready");
}

TEST(NodeAdmissionE2eTest, VolumeProtectionFinalizersAndDeletes) {
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  ASSERT_EQ(server.Kubectl({"create", "-f", "-"},
                           "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: data\nspec:\n"
                           "  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n")
                .exit_code,
            0);
  EXPECT_EQ(server.Kubectl({"get", "pvc", "data", "-o", "jsonpath={.metadata.finalizers}"}).out,
            R"(["kubernetes.io/pvc-protection"])");
  auto d = server.Kubectl({"delete", "pvc", "data", "--timeout=30s"});
  EXPECT_EQ(d.exit_code, 0) << d.err;
  EXPECT_TRUE(GoneWithin(server, {"get", "pvc", "data"}, std::chrono::seconds(10)));

  ASSERT_EQ(server.Kubectl({"create", "-f", "-"},
                           "apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: vol\nspec:\n"
                           "  capacity:\n    storage: 1Gi\n  accessModes: [ReadWriteOnce]\n  hostPath:\n    path: /tmp/vol\n")
                .exit_code,
            0);
  EXPECT_EQ(server.Kubectl({"get", "pv", "vol", "-o", "jsonpath={.metadata.finalizers}"}).out,
            R"(["kubernetes.io/pv-protection"])");
  auto dv = server.Kubectl({"delete", "pv", "vol", "--timeout=30s"});
  EXPECT_EQ(dv.exit_code, 0) << dv.err;
  EXPECT_TRUE(GoneWithin(server, {"get", "pv", "vol"}, std::chrono::seconds(10)));

  // A claim used by a scheduled pod stays until the pod is gone.
  ASSERT_EQ(server.Kubectl({"create", "-f", "-"},
                           "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: used\nspec:\n"
                           "  accessModes: [ReadWriteOnce]\n  resources:\n    requests:\n      storage: 1Gi\n")
                .exit_code,
            0);
  ASSERT_TRUE(server.WaitForDefaultServiceAccount());
  auto user = server.Kubectl({"create", "-f", "-"},
                             "apiVersion: v1\nkind: Pod\nmetadata:\n  name: user\nspec:\n  nodeName: n1\n"
                             "  containers:\n  - name: c\n    image: nginx\n  volumes:\n  - name: v\n"
                             "    persistentVolumeClaim:\n      claimName: used\n");
  ASSERT_EQ(user.exit_code, 0) << user.err;
  ASSERT_EQ(server.Kubectl({"delete", "pvc", "used", "--wait=false"}).exit_code, 0);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  auto still = server.Kubectl({"get", "pvc", "used", "-o", "jsonpath={.metadata.deletionTimestamp}|{.metadata.finalizers}"});
  EXPECT_EQ(still.exit_code, 0) << still.err;
  EXPECT_TRUE(Contains(still.out, "|[\"kubernetes.io/pvc-protection\"]")) << still.out;
  ASSERT_EQ(server.Kubectl({"delete", "pod", "user", "--grace-period=0", "--force"}).exit_code, 0);
  EXPECT_TRUE(GoneWithin(server, {"get", "pvc", "used"}, std::chrono::seconds(15)));
}

constexpr char kCsrRequest[] =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIYU1JR0JBZ0VBTUI4eERUQUxCZ05WQkFvTUJHUmxkbk14RGpBTUJnTlZCQU1NQldGc2FXTmxNRmt3RXdZSApLb1pJemowQ0FRWUlLb1pJemowREFRY0RRZ0FFcnN0MWpwQ3F2dS9FNDRoeUJxWXV0NnAwa085R1R5MFFKM2lvCkd4NVJiRXpQeXM4MnIreUZvN095OXovbG5NcnRtMy84cHVrR3ExL3M5SUJpRWltb1hxQUFNQW9HQ0NxR1NNNDkKQkFNQ0EwZ0FNRVVDSVFEbjNvR3V1Q3VYaHNmTnM4dW5sRWM2UG9hTWQxdGNEd3VUR1pUYm0yUXFEUUlnZTR3ZAptUDBUM09rV2F6V0NkK2ppM0s4am5sNHlSRzdvNjN2K1YyWUlVRTQ9Ci0tLS0tRU5EIENFUlRJRklDQVRFIFJFUVVFU1QtLS0tLQo=";

std::string Csr(const std::string& name) {
  return "apiVersion: certificates.k8s.io/v1\nkind: CertificateSigningRequest\nmetadata:\n  name: " + name +
         "\nspec:\n  signerName: example.com/issuer\n  usages: [client auth]\n  request: " + kCsrRequest + "\n";
}

TEST(NodeAdmissionE2eTest, CertificateApprovalNeedsApproveOnTheSigner) {
  ServerProcess server;
  ASSERT_TRUE(server.ok()) << server.error();
  // alice may read requests and write their approval, but holds no approve on any signer yet.
  ASSERT_EQ(server.Kubectl({"create", "clusterrole", "csr-approver", "--verb=get,list,update",
                            "--resource=certificatesigningrequests,certificatesigningrequests/approval"})
                .exit_code,
            0);
  ASSERT_EQ(server.Kubectl({"create", "clusterrolebinding", "alice-csr", "--clusterrole=csr-approver", "--user=alice"})
                .exit_code,
            0);
  ASSERT_EQ(server.Kubectl({"create", "-f", "-"}, Csr("csr1")).exit_code, 0);
  auto refused = server.Kubectl({"certificate", "approve", "csr1", "--as=alice"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_TRUE(Contains(refused.err, "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: user not "
                                    "permitted to approve requests with signerName \"example.com/issuer\""))
      << refused.err;
  auto admin = server.Kubectl({"certificate", "approve", "csr1"});
  EXPECT_EQ(admin.exit_code, 0) << admin.err;
  EXPECT_EQ(server.Kubectl({"get", "csr", "csr1", "-o", "jsonpath={.status.conditions[0].type}"}).out, "Approved");

  // CertificateSigning: writing status.certificate needs sign on the signer (any PEM certificate will do here).
  ASSERT_EQ(server.Kubectl({"create", "clusterrole", "csr-status", "--verb=get,patch,update",
                            "--resource=certificatesigningrequests/status"})
                .exit_code,
            0);
  ASSERT_EQ(server.Kubectl({"create", "clusterrolebinding", "alice-status", "--clusterrole=csr-status", "--user=alice"})
                .exit_code,
            0);
  auto b64 = RunCommand({"base64", "-w0", server.data_dir() + "/pki/ca.crt"});
  ASSERT_EQ(b64.exit_code, 0);
  std::string cert_patch = R"({"status":{"certificate":")" + b64.out + R"("}})";
  CommandResult unsigned_;
  for (int i = 0; i < 50; ++i) {  // until the RBAC informer has the binding: then admission answers
    unsigned_ = server.Kubectl({"patch", "csr", "csr1", "--subresource=status", "--type=merge", "-p", cert_patch, "--as=alice"});
    if (Contains(unsigned_.err, "user not permitted to sign")) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(Contains(unsigned_.err, "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: user not "
                                      "permitted to sign requests with signerName \"example.com/issuer\""))
      << unsigned_.err;
  auto issued = server.Kubectl({"patch", "csr", "csr1", "--subresource=status", "--type=merge", "-p", cert_patch});
  EXPECT_EQ(issued.exit_code, 0) << issued.err;
  EXPECT_EQ(server.Kubectl({"get", "csr", "csr1", "-o", "jsonpath={.status.certificate}"}).out, b64.out);

  // approve on every signer of the domain.
  ASSERT_EQ(server.Kubectl({"apply", "-f", "-"},
                           "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: signer-approver\n"
                           "rules:\n- apiGroups: [certificates.k8s.io]\n  resources: [signers]\n  verbs: [approve]\n"
                           "  resourceNames: [\"example.com/*\"]\n")
                .exit_code,
            0);
  ASSERT_EQ(server.Kubectl({"create", "clusterrolebinding", "alice-signer", "--clusterrole=signer-approver", "--user=alice"})
                .exit_code,
            0);
  ASSERT_EQ(server.Kubectl({"create", "-f", "-"}, Csr("csr2")).exit_code, 0);
  bool approved = false;
  for (int i = 0; i < 50 && !approved; ++i) {  // the RBAC informer picks the binding up
    approved = server.Kubectl({"certificate", "approve", "csr2", "--as=alice"}).exit_code == 0;
    if (!approved) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(approved);
}

}  // namespace
}  // namespace capstan::e2e
