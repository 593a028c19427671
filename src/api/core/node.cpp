// api/core/node.cpp: core/v1 Nodes (cluster-scoped, stored under <prefix>/minions as kube does):
// allocatable defaults to capacity, taints / podCIDR / providerID rules, status written by the
// kubelet through nodes/status (the main resource keeps it), the node printer (NAME STATUS ROLES AGE
// VERSION; INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME), the spec.unschedulable
// field selector, and nodes/proxy (404 for a missing node; Capstan does not dial kubelets).
#include <set>

#include "api/core/core_descriptions.h"
#include "api/core/core_helpers.h"
#include "api/core/core_resources.h"
#include "api/core/pod_internal.h"
#include "server/http/lookup_host.h"
#include "apimachinery/errors.h"
#include "apimachinery/object_meta.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/quantity.h"
#include "apimachinery/validation.h"
#include "registry/ip_range.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

const json::object& Part(const Object& o, std::string_view key) {
  static const json::object kEmpty;
  const auto* s = o.if_contains(key);
  return s && s->is_object() ? s->get_object() : kEmpty;
}

void DefaultNodeStatus(Object& node) {
  auto* st = node.if_contains("status");
  if (!st || !st->is_object()) return;
  auto& status = st->get_object();
  const auto* cap = status.if_contains("capacity");
  const auto* alloc = status.if_contains("allocatable");
  if ((!alloc || alloc->is_null()) && cap && cap->is_object()) status["allocatable"] = *cap;
}

bool ValidCidr(const std::string& s) { return registry::IpRange::Parse(s).ok() && s.find('/') != std::string::npos; }

ErrorList ValidateResourceListAt(const json::value* v, const FieldPath& p) {
  ErrorList errs;
  if (!v || !v->is_object()) return errs;
  for (const auto& k : SortedKeys(&v->get_object())) {
    auto more = ProblemsAt(am::IsQualifiedName(k), p.Key(k), k);
    errs.insert(errs.end(), more.begin(), more.end());
    more = ValidateNonnegativeQuantity(v->get_object().at(k), p.Key(k));
    errs.insert(errs.end(), more.begin(), more.end());
  }
  return errs;
}

ErrorList ValidateNodeCommon(const Object& node) {
  ErrorList errs;
  const json::object& spec = Part(node, "spec");
  FieldPath sp("spec");
  if (const auto* taints = spec.if_contains("taints"); taints && taints->is_array()) {
    std::set<std::pair<std::string, std::string>> seen;
    for (size_t i = 0; i < taints->get_array().size(); ++i) {
      const auto& tv = taints->get_array()[i];
      if (!tv.is_object()) continue;
      const auto& t = tv.get_object();
      FieldPath p = sp.Child("taints").Index(i);
      std::string key = StrOf(t.if_contains("key"));
      auto more = am::ValidateLabelName(key, p.Child("key"));
      errs.insert(errs.end(), more.begin(), more.end());
      std::string value = StrOf(t.if_contains("value"));
      auto problems = am::IsValidLabelValue(value);
      if (!problems.empty()) errs.push_back(InvalidError(p.Child("value"), value, Join(problems, ";")));
      std::string effect = StrOf(t.if_contains("effect"));
      if (effect.empty()) {
        errs.push_back(RequiredError(p.Child("effect"), ""));
      } else if (effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute") {
        errs.push_back(NotSupportedError(p.Child("effect"), effect, {"NoSchedule", "PreferNoSchedule", "NoExecute"}));
      }
      if (!seen.insert({key, effect}).second) {
        errs.push_back(InvalidError(p, "", "taints must be unique by key and effect pair"));
        errs.back().omit_value = true;
      }
    }
  }
  std::string cidr = StrOf(spec.if_contains("podCIDR"));
  if (!cidr.empty() && !ValidCidr(cidr)) {
    errs.push_back(InvalidError(sp.Child("podCIDR"), cidr, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
  }
  if (const auto* cidrs = spec.if_contains("podCIDRs"); cidrs && cidrs->is_array()) {
    const auto& arr = cidrs->get_array();
    for (size_t i = 0; i < arr.size(); ++i) {
      std::string c = StrOf(&arr[i]);
      if (!ValidCidr(c)) {
        errs.push_back(InvalidError(sp.Child("podCIDRs").Index(i), c, "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"));
      }
    }
    if (arr.size() > 2) errs.push_back(InvalidError(sp.Child("podCIDRs"), "", "may specify no more than one CIDR for each IP family"));
    if (!arr.empty() && !cidr.empty() && StrOf(&arr[0]) != cidr) {
      errs.push_back(InvalidError(sp.Child("podCIDRs"), "", "first value must match `podCIDR`"));
    }
  }
  auto more = ValidateResourceListAt(PathAt(node, {"status", "capacity"}), FieldPath("status").Child("capacity"));
  errs.insert(errs.end(), more.begin(), more.end());
  more = ValidateResourceListAt(PathAt(node, {"status", "allocatable"}), FieldPath("status").Child("allocatable"));
  errs.insert(errs.end(), more.begin(), more.end());
  return errs;
}

class NodeStrategy : public registry::DefaultStrategy {
 public:
  NodeStrategy() : DefaultStrategy(Options{.namespaced = false}) {}

  // A node registers with its status (kube does not clear it on create).
  void PrepareForCreate(const registry::Context&, Object& node) const override { DefaultNodeStatus(node); }
  void PrepareForUpdate(const registry::Context&, Object& node, const Object& old) const override {
    if (const auto* s = old.if_contains("status")) {
      node["status"] = *s;
    } else {
      node.erase("status");
    }
  }
  ErrorList Validate(const registry::Context&, const Object& node) const override { return ValidateNodeCommon(node); }
  ErrorList ValidateUpdate(const registry::Context&, const Object& node, const Object& old) const override {
    ErrorList errs = ValidateNodeCommon(node);
    const json::object& spec = Part(node, "spec");
    const json::object& os = Part(old, "spec");
    std::string old_cidr = StrOf(os.if_contains("podCIDR"));
    if (!old_cidr.empty() && StrOf(spec.if_contains("podCIDR")) != old_cidr) {
      errs.push_back(ForbiddenError(FieldPath("spec").Child("podCIDRs"), "node updates may not change podCIDR except from \"\" to valid"));
    }
    std::string old_pid = StrOf(os.if_contains("providerID"));
    if (!old_pid.empty() && StrOf(spec.if_contains("providerID")) != old_pid) {
      errs.push_back(ForbiddenError(FieldPath("spec").Child("providerID"), "node updates may not change providerID except from \"\" to valid"));
    }
    return errs;
  }

  std::vector<registry::TableColumn> TableColumns() const override {
    return {registry::NameColumn(),
            {"Status", "string", "", "The status of the node", 0},
            {"Roles", "string", "", "The roles of the node", 0},
            registry::AgeColumn(),
            {"Version", "string", "", kNodeSystemInfoKubeletVersion, 0},
            {"Internal-IP", "string", "", kNodeStatusAddresses, 1},
            {"External-IP", "string", "", kNodeStatusAddresses, 1},
            {"OS-Image", "string", "", kNodeSystemInfoOsImage, 1},
            {"Kernel-Version", "string", "", kNodeSystemInfoKernelVersion, 1},
            {"Container-Runtime", "string", "", kNodeSystemInfoContainerRuntimeVersion, 1}};
  }
  json::array TableCells(const Object& node) const override {
    std::vector<std::string> status;
    if (const auto* conds = PathAt(node, {"status", "conditions"}); conds && conds->is_array()) {
      for (const auto& c : conds->get_array()) {
        if (!c.is_object() || StrOf(c.get_object().if_contains("type")) != "Ready") continue;
        status.assign(1, StrOf(c.get_object().if_contains("status")) == "True" ? "Ready" : "NotReady");
      }
    }
    if (status.empty()) status.push_back("Unknown");
    const auto* unsched = PathAt(node, {"spec", "unschedulable"});
    if (unsched && unsched->is_bool() && unsched->get_bool()) status.push_back("SchedulingDisabled");
    std::set<std::string> roles;
    if (const auto* md = am::GetMetadata(node); md && md->contains("labels") && md->at("labels").is_object()) {
      for (const auto& kv : md->at("labels").get_object()) {
        std::string k(kv.key());
        if (StartsWith(k, "node-role.kubernetes.io/")) {
          std::string role = k.substr(std::string("node-role.kubernetes.io/").size());
          if (!role.empty()) roles.insert(role);
        } else if (k == "kubernetes.io/role" && !StrOf(&kv.value()).empty()) {
          roles.insert(StrOf(&kv.value()));
        }
      }
    }
    std::string roles_cell = roles.empty() ? "<none>" : Join(std::vector<std::string>(roles.begin(), roles.end()), ",");
    auto address = [&](const char* type) {
      if (const auto* a = PathAt(node, {"status", "addresses"}); a && a->is_array()) {
        for (const auto& x : a->get_array()) {
          if (x.is_object() && StrOf(x.get_object().if_contains("type")) == type) return StrOf(x.get_object().if_contains("address"));
        }
      }
      return std::string("<none>");
    };
    auto info = [&](const char* key) {
      std::string v = StrOf(PathAt(node, {"status", "nodeInfo", key}));
      return v.empty() ? std::string("<unknown>") : v;
    };
    return {json::value(am::GetName(node)), json::value(Join(status, ",")), json::value(roles_cell), json::value(AgeCell(node)),
            json::value(StrOf(PathAt(node, {"status", "nodeInfo", "kubeletVersion"}))), json::value(address("InternalIP")),
            json::value(address("ExternalIP")), json::value(info("osImage")), json::value(info("kernelVersion")),
            json::value(info("containerRuntimeVersion"))};
  }

  std::string UnsupportedFieldLabelMessage(std::string_view f) const override { return am::FieldLabelNotSupportedError(f); }
  std::vector<std::string> SelectableFieldNames() const override { return {"metadata.name", "spec.unschedulable"}; }
  am::FieldSet SelectableFields(const Object& node) const override {
    am::FieldSet f = DefaultStrategy::SelectableFields(node);
    const auto* u = PathAt(node, {"spec", "unschedulable"});
    f["spec.unschedulable"] = u && u->is_bool() && u->get_bool() ? "true" : "false";
    return f;
  }
};

class NodeStatusStrategy : public registry::Strategy {
 public:
  bool NamespaceScoped() const override { return false; }
  void PrepareForUpdate(const registry::Context&, Object& node, const Object& old) const override {
    if (const auto* s = old.if_contains("spec")) {
      node["spec"] = *s;
    } else {
      node.erase("spec");
    }
    DefaultNodeStatus(node);
  }
  ErrorList ValidateUpdate(const registry::Context&, const Object& node, const Object&) const override {
    return ValidateNodeCommon(node);
  }
};

// nodes/proxy: kube's node ResourceLocation. The kubelet's port (or none) goes through the kubelet
// client; another port of the node through the proxy transport.
class NodeProxyStore : public registry::Connecter {
 public:
  NodeProxyStore(registry::ResourceInfo info, storage::ObjectStore* store, std::string prefix, registry::KubeletConnection kubelet)
      : info_(std::move(info)), store_(store), prefix_(std::move(prefix)), kubelet_(std::move(kubelet)) {}
  const registry::ResourceInfo& Info() const override { return info_; }
  std::vector<std::string> ConnectMethods() const override {
    return {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"};
  }
  Task<StatusOr<registry::ConnectResponse>> Connect(const registry::Context&, const std::string& id,
                                                    const registry::ConnectRequest& req) override {
    auto split = SplitSchemeNamePort(id);
    if (!split) co_return am::NewBadRequest("invalid node request " + GoQuote(id));
    auto kubelet = co_await FindKubelet(*store_, prefix_, kubelet_, split->name);
    if (!kubelet.ok()) co_return kubelet.TakeStatus();
    // kube's isProxyableHostname: every address the name resolves to must be global unicast (no
    // loopback, link-local or multicast), else 400.
    std::vector<std::string> addresses = {kubelet->host};
    if (!registry::IpAddress::Parse(kubelet->host)) {
      auto looked_up = co_await http::LookupHost(kubelet->host);
      if (!looked_up.ok()) co_return am::NewBadRequest(looked_up.status().message());
      if (looked_up->empty()) co_return am::NewBadRequest("no addresses for hostname");
      addresses = std::move(*looked_up);
    }
    for (const auto& address : addresses) {
      if (!IsGlobalUnicast(address)) co_return am::NewBadRequest("address not allowed");
    }
    registry::ConnectLocation loc;
    if (split->port.empty() || split->port == std::to_string(kubelet->port)) {
      loc.transport = registry::ConnectTransport::kKubelet;
      loc.base = kubelet->Base();
    } else {
      loc.transport = registry::ConnectTransport::kProxy;
      loc.base = (split->scheme.empty() ? "http" : split->scheme) + "://" + JoinHostPort(kubelet->host, split->port);
    }
    loc.path = req.path;
    registry::ConnectResponse r;
    r.location = std::move(loc);
    co_return r;
  }

 private:
  registry::ResourceInfo info_;
  storage::ObjectStore* store_;
  std::string prefix_;
  registry::KubeletConnection kubelet_;
};

}  // namespace

std::vector<registry::RestResource> Nodes(const registry::GroupDeps& deps) {
  auto info = MakeInfo({"", "v1", "nodes", "node", "Node", false, {"no"}, {}, "io.k8s.api.core.v1.Node"});
  auto out = MakeCoreResource(deps, info, std::make_shared<NodeStrategy>(), std::make_shared<NodeStatusStrategy>(), "minions");
  registry::ResourceInfo proxy = info;
  proxy.subresource = "proxy";
  proxy.kind = "NodeProxyOptions";
  proxy.list_kind.clear();
  proxy.short_names.clear();
  proxy.definition = "io.k8s.api.core.v1.NodeProxyOptions";
  out.push_back({proxy, std::make_shared<NodeProxyStore>(proxy, deps.store, deps.prefix, deps.kubelet), nullptr, true});
  return out;
}

}  // namespace capstan::api::core
