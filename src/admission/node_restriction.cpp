#include "admission/node_restriction.h"

#include <boost/json.hpp>
#include <map>

#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "util/strings.h"

namespace capstan::admission {

namespace json = boost::json;
namespace am = capstan::apimachinery;

namespace {

constexpr const char* kNodeUserPrefix = "system:node:";
constexpr const char* kNodesGroup = "system:nodes";
constexpr const char* kMirrorPodAnnotation = "kubernetes.io/config.mirror";
constexpr const char* kNodeLeaseNamespace = "kube-node-lease";

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

const json::object* Obj(const json::value* v) { return v && v->is_object() ? &v->as_object() : nullptr; }
const json::object* ObjAt(const json::object& o, const char* key) { return Obj(o.if_contains(key)); }
const json::array* ArrAt(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_array() ? &v->as_array() : nullptr;
}
std::string StrAt(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}
bool Present(const json::object& o, const char* key) {
  const json::value* v = o.if_contains(key);
  return v && !v->is_null();
}

std::string SpecNodeName(const registry::Object& pod) {
  const json::object* spec = ObjAt(pod, "spec");
  return spec ? StrAt(*spec, "nodeName") : "";
}

// The value with Go's zero values dropped (null, "", {} and [] inside objects), so two JSON forms of the
// same Go value compare equal, as apiequality.Semantic.DeepEqual treats nil and empty alike.
json::value Normalized(const json::value& v) {
  if (v.is_object()) {
    json::object out;
    for (const auto& [k, x] : v.as_object()) {
      json::value n = Normalized(x);
      if (n.is_null() || (n.is_string() && n.as_string().empty()) || (n.is_object() && n.as_object().empty()) ||
          (n.is_array() && n.as_array().empty())) {
        continue;
      }
      out[k] = std::move(n);
    }
    return out;
  }
  if (v.is_array()) {
    json::array out;
    for (const auto& x : v.as_array()) out.push_back(Normalized(x));
    return out;
  }
  return v;
}

bool SemanticEqual(const json::value* a, const json::value* b) {
  static const json::value kNull;
  json::value na = Normalized(a ? *a : kNull), nb = Normalized(b ? *b : kNull);
  auto empty = [](const json::value& v) {
    return v.is_null() || (v.is_object() && v.as_object().empty()) || (v.is_array() && v.as_array().empty()) ||
           (v.is_string() && v.as_string().empty());
  };
  if (empty(na) && empty(nb)) return true;
  return na == nb;
}

const json::value* PathOf(const registry::Object& o, std::initializer_list<const char*> path) {
  const json::object* cur = &o;
  const json::value* v = nullptr;
  for (const char* p : path) {
    if (!cur) return nullptr;
    v = cur->if_contains(p);
    if (!v) return nullptr;
    cur = v->is_object() ? &v->as_object() : nullptr;
  }
  return v;
}

std::map<std::string, std::string> LabelMap(const registry::Object* o) {
  std::map<std::string, std::string> out;
  if (!o) return out;
  for (auto& [k, v] : am::GetLabels(*o)) out[k] = v;
  return out;
}

std::set<std::string> ModifiedLabels(const std::map<std::string, std::string>& a,
                                     const std::map<std::string, std::string>& b) {
  std::set<std::string> out;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end() || it->second != v) out.insert(k);
  }
  for (const auto& [k, v] : b) {
    auto it = a.find(k);
    if (it == a.end() || it->second != v) out.insert(k);
  }
  return out;
}

std::string LabelNamespace(const std::string& key) {
  size_t slash = key.find('/');
  return slash == std::string::npos ? "" : key.substr(0, slash);
}

bool InNamespace(const std::string& ns, const std::string& domain) {
  return ns == domain || EndsWith(ns, "." + domain);
}

// Every container of the pod: init, regular and ephemeral.
template <class F>
void ForEachContainer(const json::object& spec, F f) {
  for (const char* key : {"initContainers", "containers", "ephemeralContainers"}) {
    if (const json::array* cs = ArrAt(spec, key)) {
      for (const auto& c : *cs) {
        if (c.is_object()) f(c.as_object());
      }
    }
  }
}

// kube's VisitPodSecretNames: whether anything in the pod names a secret.
bool ReferencesSecrets(const json::object& spec) {
  if (const json::array* ips = ArrAt(spec, "imagePullSecrets"); ips && !ips->empty()) return true;
  bool found = false;
  ForEachContainer(spec, [&](const json::object& c) {
    if (const json::array* ef = ArrAt(c, "envFrom")) {
      for (const auto& e : *ef) {
        if (e.is_object() && Present(e.as_object(), "secretRef")) found = true;
      }
    }
    if (const json::array* env = ArrAt(c, "env")) {
      for (const auto& e : *env) {
        const json::object* vf = e.is_object() ? ObjAt(e.as_object(), "valueFrom") : nullptr;
        if (vf && Present(*vf, "secretKeyRef")) found = true;
      }
    }
  });
  if (found) return true;
  if (const json::array* vols = ArrAt(spec, "volumes")) {
    for (const auto& v : *vols) {
      if (!v.is_object()) continue;
      const json::object& vol = v.as_object();
      if (Present(vol, "azureFile") || Present(vol, "secret")) return true;
      for (const char* src : {"cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos"}) {
        const json::object* s = ObjAt(vol, src);
        if (s && Present(*s, "secretRef")) return true;
      }
      if (const json::object* csi = ObjAt(vol, "csi"); csi && Present(*csi, "nodePublishSecretRef")) return true;
      if (const json::object* p = ObjAt(vol, "projected")) {
        if (const json::array* sources = ArrAt(*p, "sources")) {
          for (const auto& s : *sources) {
            if (s.is_object() && Present(s.as_object(), "secret")) return true;
          }
        }
      }
    }
  }
  return false;
}

// kube's VisitPodConfigmapNames.
bool ReferencesConfigMaps(const json::object& spec) {
  bool found = false;
  ForEachContainer(spec, [&](const json::object& c) {
    if (const json::array* ef = ArrAt(c, "envFrom")) {
      for (const auto& e : *ef) {
        if (e.is_object() && Present(e.as_object(), "configMapRef")) found = true;
      }
    }
    if (const json::array* env = ArrAt(c, "env")) {
      for (const auto& e : *env) {
        const json::object* vf = e.is_object() ? ObjAt(e.as_object(), "valueFrom") : nullptr;
        if (vf && Present(*vf, "configMapKeyRef")) found = true;
      }
    }
  });
  if (found) return true;
  if (const json::array* vols = ArrAt(spec, "volumes")) {
    for (const auto& v : *vols) {
      if (!v.is_object()) continue;
      if (Present(v.as_object(), "configMap")) return true;
      if (const json::object* p = ObjAt(v.as_object(), "projected")) {
        if (const json::array* sources = ArrAt(*p, "sources")) {
          for (const auto& s : *sources) {
            if (s.is_object() && Present(s.as_object(), "configMap")) return true;
          }
        }
      }
    }
  }
  return false;
}

bool VolumesHave(const json::object& spec, const char* source) {
  if (const json::array* vols = ArrAt(spec, "volumes")) {
    for (const auto& v : *vols) {
      if (v.is_object() && Present(v.as_object(), source)) return true;
    }
  }
  return false;
}

bool ReferencesClusterTrustBundles(const json::object& spec) {
  if (const json::array* vols = ArrAt(spec, "volumes")) {
    for (const auto& v : *vols) {
      const json::object* p = v.is_object() ? ObjAt(v.as_object(), "projected") : nullptr;
      const json::array* sources = p ? ArrAt(*p, "sources") : nullptr;
      if (!sources) continue;
      for (const auto& s : *sources) {
        if (s.is_object() && Present(s.as_object(), "clusterTrustBundle")) return true;
      }
    }
  }
  return false;
}

// A PersistentVolumeClaim with what a node may change through pvc/status removed.
json::value PvcWithoutNodeFields(const registry::Object& pvc) {
  registry::Object c = pvc;
  if (json::value* md = c.if_contains("metadata"); md && md->is_object()) {
    md->as_object().erase("resourceVersion");
    md->as_object().erase("managedFields");
  }
  if (json::value* st = c.if_contains("status"); st && st->is_object()) {
    for (const char* k : {"capacity", "conditions", "allocatedResourceStatuses", "allocatedResources"}) {
      st->as_object().erase(k);
    }
  }
  return Normalized(c);
}

// The top-level paths at which two normalized values differ (for the PVC status refusal).
void Diff(const json::value& a, const json::value& b, const std::string& path, std::vector<std::string>& out) {
  if (a == b) return;
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (const auto& [k, v] : a.as_object()) keys.insert(std::string(k));
    for (const auto& [k, v] : b.as_object()) keys.insert(std::string(k));
    static const json::value kNull;
    for (const auto& k : keys) {
      const json::value* x = a.as_object().if_contains(k);
      const json::value* y = b.as_object().if_contains(k);
      Diff(x ? *x : kNull, y ? *y : kNull, path.empty() ? k : path + "." + k, out);
    }
    return;
  }
  out.push_back("-" + path + ": " + json::serialize(a) + " +" + path + ": " + json::serialize(b));
}

}  // namespace

std::optional<std::string> NodeNameOf(const UserInfo* user) {
  if (!user || !StartsWith(user->name, kNodeUserPrefix) || !user->InGroup(kNodesGroup)) return std::nullopt;
  return user->name.substr(std::string(kNodeUserPrefix).size());
}

bool IsKubeletLabel(const std::string& key) {
  static const std::set<std::string> kLabels = {
      "kubernetes.io/hostname",        "topology.kubernetes.io/zone",
      "topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/zone",
      "failure-domain.beta.kubernetes.io/region", "beta.kubernetes.io/instance-type",
      "node.kubernetes.io/instance-type", "kubernetes.io/os",
      "kubernetes.io/arch",            "beta.kubernetes.io/os",
      "beta.kubernetes.io/arch"};
  if (kLabels.count(key)) return true;
  std::string ns = LabelNamespace(key);
  return InNamespace(ns, "kubelet.kubernetes.io") || InNamespace(ns, "node.kubernetes.io");
}

std::vector<std::string> ForbiddenNodeLabels(const std::set<std::string>& modified) {
  std::vector<std::string> out;
  for (const auto& key : modified) {
    std::string ns = LabelNamespace(key);
    bool kube_label = InNamespace(ns, "kubernetes.io") || InNamespace(ns, "k8s.io");
    if (InNamespace(ns, "node-restriction.kubernetes.io") || (kube_label && !IsKubeletLabel(key))) out.push_back(key);
  }
  return out;  // std::set order: sorted
}

Task<Status> NodeRestriction::Admit(Attributes& a) {
  std::optional<std::string> node = NodeNameOf(a.user);
  if (!node || !a.resource) co_return Status();
  if (node->empty()) co_return ForbiddenFor(a, "could not determine node from user " + Quote(a.user->name));
  const std::string& group = a.resource->group;
  const std::string& resource = a.resource->resource;
  if (group.empty() && resource == "pods") {
    if (a.subresource.empty()) co_return co_await AdmitPod(*node, a);
    if (a.subresource == "status") co_return co_await AdmitPodStatus(*node, a);
    if (a.subresource == "eviction") co_return co_await AdmitPodEviction(*node, a);
    co_return ForbiddenFor(a, "unexpected pod subresource " + Quote(a.subresource) +
                                  ", only 'status' and 'eviction' are allowed");
  }
  if (group.empty() && resource == "nodes") co_return co_await AdmitNode(*node, a);
  if (group.empty() && resource == "persistentvolumeclaims") {
    if (a.subresource == "status") co_return co_await AdmitPvcStatus(*node, a);
    co_return ForbiddenFor(a, "may only update PVC status");
  }
  if (group.empty() && resource == "serviceaccounts") co_return co_await AdmitServiceAccount(*node, a);
  if (group == "coordination.k8s.io" && resource == "leases") co_return co_await AdmitLease(*node, a);
  if (group == "storage.k8s.io" && resource == "csinodes") co_return co_await AdmitCsiNode(*node, a);
  co_return Status();
}

Task<StatusOr<registry::Object>> NodeRestriction::GetPod(const Attributes& a, const std::string& name) {
  if (!get_) co_return ForbiddenFor(a, "no pod getter");
  auto pod = co_await get_("", "v1", "pods", a.namespace_, name);
  if (!pod.ok() && !am::IsNotFound(pod.status())) co_return ForbiddenFor(a, pod.status().message());
  co_return pod;
}

Task<Status> NodeRestriction::AdmitPod(const std::string& node, const Attributes& a) {
  if (a.operation == "CREATE") co_return co_await AdmitPodCreate(node, a);
  if (a.operation == "DELETE") {
    registry::Object existing;
    if (a.old_object) {
      existing = *a.old_object;
    } else {
      auto pod = co_await GetPod(a, a.name);
      if (!pod.ok()) co_return pod.status();
      existing = std::move(*pod);
    }
    if (SpecNodeName(existing) != node) {
      co_return ForbiddenFor(a, "node " + Quote(node) + " can only delete pods with spec.nodeName set to itself");
    }
    co_return Status();
  }
  co_return ForbiddenFor(a, "unexpected operation " + Quote(a.operation) + ", node " + Quote(node) +
                                " can only create and delete mirror pods");
}

Task<Status> NodeRestriction::AdmitPodCreate(const std::string& node, const Attributes& a) {
  if (!a.object) co_return ForbiddenFor(a, "unexpected type <nil>");
  const registry::Object& pod = *a.object;
  bool mirror = false;
  for (const auto& [k, v] : am::GetAnnotations(pod)) mirror = mirror || k == kMirrorPodAnnotation;
  if (!mirror) {
    co_return ForbiddenFor(a, "pod does not have " + Quote(kMirrorPodAnnotation) + " annotation, node " + Quote(node) +
                                  " can only create mirror pods");
  }
  if (SpecNodeName(pod) != node) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can only create pods with spec.nodeName set to itself");
  }
  auto owners = am::GetOwnerReferences(pod);
  if (owners.size() > 1) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can only create pods with a single owner reference set to itself");
  }
  if (owners.empty()) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can only create pods with an owner reference set to itself");
  }
  const am::OwnerReference& owner = owners[0];
  if (owner.api_version != "v1" || owner.kind != "Node" || owner.name != node) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can only create pods with an owner reference set to itself");
  }
  if (!owner.controller.value_or(false)) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can only create pods with a controller owner reference set to itself");
  }
  if (owner.block_owner_deletion.value_or(false)) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " must not set blockOwnerDeletion on an owner reference");
  }
  if (!get_) co_return ForbiddenFor(a, "error looking up node " + node + " to verify uid: no node getter");
  auto n = co_await get_("", "v1", "nodes", "", node);
  if (!n.ok()) {
    if (am::IsNotFound(n.status())) co_return n.status();
    co_return ForbiddenFor(a, "error looking up node " + node + " to verify uid: " + n.status().message());
  }
  std::string uid(am::GetUid(*n));
  if (owner.uid != uid) {
    co_return ForbiddenFor(a, "node " + node + " UID mismatch: expected " + owner.uid + " got " + uid);
  }
  static const json::object kEmpty;
  const json::object* spec_p = ObjAt(pod, "spec");
  const json::object& spec = spec_p ? *spec_p : kEmpty;
  if (!StrAt(spec, "serviceAccountName").empty()) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can not create pods that reference a service account");
  }
  if (ReferencesSecrets(spec)) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can not create pods that reference secrets");
  }
  if (ReferencesConfigMaps(spec)) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can not create pods that reference configmaps");
  }
  if (ReferencesClusterTrustBundles(spec)) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can not create pods that reference clustertrustbundles");
  }
  if (VolumesHave(spec, "persistentVolumeClaim")) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can not create pods that reference persistentvolumeclaims");
  }
  co_return Status();
}

Task<Status> NodeRestriction::AdmitPodStatus(const std::string& node, const Attributes& a) {
  if (a.operation != "UPDATE") co_return ForbiddenFor(a, "unexpected operation " + Quote(a.operation));
  if (!a.old_object || !a.object) co_return ForbiddenFor(a, "unexpected type <nil>");
  if (SpecNodeName(*a.old_object) != node) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " can only update pod status for pods with spec.nodeName set to itself");
  }
  if (LabelMap(a.old_object) != LabelMap(a.object)) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " cannot update labels through pod status");
  }
  // resourceClaimStatuses: the same names and claim names in the same order.
  auto claims = [](const registry::Object& pod) {
    std::vector<std::pair<std::string, std::optional<std::string>>> out;
    const json::value* v = PathOf(pod, {"status", "resourceClaimStatuses"});
    if (!v || !v->is_array()) return out;
    for (const auto& x : v->as_array()) {
      if (!x.is_object()) continue;
      std::optional<std::string> claim;
      if (const json::value* c = x.as_object().if_contains("resourceClaimName"); c && c->is_string()) {
        claim = std::string(c->as_string());
      }
      out.emplace_back(StrAt(x.as_object(), "name"), claim);
    }
    return out;
  };
  if (claims(*a.old_object) != claims(*a.object)) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " cannot update resource claim statues");
  }
  co_return Status();
}

Task<Status> NodeRestriction::AdmitPodEviction(const std::string& node, const Attributes& a) {
  std::string message = "node " + node + " can only evict pods with spec.nodeName set to itself";
  if (a.operation == "CREATE") {
    std::string pod_name = a.name;
    if (pod_name.empty()) {
      if (a.object) pod_name = std::string(am::GetName(*a.object));
      if (pod_name.empty()) co_return ForbiddenFor(a, "could not determine pod from request data");
    }
    auto pod = co_await GetPod(a, pod_name);
    if (!pod.ok()) co_return pod.status();
    if (SpecNodeName(*pod) != node) co_return ForbiddenFor(a, message);
    co_return Status();
  }
  // Capstan's eviction deletes the pod through the pod store with the eviction subresource: the pod
  // being deleted is the one the eviction is for.
  if (a.operation == "DELETE" && a.old_object) {
    if (SpecNodeName(*a.old_object) != node) co_return ForbiddenFor(a, message);
    co_return Status();
  }
  co_return ForbiddenFor(a, "unexpected operation " + a.operation);
}

Task<Status> NodeRestriction::AdmitPvcStatus(const std::string& node, const Attributes& a) {
  if (a.operation != "UPDATE") co_return ForbiddenFor(a, "unexpected operation " + Quote(a.operation));
  if (!a.old_object || !a.object) co_return ForbiddenFor(a, "unexpected type <nil>");
  json::value before = PvcWithoutNodeFields(*a.old_object), after = PvcWithoutNodeFields(*a.object);
  if (before != after) {
    std::vector<std::string> diff;
    Diff(before, after, "", diff);
    co_return ForbiddenFor(a, "node " + Quote(node) +
                                  " is not allowed to update fields other than status.capacity and status.conditions: " +
                                  Join(diff, "; "));
  }
  co_return Status();
}

Task<Status> NodeRestriction::AdmitNode(const std::string& node, const Attributes& a) {
  std::string requested = a.name;
  if (requested.empty() && a.operation == "CREATE" && a.object) requested = std::string(am::GetName(*a.object));
  if (requested != node) {
    co_return ForbiddenFor(a, "node " + Quote(node) + " is not allowed to modify node " + Quote(requested));
  }
  if (a.operation == "CREATE") {
    if (!a.object) co_return ForbiddenFor(a, "unexpected type <nil>");
    const json::value* cs = PathOf(*a.object, {"spec", "configSource"});
    if (cs && !cs->is_null()) {
      co_return ForbiddenFor(a, "node " + Quote(node) + " is not allowed to create pods with a non-nil configSource");
    }
    auto forbidden = ForbiddenNodeLabels(ModifiedLabels(LabelMap(a.object), {}));
    if (!forbidden.empty()) {
      co_return ForbiddenFor(a, "node " + Quote(node) + " is not allowed to set the following labels: " + Join(forbidden, ", "));
    }
  }
  if (a.operation == "UPDATE") {
    if (!a.object || !a.old_object) co_return ForbiddenFor(a, "unexpected type <nil>");
    const json::value* cs = PathOf(*a.object, {"spec", "configSource"});
    if (cs && !cs->is_null() && !SemanticEqual(cs, PathOf(*a.old_object, {"spec", "configSource"}))) {
      co_return ForbiddenFor(a, "node " + Quote(node) + " is not allowed to update configSource to a new non-nil configSource");
    }
    if (!SemanticEqual(PathOf(*a.object, {"spec", "taints"}), PathOf(*a.old_object, {"spec", "taints"}))) {
      co_return ForbiddenFor(a, "node " + Quote(node) + " is not allowed to modify taints");
    }
    auto forbidden = ForbiddenNodeLabels(ModifiedLabels(LabelMap(a.object), LabelMap(a.old_object)));
    if (!forbidden.empty()) co_return ForbiddenFor(a, "is not allowed to modify labels: " + Join(forbidden, ", "));
  }
  co_return Status();
}

Task<Status> NodeRestriction::AdmitServiceAccount(const std::string& node, const Attributes& a) {
  if (a.operation != "CREATE" || a.subresource != "token") co_return Status();
  if (!a.object) co_return ForbiddenFor(a, "unexpected type <nil>");
  const json::value* ref_v = PathOf(*a.object, {"spec", "boundObjectRef"});
  const json::object* ref = Obj(ref_v);
  if (!ref || StrAt(*ref, "apiVersion") != "v1" || StrAt(*ref, "kind") != "Pod" || StrAt(*ref, "name").empty()) {
    co_return ForbiddenFor(a, "node requested token not bound to a pod");
  }
  std::string uid = StrAt(*ref, "uid");
  if (uid.empty()) co_return ForbiddenFor(a, "node requested token with a pod binding without a uid");
  auto pod = co_await GetPod(a, StrAt(*ref, "name"));
  if (!pod.ok()) co_return pod.status();
  if (uid != am::GetUid(*pod)) {
    co_return ForbiddenFor(a, "the UID in the bound object reference (" + uid +
                                  ") does not match the UID in record. The object might have been deleted and then recreated");
  }
  if (SpecNodeName(*pod) != node) co_return ForbiddenFor(a, "node requested token bound to a pod scheduled on a different node");
  co_return Status();
}

Task<Status> NodeRestriction::AdmitLease(const std::string& node, const Attributes& a) {
  if (a.namespace_ != kNodeLeaseNamespace) {
    co_return ForbiddenFor(a, "can only access leases in the " + Quote(kNodeLeaseNamespace) + " system namespace");
  }
  std::string name = a.operation == "CREATE" && a.object ? std::string(am::GetName(*a.object)) : a.name;
  if (name != node) co_return ForbiddenFor(a, "can only access node lease with the same name as the requesting node");
  co_return Status();
}

Task<Status> NodeRestriction::AdmitCsiNode(const std::string& node, const Attributes& a) {
  std::string name = a.operation == "CREATE" && a.object ? std::string(am::GetName(*a.object)) : a.name;
  if (name != node) co_return ForbiddenFor(a, "can only access CSINode with the same name as the requesting node");
  co_return Status();
}

}  // namespace capstan::admission
