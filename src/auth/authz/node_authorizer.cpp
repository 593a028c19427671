#include "auth/authz/node_authorizer.h"

#include <mutex>

#include "auth/authz/bootstrap_policy.h"
#include "auth/authz/rbac_authorizer.h"
#include "util/strings.h"

namespace capstan::authz {

namespace json = boost::json;

namespace {

std::string Str(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->get_string()) : std::string();
}
const json::object* Obj(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}
const json::array* Arr(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_array() ? &v->get_array() : nullptr;
}

std::string Ref(const char* type, const std::string& ns, const std::string& name) {
  return std::string(type) + "/" + ns + "/" + name;
}

// The secrets, configmaps, claims and service account a pod references.
std::vector<std::string> PodRefs(const std::string& ns, const std::string& pod_name, const json::object& spec) {
  std::vector<std::string> refs;
  auto add = [&](const char* type, const std::string& name) {
    if (!name.empty()) refs.push_back(Ref(type, ns, name));
  };
  refs.push_back(Ref("pod", ns, pod_name));
  std::string sa = Str(spec, "serviceAccountName");
  add("serviceaccount", sa.empty() ? "default" : sa);
  if (const auto* ips = Arr(spec, "imagePullSecrets")) {
    for (const auto& s : *ips) {
      if (s.is_object()) add("secret", Str(s.get_object(), "name"));
    }
  }
  if (const auto* vols = Arr(spec, "volumes")) {
    for (const auto& v : *vols) {
      if (!v.is_object()) continue;
      const auto& vo = v.get_object();
      if (const auto* s = Obj(vo, "secret")) add("secret", Str(*s, "secretName"));
      if (const auto* c = Obj(vo, "configMap")) add("configmap", Str(*c, "name"));
      if (const auto* c = Obj(vo, "persistentVolumeClaim")) add("pvc", Str(*c, "claimName"));
      if (Obj(vo, "ephemeral")) add("pvc", pod_name + "-" + Str(vo, "name"));
      if (const auto* p = Obj(vo, "projected")) {
        if (const auto* sources = Arr(*p, "sources")) {
          for (const auto& src : *sources) {
            if (!src.is_object()) continue;
            if (const auto* s = Obj(src.get_object(), "secret")) add("secret", Str(*s, "name"));
            if (const auto* c = Obj(src.get_object(), "configMap")) add("configmap", Str(*c, "name"));
          }
        }
      }
      for (const char* k : {"csi", "cephfs", "flexVolume", "rbd", "iscsi", "scaleIO", "storageos", "azureFile"}) {
        const auto* src = Obj(vo, k);
        if (!src) continue;
        for (const char* f : {"nodePublishSecretRef", "secretRef"}) {
          if (const auto* r = Obj(*src, f)) add("secret", Str(*r, "name"));
        }
        if (std::string_view(k) == "azureFile") add("secret", Str(*src, "secretName"));
      }
    }
  }
  for (const char* list : {"containers", "initContainers", "ephemeralContainers"}) {
    const auto* cs = Arr(spec, list);
    if (!cs) continue;
    for (const auto& c : *cs) {
      if (!c.is_object()) continue;
      if (const auto* env = Arr(c.get_object(), "env")) {
        for (const auto& e : *env) {
          if (!e.is_object()) continue;
          const auto* from = Obj(e.get_object(), "valueFrom");
          if (!from) continue;
          if (const auto* s = Obj(*from, "secretKeyRef")) add("secret", Str(*s, "name"));
          if (const auto* m = Obj(*from, "configMapKeyRef")) add("configmap", Str(*m, "name"));
        }
      }
      if (const auto* env_from = Arr(c.get_object(), "envFrom")) {
        for (const auto& e : *env_from) {
          if (!e.is_object()) continue;
          if (const auto* s = Obj(e.get_object(), "secretRef")) add("secret", Str(*s, "name"));
          if (const auto* m = Obj(e.get_object(), "configMapRef")) add("configmap", Str(*m, "name"));
        }
      }
    }
  }
  return refs;
}

bool FieldSelectorHas(const std::string& selector, std::string_view field, const std::string& value) {
  for (const auto& term : Split(selector, ',')) {
    std::string t = std::string(TrimSpace(term));
    size_t eq = t.find('=');
    if (eq == std::string::npos || (eq > 0 && t[eq - 1] == '!')) continue;
    std::string_view key = std::string_view(t).substr(0, eq);
    std::string_view val = std::string_view(t).substr(eq + 1);
    if (!val.empty() && val[0] == '=') val.remove_prefix(1);
    if (TrimSpace(key) == field && TrimSpace(val) == value) return true;
  }
  return false;
}

Result NoOpinion(std::string reason) { return Result{Decision::kNoOpinion, std::move(reason), ""}; }
Result Allow() { return Result{Decision::kAllow, "", ""}; }

}  // namespace

std::optional<std::string> NodeIdentity(const http::UserInfo& user) {
  if (!user.InGroup(kNodesGroup)) return std::nullopt;
  if (!StartsWith(user.name, kNodeUserPrefix)) return std::string();
  return user.name.substr(std::string_view(kNodeUserPrefix).size());
}

NodeAuthorizer::NodeAuthorizer() : node_rules_(NodeRules()) {}

RulesResult NodeAuthorizer::RulesFor(const http::UserInfo& user, const std::string&) const {
  RulesResult r;
  if (NodeIdentity(user)) {
    r.incomplete = true;
    r.error = "node authorizer does not support user rule resolution";
  }
  return r;
}

void NodeAuthorizer::AddRefsLocked(const std::string& node, const std::vector<std::string>& refs, int delta) {
  if (node.empty()) return;
  auto& m = node_refs_[node];
  for (const auto& r : refs) {
    int& c = m[r];
    c += delta;
    if (c <= 0) m.erase(r);
  }
  if (m.empty()) node_refs_.erase(node);
}

void NodeAuthorizer::SetPod(const json::object& pod) {
  const auto* md = Obj(pod, "metadata");
  const auto* spec = Obj(pod, "spec");
  if (!md || !spec) return;
  std::string ns = Str(*md, "namespace"), name = Str(*md, "name");
  PodEntry e;
  e.node = Str(*spec, "nodeName");
  if (!e.node.empty()) e.refs = PodRefs(ns, name, *spec);
  std::unique_lock lock(mu_);
  auto key = ns + "/" + name;
  if (auto it = pods_.find(key); it != pods_.end()) {
    AddRefsLocked(it->second.node, it->second.refs, -1);
    pods_.erase(it);
  }
  if (e.node.empty()) return;
  AddRefsLocked(e.node, e.refs, +1);
  pods_[key] = std::move(e);
}

void NodeAuthorizer::DeletePod(const std::string& ns, const std::string& name) {
  std::unique_lock lock(mu_);
  auto it = pods_.find(ns + "/" + name);
  if (it == pods_.end()) return;
  AddRefsLocked(it->second.node, it->second.refs, -1);
  pods_.erase(it);
}

void NodeAuthorizer::SetPvc(const json::object& pvc) {
  const auto* md = Obj(pvc, "metadata");
  if (!md) return;
  std::string volume;
  if (const auto* spec = Obj(pvc, "spec")) volume = Str(*spec, "volumeName");
  std::unique_lock lock(mu_);
  std::string key = Str(*md, "namespace") + "/" + Str(*md, "name");
  if (volume.empty()) {
    pvc_volume_.erase(key);
  } else {
    pvc_volume_[key] = volume;
  }
}

void NodeAuthorizer::DeletePvc(const std::string& ns, const std::string& name) {
  std::unique_lock lock(mu_);
  pvc_volume_.erase(ns + "/" + name);
}

bool NodeAuthorizer::HasPath(const std::string& node, const std::string& type, const std::string& ns,
                             const std::string& name) const {
  std::shared_lock lock(mu_);
  auto it = node_refs_.find(node);
  if (it == node_refs_.end()) return false;
  if (type != "pv") return it->second.count(type + "/" + ns + "/" + name) > 0;
  // A persistent volume is reachable through a claim of one of the node's pods that is bound to it.
  const std::string prefix = "pvc/";
  for (auto r = it->second.lower_bound(prefix); r != it->second.end() && StartsWith(r->first, prefix); ++r) {
    auto v = pvc_volume_.find(r->first.substr(prefix.size()));
    if (v != pvc_volume_.end() && v->second == name) return true;
  }
  return false;
}

Result NodeAuthorizer::Check(const std::string& node, const char* type, const Attributes& a) const {
  if (a.name.empty()) return NoOpinion("No Object name found");
  if (!HasPath(node, type, a.namespace_, a.name)) {
    return NoOpinion("no relationship found between node '" + node + "' and this object");
  }
  return Allow();
}

Result NodeAuthorizer::ReadNamespaced(const std::string& node, const char* type, const Attributes& a) const {
  if (a.verb != "get" && a.verb != "list" && a.verb != "watch") return NoOpinion("can only read resources of this type");
  if (!a.subresource.empty()) return NoOpinion("cannot read subresource");
  if (a.namespace_.empty()) return NoOpinion("can only read namespaced object of this type");
  return Check(node, type, a);
}

Result NodeAuthorizer::GetOnly(const std::string& node, const char* type, const Attributes& a) const {
  if (a.verb != "get") return NoOpinion("can only get individual resources of this type");
  if (!a.subresource.empty()) return NoOpinion("cannot get subresource");
  return Check(node, type, a);
}

Result NodeAuthorizer::Decide(const Attributes& a) const {
  auto identity = NodeIdentity(a.user);
  if (!identity) return NoOpinion("");
  const std::string& node = *identity;
  if (node.empty()) return NoOpinion("unknown node for user " + GoQuote(a.user.name));
  if (a.resource_request) {
    const std::string& g = a.api_group;
    const std::string& r = a.resource;
    if (g.empty() && r == "secrets") return ReadNamespaced(node, "secret", a);
    if (g.empty() && r == "configmaps") return ReadNamespaced(node, "configmap", a);
    if (g.empty() && r == "persistentvolumeclaims") {
      if (a.subresource == "status") {
        if (a.verb != "update" && a.verb != "patch") return NoOpinion("can only get, update or patch persistentvolumeclaim status");
        return Check(node, "pvc", a);
      }
      return GetOnly(node, "pvc", a);
    }
    if (g.empty() && r == "persistentvolumes") return GetOnly(node, "pv", a);
    if (g.empty() && r == "serviceaccounts") {
      if (a.verb != "create" || a.name.empty()) return NoOpinion("can only create tokens for individual service accounts");
      if (a.subresource != "token") return NoOpinion("can only create token subresource of serviceaccount");
      return Check(node, "serviceaccount", a);
    }
    if (g == "coordination.k8s.io" && r == "leases") {
      if (a.verb != "get" && a.verb != "create" && a.verb != "update" && a.verb != "patch" && a.verb != "delete") {
        return NoOpinion("can only get, create, update, patch, or delete a node lease");
      }
      if (a.namespace_ != "kube-node-lease") return NoOpinion("can only access leases in the \"kube-node-lease\" system namespace");
      if (a.verb != "create" && a.name != node) return NoOpinion("can only access node lease with the same name as the requesting node");
      return Allow();
    }
    if (g.empty() && r == "nodes") {
      if (a.subresource.empty() && (a.verb == "get" || a.verb == "list" || a.verb == "watch")) {
        if (a.verb == "get" && a.name == node) return Allow();
        if (a.verb != "get" && (a.name == node || FieldSelectorHas(a.field_selector, "metadata.name", node))) return Allow();
        return NoOpinion("node '" + node + "' cannot read '" + a.name + "', only its own Node object");
      }
    }
    if (g.empty() && r == "pods" && a.subresource.empty()) {
      if (a.verb == "get") return GetOnly(node, "pod", a);
      if (a.verb == "list" || a.verb == "watch") {
        if (FieldSelectorHas(a.field_selector, "spec.nodeName", node)) return Allow();
        return NoOpinion("can only list/watch pods with spec.nodeName field selector");
      }
    }
  }
  if (RulesAllow(a, node_rules_)) return Allow();
  return NoOpinion("");
}

}  // namespace capstan::authz
