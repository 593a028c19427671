// The data follows kube 1.32's bootstrap policy (the roles, rules and bindings kube-apiserver creates
// at start); controller roles (system:controller:*) for kube-controller-manager's per-controller
// service accounts are not included: Capstan's loops run in process as a privileged user.
#include "auth/authz/bootstrap_policy.h"

#include <boost/json.hpp>

namespace capstan::authz {

namespace json = boost::json;

namespace {

using Strings = std::vector<std::string>;

const Strings kRead = {"get", "list", "watch"};
const Strings kReadWrite = {"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"};
const Strings kWrite = {"create", "update", "patch", "delete", "deletecollection"};
const Strings kEventsWrite = {"create", "update", "patch"};

PolicyRule R(Strings verbs, Strings groups, Strings resources, Strings names = {}) {
  return PolicyRule{std::move(verbs), std::move(groups), std::move(resources), std::move(names), {}};
}
PolicyRule N(Strings verbs, Strings urls) { return PolicyRule{std::move(verbs), {}, {}, {}, std::move(urls)}; }
PolicyRule EventsRule() { return R(kEventsWrite, {"", "events.k8s.io"}, {"events"}); }

json::object Meta(const std::string& name, const std::string& ns, const json::object& extra_labels = {}) {
  json::object md;
  md["name"] = name;
  if (!ns.empty()) md["namespace"] = ns;
  json::object labels;
  labels[kBootstrappingLabel] = "rbac-defaults";
  for (const auto& [k, v] : extra_labels) labels[k] = v;
  md["labels"] = std::move(labels);
  json::object annotations;
  annotations[kAutoUpdateAnnotation] = "true";
  md["annotations"] = std::move(annotations);
  return md;
}

json::object Role(const char* kind, const std::string& name, const std::string& ns, const std::vector<PolicyRule>& rules,
                  const json::object& labels = {}) {
  json::object o;
  o["apiVersion"] = "rbac.authorization.k8s.io/v1";
  o["kind"] = kind;
  o["metadata"] = Meta(name, ns, labels);
  o["rules"] = PolicyRulesToJson(rules);
  return o;
}

json::object ClusterRole(const std::string& name, const std::vector<PolicyRule>& rules, const json::object& labels = {}) {
  return Role("ClusterRole", name, "", rules, labels);
}

json::object Aggregated(const std::string& name, const std::string& selector_label, const json::object& labels = {}) {
  json::object o = ClusterRole(name, {}, labels);
  json::object match;
  match[selector_label] = "true";
  json::object selector;
  selector["matchLabels"] = std::move(match);
  json::object rule;
  rule["clusterRoleSelectors"] = json::array{std::move(selector)};
  o["aggregationRule"] = std::move(rule);
  o["rules"] = nullptr;
  return o;
}

json::object Subject(const std::string& kind, const std::string& name, const std::string& ns = "") {
  json::object s;
  if (kind != "ServiceAccount") s["apiGroup"] = "rbac.authorization.k8s.io";
  s["kind"] = kind;
  s["name"] = name;
  if (!ns.empty()) s["namespace"] = ns;
  return s;
}

json::object Binding(const char* kind, const std::string& name, const std::string& ns, const char* role_kind,
                     const std::string& role, std::vector<json::object> subjects) {
  json::object o;
  o["apiVersion"] = "rbac.authorization.k8s.io/v1";
  o["kind"] = kind;
  o["metadata"] = Meta(name, ns);
  json::object ref;
  ref["apiGroup"] = "rbac.authorization.k8s.io";
  ref["kind"] = role_kind;
  ref["name"] = role;
  o["roleRef"] = std::move(ref);
  if (!subjects.empty()) {
    json::array a;
    for (auto& s : subjects) a.emplace_back(std::move(s));
    o["subjects"] = std::move(a);
  }
  return o;
}

json::object ClusterBinding(const std::string& name, std::vector<json::object> subjects) {
  return Binding("ClusterRoleBinding", name, "", "ClusterRole", name, std::move(subjects));
}

json::object Label(const char* k) {
  json::object o;
  o[k] = "true";
  return o;
}

std::vector<PolicyRule> NodeRoleRules() {
  return {
      R({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
      R({"create"}, {"authorization.k8s.io"}, {"localsubjectaccessreviews", "subjectaccessreviews"}),
      R(kRead, {""}, {"services"}),
      R({"create", "get", "list", "watch"}, {""}, {"nodes"}),
      R({"patch", "update"}, {""}, {"nodes/status"}),
      R({"patch", "update"}, {""}, {"nodes"}),
      R({"create", "patch", "update"}, {""}, {"events"}),
      R(kRead, {""}, {"pods"}),
      R({"create", "delete"}, {""}, {"pods"}),
      R({"patch", "update"}, {""}, {"pods/status"}),
      R({"create"}, {""}, {"pods/eviction"}),
      R(kRead, {""}, {"configmaps", "secrets"}),
      R({"get"}, {""}, {"persistentvolumeclaims", "persistentvolumes"}),
      R({"get"}, {""}, {"endpoints"}),
      R({"create", "get", "list", "watch"}, {"certificates.k8s.io"}, {"certificatesigningrequests"}),
      R({"create", "delete", "get", "patch", "update"}, {"coordination.k8s.io"}, {"leases"}),
      R({"get"}, {"storage.k8s.io"}, {"volumeattachments"}),
      R({"create"}, {""}, {"serviceaccounts/token"}),
      R({"get", "patch", "update"}, {""}, {"persistentvolumeclaims/status"}),
      R(kRead, {"storage.k8s.io"}, {"csidrivers"}),
      R({"create", "delete", "get", "patch", "update"}, {"storage.k8s.io"}, {"csinodes"}),
      R(kRead, {"node.k8s.io"}, {"runtimeclasses"}),
  };
}

BootstrapPolicy Build() {
  BootstrapPolicy p;
  auto& cr = p.cluster_roles;
  cr.push_back(Aggregated("admin", "rbac.authorization.k8s.io/aggregate-to-admin"));
  cr.push_back(ClusterRole("cluster-admin", {R({"*"}, {"*"}, {"*"}), N({"*"}, {"*"})}));
  cr.push_back(Aggregated("edit", "rbac.authorization.k8s.io/aggregate-to-edit",
                          Label("rbac.authorization.k8s.io/aggregate-to-admin")));
  cr.push_back(ClusterRole("system:aggregate-to-admin",
                           {R({"create"}, {"authorization.k8s.io"}, {"localsubjectaccessreviews"}),
                            R(kReadWrite, {"rbac.authorization.k8s.io"}, {"rolebindings", "roles"})},
                           Label("rbac.authorization.k8s.io/aggregate-to-admin")));
  cr.push_back(ClusterRole(
      "system:aggregate-to-edit",
      {R(kRead, {""}, {"pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"}),
       R({"impersonate"}, {""}, {"serviceaccounts"}),
       R(kWrite, {""}, {"pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"}),
       R({"create"}, {""}, {"pods/eviction"}),
       R(kWrite, {""},
         {"configmaps", "events", "persistentvolumeclaims", "replicationcontrollers", "replicationcontrollers/scale",
          "secrets", "serviceaccounts", "services", "services/proxy"}),
       R({"create"}, {""}, {"serviceaccounts/token"}),
       R(kWrite, {"apps"},
         {"daemonsets", "deployments", "deployments/rollback", "deployments/scale", "replicasets", "replicasets/scale",
          "statefulsets", "statefulsets/scale"}),
       R(kWrite, {"autoscaling"}, {"horizontalpodautoscalers"}),
       R(kWrite, {"batch"}, {"cronjobs", "jobs"}),
       R(kWrite, {"extensions"},
         {"daemonsets", "deployments", "deployments/rollback", "deployments/scale", "ingresses", "networkpolicies",
          "replicasets", "replicasets/scale", "replicationcontrollers/scale"}),
       R(kWrite, {"policy"}, {"poddisruptionbudgets"}),
       R(kWrite, {"networking.k8s.io"}, {"ingresses", "networkpolicies"}),
       R(kReadWrite, {"coordination.k8s.io"}, {"leases"})},
      Label("rbac.authorization.k8s.io/aggregate-to-edit")));
  cr.push_back(ClusterRole(
      "system:aggregate-to-view",
      {R(kRead, {""},
         {"configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods",
          "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services", "services/status"}),
       R(kRead, {""},
         {"bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status",
          "replicationcontrollers/status", "resourcequotas", "resourcequotas/status"}),
       R(kRead, {""}, {"namespaces"}),
       R(kRead, {"discovery.k8s.io"}, {"endpointslices"}),
       R(kRead, {"apps"},
         {"controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale",
          "deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets",
          "statefulsets/scale", "statefulsets/status"}),
       R(kRead, {"autoscaling"}, {"horizontalpodautoscalers", "horizontalpodautoscalers/status"}),
       R(kRead, {"batch"}, {"cronjobs", "cronjobs/status", "jobs", "jobs/status"}),
       R(kRead, {"extensions"},
         {"daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status", "ingresses",
          "ingresses/status", "networkpolicies", "replicasets", "replicasets/scale", "replicasets/status",
          "replicationcontrollers/scale"}),
       R(kRead, {"policy"}, {"poddisruptionbudgets", "poddisruptionbudgets/status"}),
       R(kRead, {"networking.k8s.io"}, {"ingresses", "ingresses/status", "networkpolicies"})},
      Label("rbac.authorization.k8s.io/aggregate-to-view")));
  cr.push_back(ClusterRole("system:auth-delegator",
                           {R({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
                            R({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"})}));
  cr.push_back(ClusterRole(
      "system:basic-user",
      {R({"create"}, {"authorization.k8s.io"}, {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}),
       R({"create"}, {"authentication.k8s.io"}, {"selfsubjectreviews"})}));
  cr.push_back(ClusterRole("system:certificates.k8s.io:certificatesigningrequests:nodeclient",
                           {R({"create"}, {"certificates.k8s.io"}, {"certificatesigningrequests/nodeclient"})}));
  cr.push_back(ClusterRole("system:certificates.k8s.io:certificatesigningrequests:selfnodeclient",
                           {R({"create"}, {"certificates.k8s.io"}, {"certificatesigningrequests/selfnodeclient"})}));
  for (const char* signer : {"kube-apiserver-client", "kube-apiserver-client-kubelet", "kubelet-serving",
                             "legacy-unknown"}) {
    cr.push_back(ClusterRole(std::string("system:certificates.k8s.io:") + signer + "-approver",
                             {R({"approve"}, {"certificates.k8s.io"}, {"signers"}, {std::string("kubernetes.io/") + signer})}));
  }
  cr.push_back(ClusterRole("system:discovery", {N({"get"}, {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                                             "/openapi", "/openapi/*", "/readyz", "/version",
                                                             "/version/"})}));
  cr.push_back(ClusterRole("system:heapster", {R(kRead, {""}, {"events", "namespaces", "nodes", "pods"}),
                                               R(kRead, {"extensions"}, {"deployments"})}));
  cr.push_back(ClusterRole("system:kube-aggregator", {R(kRead, {""}, {"endpoints", "services"})}));
  cr.push_back(ClusterRole(
      "system:kube-controller-manager",
      {EventsRule(), R({"create"}, {"coordination.k8s.io"}, {"leases"}),
       R({"get", "update"}, {"coordination.k8s.io"}, {"leases"}, {"kube-controller-manager"}),
       R({"create"}, {""}, {"secrets", "serviceaccounts"}), R({"delete"}, {""}, {"secrets"}),
       R({"get"}, {""}, {"configmaps", "namespaces", "secrets", "serviceaccounts"}),
       R({"update"}, {""}, {"secrets", "serviceaccounts"}),
       R({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
       R({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"}), R({"list", "watch"}, {"*"}, {"*"}),
       R({"create"}, {""}, {"serviceaccounts/token"})}));
  cr.push_back(ClusterRole("system:kube-dns", {R({"list", "watch"}, {""}, {"endpoints", "services"})}));
  cr.push_back(ClusterRole(
      "system:kube-scheduler",
      {EventsRule(), R({"create"}, {"coordination.k8s.io"}, {"leases"}),
       R({"get", "update"}, {"coordination.k8s.io"}, {"leases"}, {"kube-scheduler"}), R(kRead, {""}, {"nodes"}),
       R({"delete", "get", "list", "watch"}, {""}, {"pods"}), R({"create"}, {""}, {"bindings", "pods/binding"}),
       R({"patch", "update"}, {""}, {"pods/status"}), R(kRead, {""}, {"replicationcontrollers", "services"}),
       R(kRead, {"apps", "extensions"}, {"replicasets"}), R(kRead, {"apps"}, {"statefulsets"}),
       R(kRead, {"policy"}, {"poddisruptionbudgets"}),
       R(kRead, {""}, {"persistentvolumeclaims", "persistentvolumes"}),
       R({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
       R({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"}), R(kRead, {"storage.k8s.io"}, {"csinodes"}),
       R(kRead, {""}, {"namespaces"}), R(kRead, {"storage.k8s.io"}, {"csidrivers"}),
       R(kRead, {"storage.k8s.io"}, {"csistoragecapacities"})}));
  cr.push_back(ClusterRole("system:kubelet-api-admin",
                           {R(kRead, {""}, {"nodes"}), R({"proxy"}, {""}, {"nodes"}),
                            R({"*"}, {""}, {"nodes/log", "nodes/metrics", "nodes/proxy", "nodes/stats"})}));
  cr.push_back(ClusterRole("system:monitoring", {N({"get"}, {"/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics",
                                                              "/metrics/slis", "/readyz", "/readyz/*"})}));
  cr.push_back(ClusterRole("system:node", NodeRoleRules()));
  cr.push_back(ClusterRole("system:node-bootstrapper", {R({"create", "get", "list", "watch"}, {"certificates.k8s.io"},
                                                          {"certificatesigningrequests"})}));
  cr.push_back(ClusterRole("system:node-problem-detector",
                           {R({"get"}, {""}, {"nodes"}), R({"patch"}, {""}, {"nodes/status"}), EventsRule()}));
  cr.push_back(ClusterRole("system:node-proxier",
                           {R({"list", "watch"}, {""}, {"endpoints", "services"}), R(kRead, {""}, {"nodes"}),
                            EventsRule(), R({"list", "watch"}, {"discovery.k8s.io"}, {"endpointslices"})}));
  cr.push_back(ClusterRole("system:persistent-volume-provisioner",
                           {R({"create", "delete", "get", "list", "watch"}, {""}, {"persistentvolumes"}),
                            R({"get", "list", "update", "watch"}, {""}, {"persistentvolumeclaims"}),
                            R(kRead, {"storage.k8s.io"}, {"storageclasses"}), R({"watch"}, {""}, {"events"}),
                            EventsRule()}));
  cr.push_back(ClusterRole("system:public-info-viewer",
                           {N({"get"}, {"/healthz", "/livez", "/readyz", "/version", "/version/"})}));
  cr.push_back(ClusterRole("system:service-account-issuer-discovery",
                           {N({"get"}, {"/.well-known/openid-configuration", "/openid/v1/jwks"})}));
  cr.push_back(ClusterRole("system:volume-scheduler",
                           {R({"get", "list", "patch", "update", "watch"}, {""}, {"persistentvolumes"}),
                            R(kRead, {"storage.k8s.io"}, {"storageclasses"}),
                            R({"get", "list", "patch", "update", "watch"}, {""}, {"persistentvolumeclaims"})}));
  cr.push_back(Aggregated("view", "rbac.authorization.k8s.io/aggregate-to-view",
                          Label("rbac.authorization.k8s.io/aggregate-to-edit")));

  auto& crb = p.cluster_role_bindings;
  crb.push_back(ClusterBinding("cluster-admin", {Subject("Group", "system:masters")}));
  crb.push_back(ClusterBinding("system:basic-user", {Subject("Group", "system:authenticated")}));
  crb.push_back(ClusterBinding("system:discovery", {Subject("Group", "system:authenticated")}));
  crb.push_back(ClusterBinding("system:kube-controller-manager", {Subject("User", "system:kube-controller-manager")}));
  crb.push_back(ClusterBinding("system:kube-dns", {Subject("ServiceAccount", "kube-dns", "kube-system")}));
  crb.push_back(ClusterBinding("system:kube-scheduler", {Subject("User", "system:kube-scheduler")}));
  crb.push_back(ClusterBinding("system:monitoring", {Subject("Group", "system:monitoring")}));
  crb.push_back(ClusterBinding("system:node", {}));
  crb.push_back(ClusterBinding("system:node-proxier", {Subject("User", "system:kube-proxy")}));
  crb.push_back(ClusterBinding("system:public-info-viewer",
                               {Subject("Group", "system:authenticated"), Subject("Group", "system:unauthenticated")}));
  crb.push_back(ClusterBinding("system:service-account-issuer-discovery", {Subject("Group", "system:serviceaccounts")}));
  crb.push_back(ClusterBinding("system:volume-scheduler", {Subject("User", "system:kube-scheduler")}));

  auto leader_locking = [](const char* component) {
    return std::vector<PolicyRule>{
        R({"watch"}, {""}, {"configmaps"}), R({"get", "update"}, {""}, {"configmaps"}, {component}),
        R({"create", "get", "list", "update", "watch"}, {"coordination.k8s.io"}, {"leases"}),
        R({"create", "get", "list", "update", "watch"}, {"coordination.k8s.io"}, {"leasecandidates"})};
  };
  auto& r = p.roles;
  r.push_back(Role("Role", "system:controller:bootstrap-signer", "kube-public",
                   {R(kRead, {""}, {"configmaps"}), R({"update"}, {""}, {"configmaps"}, {"cluster-info"}), EventsRule()}));
  r.push_back(Role("Role", "extension-apiserver-authentication-reader", "kube-system",
                   {R(kRead, {""}, {"configmaps"}, {"extension-apiserver-authentication"})}));
  r.push_back(Role("Role", "system::leader-locking-kube-controller-manager", "kube-system",
                   leader_locking("kube-controller-manager")));
  r.push_back(Role("Role", "system::leader-locking-kube-scheduler", "kube-system", leader_locking("kube-scheduler")));
  r.push_back(Role("Role", "system:controller:bootstrap-signer", "kube-system", {R(kRead, {""}, {"secrets"})}));
  r.push_back(Role("Role", "system:controller:cloud-provider", "kube-system",
                   {R({"create", "get", "list", "watch"}, {""}, {"configmaps"})}));
  r.push_back(Role("Role", "system:controller:token-cleaner", "kube-system",
                   {R({"delete", "get", "list", "watch"}, {""}, {"secrets"}), EventsRule()}));

  auto& rb = p.role_bindings;
  rb.push_back(Binding("RoleBinding", "system:controller:bootstrap-signer", "kube-public", "Role",
                       "system:controller:bootstrap-signer", {Subject("ServiceAccount", "bootstrap-signer", "kube-system")}));
  rb.push_back(Binding("RoleBinding", "system::extension-apiserver-authentication-reader", "kube-system", "Role",
                       "extension-apiserver-authentication-reader",
                       {Subject("User", "system:kube-controller-manager"), Subject("User", "system:kube-scheduler")}));
  rb.push_back(Binding("RoleBinding", "system::leader-locking-kube-controller-manager", "kube-system", "Role",
                       "system::leader-locking-kube-controller-manager",
                       {Subject("User", "system:kube-controller-manager"),
                        Subject("ServiceAccount", "kube-controller-manager", "kube-system")}));
  rb.push_back(Binding("RoleBinding", "system::leader-locking-kube-scheduler", "kube-system", "Role",
                       "system::leader-locking-kube-scheduler",
                       {Subject("User", "system:kube-scheduler"), Subject("ServiceAccount", "kube-scheduler", "kube-system")}));
  rb.push_back(Binding("RoleBinding", "system:controller:bootstrap-signer", "kube-system", "Role",
                       "system:controller:bootstrap-signer", {Subject("ServiceAccount", "bootstrap-signer", "kube-system")}));
  rb.push_back(Binding("RoleBinding", "system:controller:cloud-provider", "kube-system", "Role",
                       "system:controller:cloud-provider", {Subject("ServiceAccount", "cloud-provider", "kube-system")}));
  rb.push_back(Binding("RoleBinding", "system:controller:token-cleaner", "kube-system", "Role",
                       "system:controller:token-cleaner", {Subject("ServiceAccount", "token-cleaner", "kube-system")}));
  return p;
}

}  // namespace

const BootstrapPolicy& DefaultBootstrapPolicy() {
  static const BootstrapPolicy* p = new BootstrapPolicy(Build());
  return *p;
}

std::vector<PolicyRule> NodeRules() { return NodeRoleRules(); }

}  // namespace capstan::authz
