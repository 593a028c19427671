// NodeRestriction, TaintNodesByCondition, StorageObjectInUseProtection, CertificateApproval and
// CertificateSigning: allow and deny cases with kube-apiserver's messages.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>

#include "admission/certificate_approval.h"
#include "admission/certificate_signing.h"
#include "admission/cluster_trust_bundle_attest.h"
#include "admission/node_restriction.h"
#include "admission/storage_object_in_use_protection.h"
#include "admission/taint_nodes_by_condition.h"

namespace capstan::admission {
namespace {

namespace json = boost::json;

struct Req {
  Req(std::string group, std::string resource, std::string op, const char* object, const char* old = nullptr) {
    info.group = std::move(group);
    info.version = "v1";
    info.resource = std::move(resource);
    if (object) obj = json::parse(object).as_object();
    if (old) old_obj = json::parse(old).as_object();
    a.operation = std::move(op);
    a.resource = &info;
    a.namespace_ = "default";
    a.object = object ? &obj : nullptr;
    a.old_object = old ? &old_obj : nullptr;
    a.user = &user;
  }
  Req& As(std::string name, std::vector<std::string> groups) {
    user.name = std::move(name);
    user.groups = std::move(groups);
    return *this;
  }
  Req& Node(const std::string& n) { return As("system:node:" + n, {"system:nodes", "system:authenticated"}); }
  Req& Name(std::string n) {
    a.name = std::move(n);
    return *this;
  }
  Req& Sub(std::string s) {
    a.subresource = std::move(s);
    return *this;
  }
  Req& Ns(std::string ns) {
    a.namespace_ = std::move(ns);
    return *this;
  }
  registry::ResourceInfo info;
  registry::Object obj, old_obj;
  UserInfo user;
  Attributes a;
};

// Pods and nodes as the REST storages return them.
ObjectGetter Objects(std::map<std::string, std::string> by_key) {
  return [by_key](const std::string&, const std::string&, const std::string& resource, const std::string& ns,
                  const std::string& name) -> Task<StatusOr<registry::Object>> {
    auto it = by_key.find(resource + "/" + ns + "/" + name);
    if (it == by_key.end()) co_return Status(404, "NotFound", resource + " \"" + name + "\" not found");
    co_return json::parse(it->second).as_object();
  };
}

std::string Message(Plugin& p, Req& r) { return SyncWait(p.Admit(r.a)).message(); }
bool Allowed(Plugin& p, Req& r) { return SyncWait(p.Admit(r.a)).ok(); }

NodeRestriction MakeNodeRestriction() {
  return NodeRestriction(Objects({
      {"nodes//n1", R"({"metadata":{"name":"n1","uid":"node-uid-1"}})"},
      {"pods/default/mine", R"({"metadata":{"name":"mine","uid":"pod-uid-1"},"spec":{"nodeName":"n1"}})"},
      {"pods/default/theirs", R"({"metadata":{"name":"theirs","uid":"pod-uid-2"},"spec":{"nodeName":"n2"}})"},
  }));
}

TEST(NodeRestrictionTest, OnlyNodeUsersAreRestricted) {
  auto p = MakeNodeRestriction();
  Req other("", "nodes", "UPDATE", R"({"metadata":{"name":"n2"}})", R"({"metadata":{"name":"n2"}})");
  other.As("alice", {"system:authenticated"}).Name("n2");
  EXPECT_TRUE(Allowed(p, other));
  // The node prefix without the group is not a node.
  other.As("system:node:n1", {"system:authenticated"});
  EXPECT_TRUE(Allowed(p, other));
  other.As("system:node:", {"system:nodes"});
  EXPECT_EQ(Message(p, other), "nodes \"n2\" is forbidden: could not determine node from user \"system:node:\"");
}

TEST(NodeRestrictionTest, NodeObjects) {
  auto p = MakeNodeRestriction();
  Req other("", "nodes", "UPDATE", R"({"metadata":{"name":"n2"}})", R"({"metadata":{"name":"n2"}})");
  other.Node("n1").Name("n2");
  EXPECT_EQ(Message(p, other), "nodes \"n2\" is forbidden: node \"n1\" is not allowed to modify node \"n2\"");
  Req del("", "nodes", "DELETE", nullptr, R"({"metadata":{"name":"n2"}})");
  del.Node("n1").Name("n2");
  EXPECT_EQ(Message(p, del), "nodes \"n2\" is forbidden: node \"n1\" is not allowed to modify node \"n2\"");

  Req create("", "nodes", "CREATE",
             R"({"metadata":{"name":"n1","labels":{"kubernetes.io/hostname":"n1","node.kubernetes.io/pool":"a",)"
             R"("x.kubelet.kubernetes.io/y":"1","example.com/z":"1","topology.kubernetes.io/zone":"z"}}})");
  create.Node("n1");
  EXPECT_TRUE(Allowed(p, create));
  Req bad("", "nodes", "CREATE",
          R"({"metadata":{"name":"n1","labels":{"node-restriction.kubernetes.io/a":"1","foo.k8s.io/b":"1",)"
          R"("node-role.kubernetes.io/master":""}}})");
  bad.Node("n1");
  EXPECT_EQ(Message(p, bad),
            "nodes \"n1\" is forbidden: node \"n1\" is not allowed to set the following labels: foo.k8s.io/b, "
            "node-restriction.kubernetes.io/a, node-role.kubernetes.io/master");
  Req cfg("", "nodes", "CREATE", R"({"metadata":{"name":"n1"},"spec":{"configSource":{"configMap":{"name":"c"}}}})");
  cfg.Node("n1");
  EXPECT_EQ(Message(p, cfg), "nodes \"n1\" is forbidden: node \"n1\" is not allowed to create pods with a non-nil configSource");

  Req taints("", "nodes", "UPDATE", R"({"metadata":{"name":"n1"},"spec":{}})",
             R"({"metadata":{"name":"n1"},"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]}})");
  taints.Node("n1").Name("n1");
  EXPECT_EQ(Message(p, taints), "nodes \"n1\" is forbidden: node \"n1\" is not allowed to modify taints");
  Req same("", "nodes", "UPDATE",
           R"({"metadata":{"name":"n1","labels":{"a":"b","kubernetes.io/os":"linux","node-role.kubernetes.io/x":""}},"spec":{"taints":[]}})",
           R"({"metadata":{"name":"n1","labels":{"node-role.kubernetes.io/x":""}}})");
  same.Node("n1").Name("n1").Sub("status");
  EXPECT_TRUE(Allowed(p, same));  // empty and absent taints are the same; allowed labels may change
  Req relabel("", "nodes", "UPDATE", R"({"metadata":{"name":"n1","labels":{}}})",
              R"({"metadata":{"name":"n1","labels":{"node-role.kubernetes.io/x":""}}})");
  relabel.Node("n1").Name("n1");
  EXPECT_EQ(Message(p, relabel), "nodes \"n1\" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/x");
}

constexpr const char* kMirrorPod =
    R"({"metadata":{"name":"static-web-n1","annotations":{"kubernetes.io/config.mirror":"abc"},)"
    R"("ownerReferences":[{"apiVersion":"v1","kind":"Node","name":"n1","uid":"node-uid-1","controller":true}]},)"
    R"("spec":{"nodeName":"n1","containers":[{"name":"c","image":"nginx"}]}})";

TEST(NodeRestrictionTest, MirrorPods) {
  auto p = MakeNodeRestriction();
  Req ok("", "pods", "CREATE", kMirrorPod);
  ok.Node("n1");
  EXPECT_TRUE(Allowed(p, ok));

  Req plain("", "pods", "CREATE", R"({"metadata":{"name":"x"},"spec":{"nodeName":"n1"}})");
  plain.Node("n1");
  EXPECT_EQ(Message(p, plain),
            "pods \"x\" is forbidden: pod does not have \"kubernetes.io/config.mirror\" annotation, node \"n1\" can only "
            "create mirror pods");

  auto with = [](std::function<void(json::object&)> edit) {
    auto r = std::make_unique<Req>("", "pods", "CREATE", kMirrorPod);
    r->Node("n1");
    edit(r->obj);
    return r;
  };
  auto spec = [](json::object& o) -> json::object& { return o["spec"].as_object(); };
  auto owner = [](json::object& o) -> json::object& {
    return o["metadata"].as_object()["ownerReferences"].as_array()[0].as_object();
  };
  EXPECT_EQ(Message(p, *with([&](json::object& o) { spec(o)["nodeName"] = "n2"; })),
            "pods \"static-web-n1\" is forbidden: node \"n1\" can only create pods with spec.nodeName set to itself");
  EXPECT_EQ(Message(p, *with([&](json::object& o) { o["metadata"].as_object().erase("ownerReferences"); })),
            "pods \"static-web-n1\" is forbidden: node \"n1\" can only create pods with an owner reference set to itself");
  EXPECT_EQ(Message(p, *with([&](json::object& o) { owner(o)["name"] = "n2"; })),
            "pods \"static-web-n1\" is forbidden: node \"n1\" can only create pods with an owner reference set to itself");
  EXPECT_EQ(Message(p, *with([&](json::object& o) { owner(o).erase("controller"); })),
            "pods \"static-web-n1\" is forbidden: node \"n1\" can only create pods with a controller owner reference set "
            "to itself");
  EXPECT_EQ(Message(p, *with([&](json::object& o) { owner(o)["blockOwnerDeletion"] = true; })),
            "pods \"static-web-n1\" is forbidden: node \"n1\" must not set blockOwnerDeletion on an owner reference");
  EXPECT_EQ(Message(p, *with([&](json::object& o) { owner(o)["uid"] = "other"; })),
            "pods \"static-web-n1\" is forbidden: node n1 UID mismatch: expected other got node-uid-1");
  EXPECT_EQ(Message(p, *with([&](json::object& o) { spec(o)["serviceAccountName"] = "default"; })),
            "pods \"static-web-n1\" is forbidden: node \"n1\" can not create pods that reference a service account");
  EXPECT_EQ(Message(p, *with([&](json::object& o) {
              spec(o)["containers"].as_array()[0].as_object()["env"] =
                  json::parse(R"([{"name":"x","valueFrom":{"secretKeyRef":{"name":"s","key":"k"}}}])");
            })),
            "pods \"static-web-n1\" is forbidden: node \"n1\" can not create pods that reference secrets");
  EXPECT_EQ(Message(p, *with([&](json::object& o) {
              spec(o)["volumes"] = json::parse(R"([{"name":"v","projected":{"sources":[{"configMap":{"name":"c"}}]}}])");
            })),
            "pods \"static-web-n1\" is forbidden: node \"n1\" can not create pods that reference configmaps");
  EXPECT_EQ(Message(p, *with([&](json::object& o) {
              spec(o)["volumes"] = json::parse(R"([{"name":"v","persistentVolumeClaim":{"claimName":"c"}}])");
            })),
            "pods \"static-web-n1\" is forbidden: node \"n1\" can not create pods that reference persistentvolumeclaims");
  EXPECT_TRUE(Allowed(p, *with([&](json::object& o) {
    spec(o)["volumes"] = json::parse(R"([{"name":"v","hostPath":{"path":"/tmp"}},{"name":"e","emptyDir":{}}])");
  })));
}

TEST(NodeRestrictionTest, PodDeleteStatusEvictionAndOtherSubresources) {
  auto p = MakeNodeRestriction();
  Req del("", "pods", "DELETE", nullptr, R"({"metadata":{"name":"theirs"},"spec":{"nodeName":"n2"}})");
  del.Node("n1").Name("theirs");
  EXPECT_EQ(Message(p, del), "pods \"theirs\" is forbidden: node \"n1\" can only delete pods with spec.nodeName set to itself");
  Req mine("", "pods", "DELETE", nullptr, R"({"metadata":{"name":"mine"},"spec":{"nodeName":"n1"}})");
  mine.Node("n1").Name("mine");
  EXPECT_TRUE(Allowed(p, mine));
  Req upd("", "pods", "UPDATE", R"({"metadata":{"name":"mine"}})", R"({"metadata":{"name":"mine"}})");
  upd.Node("n1").Name("mine");
  EXPECT_EQ(Message(p, upd),
            "pods \"mine\" is forbidden: unexpected operation \"UPDATE\", node \"n1\" can only create and delete mirror pods");

  Req st("", "pods", "UPDATE", R"({"metadata":{"name":"mine"},"spec":{"nodeName":"n1"},"status":{"phase":"Running"}})",
         R"({"metadata":{"name":"mine"},"spec":{"nodeName":"n1"}})");
  st.Node("n1").Name("mine").Sub("status");
  EXPECT_TRUE(Allowed(p, st));
  Req st_other("", "pods", "UPDATE", R"({"metadata":{"name":"theirs"},"spec":{"nodeName":"n2"}})",
               R"({"metadata":{"name":"theirs"},"spec":{"nodeName":"n2"}})");
  st_other.Node("n1").Name("theirs").Sub("status");
  EXPECT_EQ(Message(p, st_other),
            "pods \"theirs\" is forbidden: node \"n1\" can only update pod status for pods with spec.nodeName set to itself");
  Req st_labels("", "pods", "UPDATE", R"({"metadata":{"name":"mine","labels":{"a":"b"}},"spec":{"nodeName":"n1"}})",
                R"({"metadata":{"name":"mine"},"spec":{"nodeName":"n1"}})");
  st_labels.Node("n1").Name("mine").Sub("status");
  EXPECT_EQ(Message(p, st_labels), "pods \"mine\" is forbidden: node \"n1\" cannot update labels through pod status");

  Req ev("", "pods", "CREATE", R"({"metadata":{"name":"theirs"}})");
  ev.Node("n1").Name("theirs").Sub("eviction");
  EXPECT_EQ(Message(p, ev), "pods \"theirs\" is forbidden: node n1 can only evict pods with spec.nodeName set to itself");
  Req ev_mine("", "pods", "CREATE", R"({"metadata":{"name":"mine"}})");
  ev_mine.Node("n1").Name("mine").Sub("eviction");
  EXPECT_TRUE(Allowed(p, ev_mine));
  Req ev_missing("", "pods", "CREATE", R"({"metadata":{"name":"gone"}})");
  ev_missing.Node("n1").Name("gone").Sub("eviction");
  EXPECT_EQ(SyncWait(p.Admit(ev_missing.a)).code(), 404);

  Req exec("", "pods", "CREATE", R"({})");
  exec.Node("n1").Name("mine").Sub("exec");
  EXPECT_EQ(Message(p, exec),
            "pods \"mine\" is forbidden: unexpected pod subresource \"exec\", only 'status' and 'eviction' are allowed");
}

TEST(NodeRestrictionTest, ClaimsTokensLeasesAndCsiNodes) {
  auto p = MakeNodeRestriction();
  Req pvc("", "persistentvolumeclaims", "UPDATE", R"({"metadata":{"name":"c"}})", R"({"metadata":{"name":"c"}})");
  pvc.Node("n1").Name("c");
  EXPECT_EQ(Message(p, pvc), "persistentvolumeclaims \"c\" is forbidden: may only update PVC status");
  Req cap("", "persistentvolumeclaims", "UPDATE",
          R"({"metadata":{"name":"c","resourceVersion":"2"},"status":{"phase":"Bound","capacity":{"storage":"2Gi"}}})",
          R"({"metadata":{"name":"c","resourceVersion":"1"},"status":{"phase":"Bound","capacity":{"storage":"1Gi"}}})");
  cap.Node("n1").Name("c").Sub("status");
  EXPECT_TRUE(Allowed(p, cap));
  Req lab("", "persistentvolumeclaims", "UPDATE", R"({"metadata":{"name":"c","labels":{"a":"b"}}})",
          R"({"metadata":{"name":"c"}})");
  lab.Node("n1").Name("c").Sub("status");
  EXPECT_EQ(Message(p, lab).rfind("persistentvolumeclaims \"c\" is forbidden: node \"n1\" is not allowed to update fields "
                                  "other than status.capacity and status.conditions: ",
                                  0),
            0u);

  Req tok("", "serviceaccounts", "CREATE", R"({"spec":{"audiences":["x"]}})");
  tok.Node("n1").Name("default").Sub("token");
  EXPECT_EQ(Message(p, tok), "serviceaccounts \"default\" is forbidden: node requested token not bound to a pod");
  Req tok_nouid("", "serviceaccounts", "CREATE", R"({"spec":{"boundObjectRef":{"apiVersion":"v1","kind":"Pod","name":"mine"}}})");
  tok_nouid.Node("n1").Name("default").Sub("token");
  EXPECT_EQ(Message(p, tok_nouid),
            "serviceaccounts \"default\" is forbidden: node requested token with a pod binding without a uid");
  Req tok_other("", "serviceaccounts", "CREATE",
                R"({"spec":{"boundObjectRef":{"apiVersion":"v1","kind":"Pod","name":"theirs","uid":"pod-uid-2"}}})");
  tok_other.Node("n1").Name("default").Sub("token");
  EXPECT_EQ(Message(p, tok_other),
            "serviceaccounts \"default\" is forbidden: node requested token bound to a pod scheduled on a different node");
  Req tok_ok("", "serviceaccounts", "CREATE",
             R"({"spec":{"boundObjectRef":{"apiVersion":"v1","kind":"Pod","name":"mine","uid":"pod-uid-1"}}})");
  tok_ok.Node("n1").Name("default").Sub("token");
  EXPECT_TRUE(Allowed(p, tok_ok));
  Req sa("", "serviceaccounts", "UPDATE", R"({"metadata":{"name":"default"}})", R"({"metadata":{"name":"default"}})");
  sa.Node("n1").Name("default");
  EXPECT_TRUE(Allowed(p, sa));  // the authorizer decides about anything but tokens

  Req lease("coordination.k8s.io", "leases", "CREATE", R"({"metadata":{"name":"n1"}})");
  lease.Node("n1");
  EXPECT_EQ(Message(p, lease),
            "leases.coordination.k8s.io \"n1\" is forbidden: can only access leases in the \"kube-node-lease\" system namespace");
  lease.Ns("kube-node-lease");
  EXPECT_TRUE(Allowed(p, lease));
  Req lease2("coordination.k8s.io", "leases", "UPDATE", R"({"metadata":{"name":"n2"}})", R"({"metadata":{"name":"n2"}})");
  lease2.Node("n1").Ns("kube-node-lease").Name("n2");
  EXPECT_EQ(Message(p, lease2),
            "leases.coordination.k8s.io \"n2\" is forbidden: can only access node lease with the same name as the requesting node");

  Req csi("storage.k8s.io", "csinodes", "CREATE", R"({"metadata":{"name":"n2"}})");
  csi.Node("n1").Ns("");
  EXPECT_EQ(Message(p, csi),
            "csinodes.storage.k8s.io \"n2\" is forbidden: can only access CSINode with the same name as the requesting node");
  Req csi_ok("storage.k8s.io", "csinodes", "DELETE", nullptr, R"({"metadata":{"name":"n1"}})");
  csi_ok.Node("n1").Ns("").Name("n1");
  EXPECT_TRUE(Allowed(p, csi_ok));
}

TEST(NodeRestrictionTest, KubeletLabels) {
  EXPECT_TRUE(IsKubeletLabel("kubernetes.io/hostname"));
  EXPECT_TRUE(IsKubeletLabel("beta.kubernetes.io/arch"));
  EXPECT_TRUE(IsKubeletLabel("a.b.node.kubernetes.io/x"));
  EXPECT_FALSE(IsKubeletLabel("node-role.kubernetes.io/worker"));
  EXPECT_EQ(ForbiddenNodeLabels({"example.com/a", "kubernetes.io/os", "a.node-restriction.kubernetes.io/b", "k8s.io/c"}),
            std::vector<std::string>({"a.node-restriction.kubernetes.io/b", "k8s.io/c"}));
}

TEST(TaintNodesByConditionTest, NotReadyTaintOnCreate) {
  TaintNodesByCondition p;
  Req r("", "nodes", "CREATE", R"({"metadata":{"name":"n1"}})");
  ASSERT_TRUE(Allowed(p, r));
  EXPECT_EQ(json::serialize(r.obj["spec"]), R"({"taints":[{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule"}]})");
  Req has("", "nodes", "CREATE",
          R"({"metadata":{"name":"n1"},"spec":{"taints":[{"key":"a","effect":"NoExecute"},{"key":"node.kubernetes.io/not-ready","effect":"NoSchedule","value":"x"}]}})");
  ASSERT_TRUE(Allowed(p, has));
  EXPECT_EQ(has.obj["spec"].as_object()["taints"].as_array().size(), 2u);
  Req other_effect("", "nodes", "CREATE",
                   R"({"metadata":{"name":"n1"},"spec":{"taints":[{"key":"node.kubernetes.io/not-ready","effect":"NoExecute"}]}})");
  ASSERT_TRUE(Allowed(p, other_effect));
  EXPECT_EQ(other_effect.obj["spec"].as_object()["taints"].as_array().size(), 2u);
  Req pod("", "pods", "CREATE", R"({"metadata":{"name":"p"}})");
  ASSERT_TRUE(Allowed(p, pod));
  EXPECT_FALSE(pod.obj.contains("spec"));
  EXPECT_FALSE(p.Handles("UPDATE"));
}

TEST(StorageObjectInUseProtectionTest, FinalizersOnClaimsAndVolumes) {
  StorageObjectInUseProtection p;
  Req pvc("", "persistentvolumeclaims", "CREATE", R"({"metadata":{"name":"c","finalizers":["x"]}})");
  ASSERT_TRUE(Allowed(p, pvc));
  EXPECT_EQ(json::serialize(pvc.obj["metadata"].as_object()["finalizers"]), R"(["x","kubernetes.io/pvc-protection"])");
  ASSERT_TRUE(Allowed(p, pvc));  // idempotent
  EXPECT_EQ(pvc.obj["metadata"].as_object()["finalizers"].as_array().size(), 2u);
  Req pv("", "persistentvolumes", "CREATE", R"({"metadata":{"name":"v"}})");
  ASSERT_TRUE(Allowed(p, pv));
  EXPECT_EQ(json::serialize(pv.obj["metadata"].as_object()["finalizers"]), R"(["kubernetes.io/pv-protection"])");
  Req cm("", "configmaps", "CREATE", R"({"metadata":{"name":"v"}})");
  ASSERT_TRUE(Allowed(p, cm));
  EXPECT_FALSE(cm.obj["metadata"].as_object().contains("finalizers"));
}

// An authorizer that allows the listed "user verb name" triples on signers.
AuthorizeFunc Grants(std::set<std::string> allowed, std::vector<std::string>* asked = nullptr) {
  return [allowed, asked](const UserInfo& u, const AuthorizeRequest& r) -> Task<bool> {
    EXPECT_EQ(r.api_group, "certificates.k8s.io");
    EXPECT_EQ(r.resource, "signers");
    if (asked) asked->push_back(r.name);
    co_return allowed.count(u.name + " " + r.verb + " " + r.name) > 0;
  };
}

constexpr const char* kCsr = R"({"metadata":{"name":"csr1"},"spec":{"signerName":"example.com/signer"},"status":{}})";

TEST(CertificateApprovalTest, ApproveOnTheSignerOrItsDomain) {
  std::vector<std::string> asked;
  CertificateApproval p(Grants({"admin approve example.com/*", "bob approve example.com/signer"}, &asked));
  Req r("certificates.k8s.io", "certificatesigningrequests", "UPDATE", kCsr, kCsr);
  r.Name("csr1").Sub("approval").As("eve", {"system:authenticated"});
  EXPECT_EQ(SyncWait(p.Validate(r.a)).message(),
            "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: user not permitted to approve requests "
            "with signerName \"example.com/signer\"");
  EXPECT_EQ(asked, std::vector<std::string>({"example.com/signer", "example.com/*"}));
  EXPECT_EQ(SyncWait(p.Validate(r.a)).code(), 403);
  r.As("admin", {});
  EXPECT_TRUE(SyncWait(p.Validate(r.a)).ok());
  r.As("bob", {});
  EXPECT_TRUE(SyncWait(p.Validate(r.a)).ok());
  Req main("certificates.k8s.io", "certificatesigningrequests", "UPDATE", kCsr, kCsr);
  main.Name("csr1").As("eve", {});
  EXPECT_TRUE(SyncWait(p.Validate(main.a)).ok());  // only the approval subresource is checked
}

TEST(CertificateSigningTest, SignWhenTheCertificateChanges) {
  CertificateSigning p(Grants({"signer sign example.com/signer"}));
  Req same("certificates.k8s.io", "certificatesigningrequests", "UPDATE",
           R"({"metadata":{"name":"csr1"},"spec":{"signerName":"example.com/signer"},"status":{"conditions":[{"type":"Failed"}]}})",
           kCsr);
  same.Name("csr1").Sub("status").As("eve", {});
  EXPECT_TRUE(SyncWait(p.Validate(same.a)).ok());
  Req issue("certificates.k8s.io", "certificatesigningrequests", "UPDATE",
            R"({"metadata":{"name":"csr1"},"spec":{"signerName":"example.com/signer"},"status":{"certificate":"Y2VydA=="}})",
            kCsr);
  issue.Name("csr1").Sub("status").As("eve", {});
  EXPECT_EQ(SyncWait(p.Validate(issue.a)).message(),
            "certificatesigningrequests.certificates.k8s.io \"csr1\" is forbidden: user not permitted to sign requests "
            "with signerName \"example.com/signer\"");
  issue.As("signer", {});
  EXPECT_TRUE(SyncWait(p.Validate(issue.a)).ok());
}

TEST(ClusterTrustBundleAttestTest, AttestWhenTheGateIsOn) {
  constexpr const char* kBundle =
      R"({"metadata":{"name":"example.com:signer:b1"},"spec":{"signerName":"example.com/signer","trustBundle":"x"}})";
  Req create("certificates.k8s.io", "clustertrustbundles", "CREATE", kBundle);
  create.Name("example.com:signer:b1").As("eve", {});
  // Gate off (kube 1.32's default): admitted.
  ClusterTrustBundleAttest off(Grants({}), false);
  EXPECT_TRUE(SyncWait(off.Validate(create.a)).ok());

  std::vector<std::string> asked;
  ClusterTrustBundleAttest p(Grants({"admin attest example.com/*"}, &asked), true);
  EXPECT_EQ(SyncWait(p.Validate(create.a)).message(),
            "clustertrustbundles.certificates.k8s.io \"example.com:signer:b1\" is forbidden: user not permitted to "
            "attest for signerName \"example.com/signer\"");
  EXPECT_EQ(asked, std::vector<std::string>({"example.com/signer", "example.com/*"}));
  create.As("admin", {});
  EXPECT_TRUE(SyncWait(p.Validate(create.a)).ok());

  // No signerName: nothing to attest.
  Req plain("certificates.k8s.io", "clustertrustbundles", "CREATE", R"({"metadata":{"name":"b2"},"spec":{"trustBundle":"x"}})");
  plain.Name("b2").As("eve", {});
  EXPECT_TRUE(SyncWait(p.Validate(plain.a)).ok());

  // An update of only finalizers and ownerReferences is not checked; one of the bundle is.
  Req gc("certificates.k8s.io", "clustertrustbundles", "UPDATE",
         R"({"metadata":{"name":"example.com:signer:b1","finalizers":["f"],"ownerReferences":[{"name":"o"}]},"spec":{"signerName":"example.com/signer","trustBundle":"x"}})",
         kBundle);
  gc.Name("example.com:signer:b1").As("eve", {});
  EXPECT_TRUE(SyncWait(p.Validate(gc.a)).ok());
  Req change("certificates.k8s.io", "clustertrustbundles", "UPDATE",
             R"({"metadata":{"name":"example.com:signer:b1"},"spec":{"signerName":"example.com/signer","trustBundle":"y"}})",
             kBundle);
  change.Name("example.com:signer:b1").As("eve", {});
  EXPECT_EQ(SyncWait(p.Validate(change.a)).code(), 403);
}

}  // namespace
}  // namespace capstan::admission
