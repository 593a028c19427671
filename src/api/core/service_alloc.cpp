#include "api/core/service_alloc.h"

#include <algorithm>
#include <map>
#include <set>

#include "api/core/core_helpers.h"
#include "apimachinery/errors.h"
#include "util/log.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;
using registry::IpAddress;

namespace {

const json::object& Spec(const registry::Object& svc) {
  static const json::object kEmpty;
  const auto* s = svc.if_contains("spec");
  return s && s->is_object() ? s->get_object() : kEmpty;
}

std::string Type(const registry::Object& svc) { return StrOf(Spec(svc).if_contains("type")); }

std::vector<std::string> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* a = o.if_contains(key); a && a->is_array()) {
    for (const auto& v : a->get_array()) out.push_back(v.is_string() ? std::string(v.get_string()) : std::string());
  }
  return out;
}

json::array ToArray(const std::vector<std::string>& v) {
  json::array a;
  for (const auto& s : v) a.push_back(json::value(s));
  return a;
}

void SetStrings(json::object& spec, std::string_view key, const std::vector<std::string>& v) {
  if (v.empty()) {
    spec.erase(key);
  } else {
    spec[key] = ToArray(v);
  }
}

std::optional<std::string> Policy(const json::object& spec) {
  const auto* p = spec.if_contains("ipFamilyPolicy");
  if (!p || !p->is_string()) return std::nullopt;
  return std::string(p->get_string());
}

bool SameField(const registry::Object& a, const registry::Object& b, std::string_view key) {
  const auto* x = Spec(a).if_contains(key);
  const auto* y = Spec(b).if_contains(key);
  auto empty = [](const json::value* v) { return !v || v->is_null() || (v->is_array() && v->get_array().empty()); };
  if (empty(x) && empty(y)) return true;
  return x && y && *x == *y;
}

std::string FamilyOf(const std::string& ip) { return ip.find(':') != std::string::npos ? "IPv6" : "IPv4"; }

struct Port {
  json::object* obj;
  int64_t port;
  int64_t node_port;
  std::string name;
  std::string protocol;
};

std::vector<Port> PortsOf(registry::Object& svc) {
  std::vector<Port> out;
  if (auto* a = ArrayField(ObjectField(svc, "spec"), "ports")) {
    for (auto& p : *a) {
      if (!p.is_object()) continue;
      auto& o = p.get_object();
      out.push_back({&o, IntOf(o.if_contains("port")), IntOf(o.if_contains("nodePort")), StrOf(o.if_contains("name")),
                     StrOf(o.if_contains("protocol"))});
    }
  }
  return out;
}

std::vector<int64_t> NodePortsOf(const registry::Object& svc) {
  std::vector<int64_t> out;
  if (const auto* a = Spec(svc).if_contains("ports"); a && a->is_array()) {
    for (const auto& p : a->get_array()) {
      if (p.is_object() && IntOf(p.get_object().if_contains("nodePort")) != 0) out.push_back(IntOf(p.get_object().if_contains("nodePort")));
    }
  }
  if (int64_t hc = IntOf(Spec(svc).if_contains("healthCheckNodePort")); hc != 0) out.push_back(hc);
  return out;
}

bool ShouldAllocateNodePorts(const registry::Object& svc) {
  std::string t = Type(svc);
  if (t == "NodePort") return true;
  if (t == "LoadBalancer") {
    const auto* a = Spec(svc).if_contains("allocateLoadBalancerNodePorts");
    return !a || !a->is_bool() || a->get_bool();
  }
  return false;
}

Status Invalid(const registry::Object& svc, ErrorList errs) {
  return am::NewInvalid({"", "Service"}, StrOf(PathAt(svc, {"metadata", "name"})), errs);
}

}  // namespace

bool ServiceNeedsClusterIp(const registry::Object& svc) { return Type(svc) != "ExternalName"; }
bool ServiceNeedsNodePorts(const registry::Object& svc) {
  std::string t = Type(svc);
  return t == "NodePort" || t == "LoadBalancer";
}
bool ServiceNeedsHealthCheck(const registry::Object& svc) {
  return Type(svc) == "LoadBalancer" && StrOf(Spec(svc).if_contains("externalTrafficPolicy")) == "Local";
}

void PatchAllocatedValues(registry::Object& svc, const registry::Object& old) {
  json::object& spec = ObjectField(svc, "spec");
  if (ServiceNeedsClusterIp(old) && ServiceNeedsClusterIp(svc)) {
    if (StrOf(spec.if_contains("clusterIP")).empty() && !StrOf(Spec(old).if_contains("clusterIP")).empty()) {
      spec["clusterIP"] = Spec(old).at("clusterIP");
    }
    if (Strings(spec, "clusterIPs").empty() && !Strings(Spec(old), "clusterIPs").empty()) {
      spec["clusterIPs"] = Spec(old).at("clusterIPs");
    }
  }
  if (ServiceNeedsNodePorts(old) && ServiceNeedsNodePorts(svc)) {
    std::map<std::string, int64_t> by_name;
    if (const auto* a = Spec(old).if_contains("ports"); a && a->is_array()) {
      for (const auto& p : a->get_array()) {
        if (p.is_object()) by_name[StrOf(p.get_object().if_contains("name"))] = IntOf(p.get_object().if_contains("nodePort"));
      }
    }
    std::set<int64_t> used;
    for (auto& p : PortsOf(svc)) {
      if (p.node_port != 0) used.insert(p.node_port);
    }
    for (auto& p : PortsOf(svc)) {
      if (p.node_port != 0) continue;
      int64_t prev = by_name.count(p.name) ? by_name[p.name] : 0;
      if (prev != 0 && !used.count(prev)) (*p.obj)["nodePort"] = prev;
    }
  }
  if (ServiceNeedsHealthCheck(old) && ServiceNeedsHealthCheck(svc)) {
    if (IntOf(spec.if_contains("healthCheckNodePort")) == 0 && IntOf(Spec(old).if_contains("healthCheckNodePort")) != 0) {
      spec["healthCheckNodePort"] = Spec(old).at("healthCheckNodePort");
    }
  }
}

void NormalizeClusterIps(registry::Object& svc, const registry::Object* old) {
  json::object& spec = ObjectField(svc, "spec");
  std::string ip = StrOf(spec.if_contains("clusterIP"));
  std::vector<std::string> ips = Strings(spec, "clusterIPs");
  if (!old) {
    if (!ip.empty() && ips.empty()) spec["clusterIPs"] = json::array{json::value(ip)};
    return;
  }
  std::string old_ip = StrOf(Spec(*old).if_contains("clusterIP"));
  std::vector<std::string> old_ips = Strings(Spec(*old), "clusterIPs");
  if (!old_ips.empty() && ips.empty() && old_ip == ip) {
    spec["clusterIPs"] = ToArray(old_ips);
    ips = old_ips;
  }
  if (old_ip != ip) {
    const bool same_ips = ips == old_ips;
    if (!old_ip.empty() && ip.empty() && same_ips) spec.erase("clusterIPs");
    if (!ip.empty() && same_ips) spec["clusterIPs"] = json::array{json::value(ip)};
  }
}

StatusOr<std::unique_ptr<ServiceAllocator>> ServiceAllocator::Create(storage::ObjectStore& store, const std::string& prefix,
                                                                     const std::string& cidr, const std::string& ports) {
  std::string first = cidr;
  if (size_t comma = cidr.find(','); comma != std::string::npos) {
    first = std::string(TrimSpace(cidr.substr(0, comma)));
    LogWarn("dual-stack service ranges are not supported yet; using the first", {{"range", first}});
  }
  auto ips = registry::IpRange::Parse(first);
  if (!ips.ok()) return ips.TakeStatus();
  if (ips->Size() < 1) return Status(400, "BadRequest", "--service-cluster-ip-range " + first + " has no usable addresses");
  auto pr = registry::PortRange::Parse(ports);
  if (!pr.ok()) return pr.TakeStatus();
  return std::unique_ptr<ServiceAllocator>(new ServiceAllocator(store, prefix, std::move(*ips), std::move(*pr)));
}

ServiceAllocator::ServiceAllocator(storage::ObjectStore& store, std::string prefix, registry::IpRange ips,
                                   registry::PortRange ports)
    : store_(store), prefix_(std::move(prefix)), ips_(std::move(ips)), ports_(std::move(ports)) {
  ip_alloc_ = std::make_unique<registry::RangeAllocator>(store_, prefix_ + "/ranges/serviceips", ips_.cidr(), ips_.Size(),
                                                         ips_.DynamicOffset(), [this]() { return InUse(true); });
  port_alloc_ = std::make_unique<registry::RangeAllocator>(store_, prefix_ + "/ranges/servicenodeports", ports_.String(),
                                                           ports_.size(), ports_.DynamicOffset(),
                                                           [this]() { return InUse(false); });
}

Task<StatusOr<registry::RangeAllocator::InUse>> ServiceAllocator::InUse(bool ips) const {
  auto list = co_await store_.GetList(prefix_ + "/services/specs", {});
  if (!list.ok()) co_return list.TakeStatus();
  registry::RangeAllocator::InUse out;
  out.revision = list->revision;
  for (const auto& svc : list->items) {
    if (ips) {
      for (const auto& ip : Strings(Spec(svc), "clusterIPs")) {
        auto addr = IpAddress::Parse(ip);
        if (!addr) continue;
        if (auto off = ips_.OffsetOf(*addr)) out.offsets.push_back(*off);
      }
    } else {
      for (int64_t p : NodePortsOf(svc)) {
        if (auto off = ports_.OffsetOf(static_cast<int>(p))) out.offsets.push_back(*off);
      }
    }
  }
  co_return out;
}

Status ServiceAllocator::InitIpFamilyFields(registry::Object& svc, const registry::Object* old) const {
  if (Type(svc) == "ExternalName") return Status();
  json::object& spec = ObjectField(svc, "spec");
  FieldPath sp("spec");
  // A PreferDualStack service that did not change stays as it is.
  if (old && Policy(spec) && Type(*old) == Type(svc) && *Policy(spec) == "PreferDualStack" &&
      Policy(Spec(*old)).value_or("PreferDualStack") == "PreferDualStack" && SameField(svc, *old, "clusterIPs") &&
      SameField(svc, *old, "ipFamilies")) {
    return Status();
  }
  if (!Policy(spec)) {
    if (old && Policy(Spec(*old))) {
      spec["ipFamilyPolicy"] = *Policy(Spec(*old));
    } else if (StrOf(spec.if_contains("clusterIP")) == "None" && CountAt(spec, "selector") == 0) {
      spec["ipFamilyPolicy"] = "RequireDualStack";
    } else {
      spec["ipFamilyPolicy"] = "SingleStack";
    }
  }
  std::string policy = *Policy(spec);
  ErrorList errs;
  std::vector<std::string> ips = Strings(spec, "clusterIPs");
  std::vector<std::string> families = Strings(spec, "ipFamilies");
  if (old) {
    if (policy == "SingleStack") {
      if (SameField(svc, *old, "clusterIPs") && ips.size() > 1) {
        ips.resize(1);
        SetStrings(spec, "clusterIPs", ips);
      }
      if (SameField(svc, *old, "ipFamilies") && families.size() > 1) {
        families.resize(1);
        SetStrings(spec, "ipFamilies", families);
      }
    } else {
      if (ips.size() < Strings(Spec(*old), "clusterIPs").size()) {
        errs.push_back(InvalidError(sp.Child("ipFamilyPolicy"), policy, "must be 'SingleStack' to release the secondary cluster IP"));
      }
      if (families.size() < Strings(Spec(*old), "ipFamilies").size()) {
        errs.push_back(InvalidError(sp.Child("ipFamilyPolicy"), policy, "must be 'SingleStack' to release the secondary IP family"));
      }
    }
  }
  if (policy == "SingleStack") {
    if (ips.size() == 2) {
      errs.push_back(InvalidError(sp.Child("ipFamilyPolicy"), policy,
                                  "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
    }
    if (families.size() == 2) {
      errs.push_back(InvalidError(sp.Child("ipFamilyPolicy"), policy,
                                  "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
    }
  }
  for (size_t i = 0; i < ips.size(); ++i) {
    if (ips[i] == "None") break;
    std::string fam = FamilyOf(ips[i]);
    if (i >= families.size()) {
      if (fam != family()) {
        errs.push_back(InvalidGoValue(sp.Child("clusterIPs").Index(i), GoStringSlice(ips), fam + " is not configured on this cluster"));
      } else {
        families.push_back(fam);
      }
    }
  }
  if (!errs.empty()) return Invalid(svc, errs);
  SetStrings(spec, "ipFamilies", families);
  if (StrOf(spec.if_contains("clusterIP")) == "None" && CountAt(spec, "selector") == 0) {
    if (families.empty()) families.push_back(family());
    if (families.size() < 2 && policy != "SingleStack") families.push_back(families[0] == "IPv4" ? "IPv6" : "IPv4");
    SetStrings(spec, "ipFamilies", families);
    return Status();
  }
  if (policy == "RequireDualStack") {
    errs.push_back(InvalidError(sp.Child("ipFamilyPolicy"), policy, "this cluster is not configured for dual-stack services"));
  }
  for (size_t i = 0; i < families.size(); ++i) {
    if (families[i] != family()) errs.push_back(InvalidError(sp.Child("ipFamilies").Index(i), families[i], "not configured on this cluster"));
  }
  if (!errs.empty()) return Invalid(svc, errs);
  if (families.empty()) families.push_back(family());
  SetStrings(spec, "ipFamilies", families);
  return Status();
}

Task<Status> ServiceAllocator::AllocClusterIps(registry::Object& svc, Txn& txn) {
  json::object& spec = ObjectField(svc, "spec");
  std::vector<std::string> ips = Strings(spec, "clusterIPs");
  if (Type(svc) == "ExternalName" || (!ips.empty() && ips[0] == "None")) co_return Status();
  if (ips.empty()) ips.push_back("");
  registry::RangeAllocator::Request req;
  req.dry_run = txn.dry_run;
  if (ips[0].empty()) {
    req.count = 1;
  } else {
    auto addr = IpAddress::Parse(ips[0]);
    std::optional<int64_t> off = addr ? ips_.OffsetOf(*addr) : std::nullopt;
    if (!off) {
      co_return Invalid(svc, {InvalidGoValue(FieldPath("spec").Child("clusterIPs"), GoStringSlice(ips),
                                             "failed to allocate IP " + ips[0] + ": the provided IP (" + ips[0] +
                                                 ") is not in the valid range. The range of valid IPs is " + ips_.cidr())});
    }
    req.specific.push_back(*off);
  }
  auto r = co_await ip_alloc_->Allocate(req);
  if (!r.ok()) co_return am::NewInternalError("failed to allocate a serviceIP: " + r.status().message());
  if (r->full) co_return am::NewInternalError("failed to allocate a serviceIP: range is full");
  if (r->conflict_index >= 0) {
    co_return Invalid(svc, {InvalidGoValue(FieldPath("spec").Child("clusterIPs"), GoStringSlice(ips),
                                           "failed to allocate IP " + ips[0] + ": provided IP is already allocated")});
  }
  int64_t off = req.count > 0 ? r->chosen[0] : req.specific[0];
  txn.taken_ips.push_back(off);
  ips[0] = ips_.AddressAt(off).String();
  spec["clusterIPs"] = ToArray(ips);
  spec["clusterIP"] = ips[0];
  co_return Status();
}

Task<Status> ServiceAllocator::AllocNodePorts(registry::Object& svc, const registry::Object* old, Txn& txn) {
  std::vector<int64_t> old_ports = old ? NodePortsOf(*old) : std::vector<int64_t>();
  const bool needs = ServiceNeedsNodePorts(svc);
  if (old && ServiceNeedsNodePorts(*old) && !needs) {
    txn.dropped_ports.insert(txn.dropped_ports.end(), old_ports.begin(), old_ports.end());
  }
  // Decide, in port order, which ports need a specific value and which the next free one.
  struct Want {
    Port* port;  // null: the health-check node port
    int64_t value;
  };
  std::vector<Port> ports = PortsOf(svc);
  std::vector<Want> specific, next;
  std::set<int64_t> planned;
  std::map<int64_t, int64_t> by_service_port;  // create: one node port per service port number
  auto not_in_range = [&](size_t i, int64_t np) {
    return Invalid(svc, {InvalidError(FieldPath("spec").Child("ports").Index(i).Child("nodePort"), np,
                                      "provided port is not in the valid range. The range of valid ports is " + ports_.String())});
  };
  if (needs) {
    for (size_t i = 0; i < ports.size(); ++i) {
      Port& p = ports[i];
      if (p.node_port == 0 && !ShouldAllocateNodePorts(svc)) continue;
      if (!old) {
        auto it = by_service_port.find(p.port);
        if (it == by_service_port.end()) {
          int64_t requested = 0;
          for (size_t j = i; j < ports.size(); ++j) {
            if (ports[j].port == p.port && ports[j].node_port != 0) {
              requested = ports[j].node_port;
              break;
            }
          }
          if (requested != 0) {
            if (!ports_.Contains(static_cast<int>(requested))) co_return not_in_range(i, requested);
            specific.push_back({&p, requested});
            by_service_port[p.port] = requested;
          } else {
            next.push_back({&p, 0});
            by_service_port[p.port] = -1;  // chosen later
          }
        } else if (p.node_port == 0) {
          // Shares its service port's node port: the next choice made for it, or the one requested.
          if (it->second == -1) next.push_back({&p, 0});
        } else if (p.node_port != it->second && !planned.count(p.node_port)) {
          if (!ports_.Contains(static_cast<int>(p.node_port))) co_return not_in_range(i, p.node_port);
          specific.push_back({&p, p.node_port});
        }
        if (p.node_port != 0) planned.insert(p.node_port);
      } else if (p.node_port != 0) {
        bool had = std::find(old_ports.begin(), old_ports.end(), p.node_port) != old_ports.end();
        if (!had && !planned.count(p.node_port)) {
          if (!ports_.Contains(static_cast<int>(p.node_port))) co_return not_in_range(i, p.node_port);
          specific.push_back({&p, p.node_port});
          planned.insert(p.node_port);
        }
      } else {
        next.push_back({&p, 0});
      }
    }
  }
  const bool hc_needed = ServiceNeedsHealthCheck(svc);
  const bool hc_had = old && ServiceNeedsHealthCheck(*old);
  json::object& spec = ObjectField(svc, "spec");
  int64_t hc = IntOf(spec.if_contains("healthCheckNodePort"));
  bool hc_next = false;
  if (hc_needed && !hc_had) {
    if (hc != 0) {
      if (!ports_.Contains(static_cast<int>(hc))) {
        co_return am::NewInternalError("failed to allocate requested HealthCheck NodePort " + std::to_string(hc) +
                                       ": provided port is not in the valid range. The range of valid ports is " + ports_.String());
      }
      specific.push_back({nullptr, hc});
    } else {
      hc_next = true;
    }
  } else if (hc_had && !hc_needed) {
    int64_t old_hc = IntOf(Spec(*old).if_contains("healthCheckNodePort"));
    if (old_hc != 0) txn.dropped_ports.push_back(old_hc);
    if (hc == old_hc) spec.erase("healthCheckNodePort");
  }
  // On create, ports sharing a service port number share one choice.
  size_t distinct_next = 0;
  std::map<int64_t, size_t> next_slot;
  for (auto& w : next) {
    if (!old) {
      auto it = next_slot.find(w.port->port);
      if (it == next_slot.end()) next_slot[w.port->port] = distinct_next++;
    } else {
      ++distinct_next;
    }
  }
  if (hc_next) ++distinct_next;
  if (!specific.empty() || distinct_next > 0) {
    registry::RangeAllocator::Request req;
    req.dry_run = txn.dry_run;
    std::vector<int64_t> uniq;
    for (auto& w : specific) {
      int64_t off = *ports_.OffsetOf(static_cast<int>(w.value));
      if (std::find(uniq.begin(), uniq.end(), off) == uniq.end()) uniq.push_back(off);
    }
    req.specific = uniq;
    req.count = static_cast<int>(distinct_next);
    auto r = co_await port_alloc_->Allocate(req);
    if (!r.ok()) co_return am::NewInternalError("failed to allocate a nodePort: " + r.status().message());
    if (r->conflict_index >= 0) {
      int64_t value = ports_.PortAt(uniq[static_cast<size_t>(r->conflict_index)]);
      for (size_t i = 0; i < ports.size(); ++i) {
        for (auto& w : specific) {
          if (w.port == &ports[i] && w.value == value) {
            co_return Invalid(svc, {InvalidError(FieldPath("spec").Child("ports").Index(i).Child("nodePort"), value,
                                                 "provided port is already allocated")});
          }
        }
      }
      co_return am::NewInternalError("failed to allocate requested HealthCheck NodePort " + std::to_string(value) +
                                     ": provided port is already allocated");
    }
    if (r->full) co_return am::NewInternalError("failed to allocate a nodePort: range is full");
    txn.taken_ports.insert(txn.taken_ports.end(), uniq.begin(), uniq.end());
    txn.taken_ports.insert(txn.taken_ports.end(), r->chosen.begin(), r->chosen.end());
    size_t k = 0;
    for (auto& w : specific) {
      if (w.port) (*w.port->obj)["nodePort"] = w.value;
    }
    for (auto& w : next) {
      size_t slot = old ? k++ : next_slot[w.port->port];
      (*w.port->obj)["nodePort"] = ports_.PortAt(r->chosen[slot]);
    }
    if (hc_next) spec["healthCheckNodePort"] = ports_.PortAt(r->chosen.back());
  }
  // Create: ports that share a service port number with an explicit node port take it.
  if (!old) {
    for (auto& p : PortsOf(svc)) {
      if (IntOf(p.obj->if_contains("nodePort")) == 0 && by_service_port.count(p.port) && by_service_port[p.port] > 0 &&
          (ShouldAllocateNodePorts(svc))) {
        (*p.obj)["nodePort"] = by_service_port[p.port];
      }
    }
  }
  // Update: what the old object held and the new one does not is given back on commit.
  if (old && needs) {
    std::vector<int64_t> now = NodePortsOf(svc);
    for (int64_t p : old_ports) {
      if (std::find(now.begin(), now.end(), p) == now.end() &&
          std::find(txn.dropped_ports.begin(), txn.dropped_ports.end(), p) == txn.dropped_ports.end()) {
        txn.dropped_ports.push_back(p);
      }
    }
  }
  co_return Status();
}

Task<StatusOr<ServiceAllocator::Txn>> ServiceAllocator::AllocateCreate(registry::Object& svc, bool dry_run) {
  Txn txn;
  txn.dry_run = dry_run;
  CO_RETURN_IF_ERROR(InitIpFamilyFields(svc, nullptr));
  CO_RETURN_IF_ERROR(co_await AllocClusterIps(svc, txn));
  Status st = co_await AllocNodePorts(svc, nullptr, txn);
  if (!st.ok()) {
    co_await Revert(txn);
    co_return st;
  }
  co_return txn;
}

Task<StatusOr<ServiceAllocator::Txn>> ServiceAllocator::AllocateUpdate(registry::Object& svc, const registry::Object& old,
                                                                       bool dry_run) {
  Txn txn;
  txn.dry_run = dry_run;
  CO_RETURN_IF_ERROR(InitIpFamilyFields(svc, &old));
  // ClusterIPs: allocated when the type leaves ExternalName, released when it becomes ExternalName.
  if (Type(old) == "ExternalName" && Type(svc) != "ExternalName") {
    CO_RETURN_IF_ERROR(co_await AllocClusterIps(svc, txn));
  } else if (Type(old) != "ExternalName" && Type(svc) == "ExternalName") {
    for (const auto& ip : Strings(Spec(old), "clusterIPs")) {
      auto addr = IpAddress::Parse(ip);
      if (auto off = addr ? ips_.OffsetOf(*addr) : std::nullopt) txn.dropped_ips.push_back(*off);
    }
  }
  Status st = co_await AllocNodePorts(svc, &old, txn);
  if (!st.ok()) {
    co_await Revert(txn);
    co_return st;
  }
  co_return txn;
}

Task<void> ServiceAllocator::Commit(const Txn& txn) {
  if (txn.dry_run) co_return;
  std::vector<int64_t> ports;
  for (int64_t p : txn.dropped_ports) {
    if (auto off = ports_.OffsetOf(static_cast<int>(p))) ports.push_back(*off);
  }
  if (Status st = co_await port_alloc_->Release(ports); !st.ok()) LogWarn("releasing node ports failed", {{"error", st.message()}});
  if (Status st = co_await ip_alloc_->Release(txn.dropped_ips); !st.ok()) {
    LogWarn("releasing cluster IPs failed", {{"error", st.message()}});
  }
}

Task<void> ServiceAllocator::Revert(const Txn& txn) {
  if (txn.dry_run) co_return;
  if (Status st = co_await ip_alloc_->Release(txn.taken_ips); !st.ok()) LogWarn("releasing cluster IPs failed", {{"error", st.message()}});
  if (Status st = co_await port_alloc_->Release(txn.taken_ports); !st.ok()) {
    LogWarn("releasing node ports failed", {{"error", st.message()}});
  }
}

Task<void> ServiceAllocator::ReleaseAll(const registry::Object& svc) {
  std::vector<int64_t> ips, ports;
  for (const auto& ip : Strings(Spec(svc), "clusterIPs")) {
    auto addr = IpAddress::Parse(ip);
    if (auto off = addr ? ips_.OffsetOf(*addr) : std::nullopt) ips.push_back(*off);
  }
  for (int64_t p : NodePortsOf(svc)) {
    if (auto off = ports_.OffsetOf(static_cast<int>(p))) ports.push_back(*off);
  }
  if (Status st = co_await ip_alloc_->Release(ips); !st.ok()) LogWarn("releasing cluster IPs failed", {{"error", st.message()}});
  if (Status st = co_await port_alloc_->Release(ports); !st.ok()) LogWarn("releasing node ports failed", {{"error", st.message()}});
}

}  // namespace capstan::api::core
