#include "api/core/service_validation.h"

#include <algorithm>
#include <set>

#include "api/core/core_helpers.h"
#include "api/core/pod_validation.h"
#include "api/core/pod_validation_internal.h"
#include "apimachinery/int_or_string.h"
#include "apimachinery/object_meta_validation.h"
#include "apimachinery/validation.h"
#include "registry/ip_range.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

const json::object& Spec(const json::object& svc) {
  static const json::object kEmpty;
  const auto* s = svc.if_contains("spec");
  return s && s->is_object() ? s->get_object() : kEmpty;
}

std::vector<std::string> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* a = o.if_contains(key); a && a->is_array()) {
    for (const auto& v : a->get_array()) out.push_back(v.is_string() ? std::string(v.get_string()) : std::string());
  }
  return out;
}

bool Headless(const json::object& spec) {
  auto ips = Strings(spec, "clusterIPs");
  return !ips.empty() && ips[0] == "None";
}

bool ValidIp(const std::string& s) { return registry::IpAddress::Parse(s).has_value(); }

constexpr const char* kIpMessage = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";

bool ExternallyAccessible(const json::object& spec) {
  std::string t = StrOf(spec.if_contains("type"));
  return t == "LoadBalancer" || t == "NodePort" || (t == "ClusterIP" && CountAt(spec, "externalIPs") > 0);
}

// Go's %#v of the core.ServicePort kube uses as the key of duplicate ports.
std::string GoServicePortKey(const std::string& protocol, int64_t port) {
  return "core.ServicePort{Name:\"\", Protocol:" + GoQuote(protocol) + ", AppProtocol:(*string)(nil), Port:" +
         std::to_string(port) + ", TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:\"\"}, NodePort:0}";
}

}  // namespace

void DefaultService(json::object& svc) {
  json::object& spec = ObjectField(svc, "spec");
  if (StrOf(spec.if_contains("sessionAffinity")).empty()) spec["sessionAffinity"] = "None";
  std::string affinity = StrOf(spec.if_contains("sessionAffinity"));
  if (affinity == "None") spec.erase("sessionAffinityConfig");
  if (affinity == "ClientIP") {
    const auto* t = PathAt(svc, {"spec", "sessionAffinityConfig", "clientIP", "timeoutSeconds"});
    if (!t || t->is_null()) spec["sessionAffinityConfig"] = json::object{{"clientIP", json::object{{"timeoutSeconds", 10800}}}};
  }
  if (StrOf(spec.if_contains("type")).empty()) spec["type"] = "ClusterIP";
  if (auto* ports = ArrayField(spec, "ports")) {
    for (auto& p : *ports) {
      if (!p.is_object()) continue;
      auto& o = p.get_object();
      if (StrOf(o.if_contains("protocol")).empty()) o["protocol"] = "TCP";
      const auto* tp = o.if_contains("targetPort");
      bool unset = !tp || tp->is_null() || (tp->is_int64() && tp->get_int64() == 0) || (tp->is_string() && tp->get_string().empty());
      if (unset) o["targetPort"] = IntOf(o.if_contains("port"));
    }
  }
  std::string type = StrOf(spec.if_contains("type"));
  if (ExternallyAccessible(spec) && StrOf(spec.if_contains("externalTrafficPolicy")).empty()) {
    spec["externalTrafficPolicy"] = "Cluster";
  }
  if ((!spec.contains("internalTrafficPolicy") || spec.at("internalTrafficPolicy").is_null()) &&
      (type == "NodePort" || type == "LoadBalancer" || type == "ClusterIP")) {
    spec["internalTrafficPolicy"] = "Cluster";
  }
  if (type == "LoadBalancer" && (!spec.contains("allocateLoadBalancerNodePorts") || spec.at("allocateLoadBalancerNodePorts").is_null())) {
    spec["allocateLoadBalancerNodePorts"] = true;
  }
  if (type == "LoadBalancer") {
    auto* status = svc.if_contains("status");
    auto* lb = status && status->is_object() ? status->get_object().if_contains("loadBalancer") : nullptr;
    auto* ing = lb && lb->is_object() ? lb->get_object().if_contains("ingress") : nullptr;
    if (ing && ing->is_array()) {
      for (auto& i : ing->get_array()) {
        if (i.is_object() && !StrOf(i.get_object().if_contains("ip")).empty() && !i.get_object().contains("ipMode")) {
          i.get_object()["ipMode"] = "VIP";
        }
      }
    }
  }
}

void DropTypeDependentFields(json::object& svc, const json::object& old) {
  json::object& spec = ObjectField(svc, "spec");
  const json::object& os = Spec(old);
  std::string nt = StrOf(spec.if_contains("type")), ot = StrOf(os.if_contains("type"));
  auto same = [&](std::string_view key) {
    const auto* a = spec.if_contains(key);
    const auto* b = os.if_contains(key);
    auto empty = [](const json::value* v) { return !v || v->is_null() || (v->is_array() && v->get_array().empty()); };
    if (empty(a) && empty(b)) return true;
    return a && b && *a == *b;
  };
  auto needs_ip = [](const std::string& t) { return t != "ExternalName"; };
  auto needs_np = [](const std::string& t) { return t == "NodePort" || t == "LoadBalancer"; };
  if (needs_ip(ot) && !needs_ip(nt)) {
    if (same("clusterIPs") && same("clusterIP")) {
      spec.erase("clusterIP");
      spec.erase("clusterIPs");
    }
    if (same("ipFamilies")) spec.erase("ipFamilies");
    if (same("ipFamilyPolicy")) spec.erase("ipFamilyPolicy");
  }
  if (needs_np(ot) && !needs_np(nt)) {
    bool same_ports = true;
    const auto* a = spec.if_contains("ports");
    const auto* b = os.if_contains("ports");
    if (a && a->is_array() && b && b->is_array() && a->get_array().size() == b->get_array().size()) {
      for (size_t i = 0; i < a->get_array().size(); ++i) {
        const auto& x = a->get_array()[i];
        const auto& y = b->get_array()[i];
        if (!x.is_object() || !y.is_object() ||
            IntOf(x.get_object().if_contains("nodePort")) != IntOf(y.get_object().if_contains("nodePort"))) {
          same_ports = false;
        }
      }
    } else if (CountAt(spec, "ports") != CountAt(os, "ports")) {
      same_ports = false;
    }
    if (same_ports) {
      if (auto* ports = ArrayField(spec, "ports")) {
        for (auto& p : *ports) {
          if (p.is_object()) p.get_object().erase("nodePort");
        }
      }
    }
  }
  bool hc_old = ot == "LoadBalancer" && StrOf(os.if_contains("externalTrafficPolicy")) == "Local";
  bool hc_new = nt == "LoadBalancer" && StrOf(spec.if_contains("externalTrafficPolicy")) == "Local";
  if (hc_old && !hc_new && IntOf(spec.if_contains("healthCheckNodePort")) == IntOf(os.if_contains("healthCheckNodePort"))) {
    spec.erase("healthCheckNodePort");
  }
  if (ot == "LoadBalancer" && nt != "LoadBalancer") {
    if (same("allocateLoadBalancerNodePorts")) spec.erase("allocateLoadBalancerNodePorts");
    if (same("loadBalancerClass")) spec.erase("loadBalancerClass");
  }
  if (needs_ip(ot) && !needs_ip(nt) && same("internalTrafficPolicy")) spec.erase("internalTrafficPolicy");
  if (!ExternallyAccessible(spec) && same("externalTrafficPolicy")) spec.erase("externalTrafficPolicy");
}

ErrorList ValidateServiceClusterIps(const json::object& svc) {
  ErrorList errs;
  const json::object& spec = Spec(svc);
  FieldPath ips_path = FieldPath("spec").Child("clusterIPs");
  std::string ip = StrOf(spec.if_contains("clusterIP"));
  std::vector<std::string> ips = Strings(spec, "clusterIPs");
  std::vector<std::string> families = Strings(spec, "ipFamilies");
  if (!ip.empty()) {
    if (ips.empty()) {
      errs.push_back(RequiredError(ips_path, ""));
    } else if (ips[0] != ip) {
      errs.push_back(InvalidGoValue(ips_path, GoStringSlice(ips), "first value must match `clusterIP`"));
    }
  } else if (!ips.empty()) {
    errs.push_back(InvalidGoValue(ips_path, GoStringSlice(ips), "must be empty when `clusterIP` is not specified"));
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < families.size(); ++i) {
    FieldPath p = FieldPath("spec").Child("ipFamilies").Index(i);
    if (families[i] != "IPv4" && families[i] != "IPv6") errs.push_back(NotSupportedError(p, families[i], {"IPv4", "IPv6"}));
    if (!seen.insert(families[i]).second) errs.push_back(DuplicateError(p, families[i]));
  }
  if (const auto* pol = spec.if_contains("ipFamilyPolicy"); pol && pol->is_string()) {
    std::string v(pol->get_string());
    if (v != "SingleStack" && v != "PreferDualStack" && v != "RequireDualStack") {
      errs.push_back(NotSupportedError(FieldPath("spec").Child("ipFamilyPolicy"), v,
                                       {"PreferDualStack", "RequireDualStack", "SingleStack"}));
    }
  }
  bool bad_ips = false;
  for (size_t i = 0; i < ips.size(); ++i) {
    if (i == 0 && ips[i] == "None") {
      if (ips.size() > 1) {
        bad_ips = true;
        errs.push_back(InvalidGoValue(ips_path, GoStringSlice(ips), "'None' must be the first and only value"));
      }
      continue;
    }
    if (!ValidIp(ips[i])) {
      bad_ips = true;
      errs.push_back(InvalidError(ips_path.Index(i), ips[i], kIpMessage));
    }
  }
  if (ips.size() > 2) errs.push_back(InvalidGoValue(ips_path, GoStringSlice(ips), "may only hold up to 2 values"));
  if (bad_ips) return errs;
  if (ips.size() > 1) {
    bool v6a = ips[0].find(':') != std::string::npos, v6b = ips[1].find(':') != std::string::npos;
    if (ips.size() != 2 || v6a == v6b) {
      errs.push_back(InvalidGoValue(ips_path, GoStringSlice(ips), "may specify no more than one IP for each IP family"));
    }
  }
  if (!Headless(spec) && !ips.empty() && !families.empty()) {
    for (size_t i = 0; i < ips.size() && i < families.size(); ++i) {
      bool v6 = ips[i].find(':') != std::string::npos;
      if (families[i] == "IPv4" && v6) {
        errs.push_back(InvalidError(ips_path.Index(i), ips[i], "expected an IPv4 value as indicated by `ipFamilies[" + std::to_string(i) + "]`"));
      }
      if (families[i] == "IPv6" && !v6) {
        errs.push_back(InvalidError(ips_path.Index(i), ips[i], "expected an IPv6 value as indicated by `ipFamilies[" + std::to_string(i) + "]`"));
      }
    }
  }
  return errs;
}

ErrorList ValidateService(const json::object& svc) {
  ErrorList errs;
  auto add = [&](ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); };
  const json::object& spec = Spec(svc);
  FieldPath sp("spec");
  std::string type = StrOf(spec.if_contains("type"));
  const bool headless = Headless(spec);
  if (CountAt(spec, "ports") == 0 && !headless && type != "ExternalName") errs.push_back(RequiredError(sp.Child("ports"), ""));
  auto ips = Strings(spec, "clusterIPs");
  if (type == "LoadBalancer" && headless) {
    errs.push_back(InvalidError(sp.Child("clusterIPs").Index(0), ips[0], "may not be set to 'None' for LoadBalancer services"));
  } else if (type == "NodePort" && headless) {
    errs.push_back(InvalidError(sp.Child("clusterIPs").Index(0), ips[0], "may not be set to 'None' for NodePort services"));
  } else if (type == "ExternalName") {
    if (!ips.empty()) errs.push_back(ForbiddenError(sp.Child("clusterIPs"), "may not be set for ExternalName services"));
    if (CountAt(spec, "ipFamilies") > 0) errs.push_back(ForbiddenError(sp.Child("ipFamilies"), "may not be set for ExternalName services"));
    if (spec.contains("ipFamilyPolicy") && !spec.at("ipFamilyPolicy").is_null()) {
      errs.push_back(ForbiddenError(sp.Child("ipFamilyPolicy"), "may not be set for ExternalName services"));
    }
    std::string cname = StrOf(spec.if_contains("externalName"));
    if (!cname.empty() && cname.back() == '.') cname.pop_back();
    if (!cname.empty()) {
      add(ProblemsAt(am::IsDNS1123Subdomain(cname), sp.Child("externalName"), cname));
    } else {
      errs.push_back(RequiredError(sp.Child("externalName"), ""));
    }
  }
  std::set<std::string> names;
  const auto* ports = spec.if_contains("ports");
  size_t nports = ports && ports->is_array() ? ports->get_array().size() : 0;
  for (size_t i = 0; i < nports; ++i) {
    const auto& pv = ports->get_array()[i];
    static const json::object kEmpty;
    const json::object& p = pv.is_object() ? pv.get_object() : kEmpty;
    FieldPath pp = sp.Child("ports").Index(i);
    std::string name = StrOf(p.if_contains("name"));
    if (nports > 1 && name.empty()) {
      errs.push_back(RequiredError(pp.Child("name"), ""));
    } else if (!name.empty()) {
      add(ProblemsAt(am::IsDNS1123Label(name), pp.Child("name"), name));
      if (!names.insert(name).second) errs.push_back(DuplicateError(pp.Child("name"), name));
    }
    int64_t port = IntOf(p.if_contains("port"));
    if (port < 1 || port > 65535) errs.push_back(InvalidError(pp.Child("port"), port, "must be between 1 and 65535, inclusive"));
    std::string proto = StrOf(p.if_contains("protocol"));
    if (proto.empty()) {
      errs.push_back(RequiredError(pp.Child("protocol"), ""));
    } else if (proto != "TCP" && proto != "UDP" && proto != "SCTP") {
      errs.push_back(NotSupportedError(pp.Child("protocol"), proto, {"SCTP", "TCP", "UDP"}));
    }
    add(ValidatePortNumOrName(p.if_contains("targetPort"), pp.Child("targetPort")));
    if (const auto* ap = p.if_contains("appProtocol"); ap && ap->is_string()) {
      add(ProblemsAt(am::IsQualifiedName(ap->get_string()), pp.Child("appProtocol"), ap->get_string()));
    }
  }
  if (const auto* sel = spec.if_contains("selector"); sel && sel->is_object()) {
    add(am::ValidateLabels(PairsOf(&sel->get_object()), sp.Child("selector")));
  }
  std::string affinity = StrOf(spec.if_contains("sessionAffinity"));
  if (affinity.empty()) {
    errs.push_back(RequiredError(sp.Child("sessionAffinity"), ""));
  } else if (affinity != "ClientIP" && affinity != "None") {
    errs.push_back(NotSupportedError(sp.Child("sessionAffinity"), affinity, {"ClientIP", "None"}));
  }
  if (affinity == "ClientIP") {
    const auto* t = PathAt(svc, {"spec", "sessionAffinityConfig", "clientIP", "timeoutSeconds"});
    FieldPath tp = sp.Child("sessionAffinityConfig").Child("clientIP").Child("timeoutSeconds");
    if (!t || t->is_null()) {
      errs.push_back(RequiredError(sp.Child("sessionAffinityConfig"), "when session affinity type is ClientIP"));
    } else if (IntOf(t) <= 0 || IntOf(t) > 86400) {
      errs.push_back(InvalidError(tp, IntOf(t), "must be greater than 0 and less than 86400"));
    }
  } else if (affinity == "None" && spec.contains("sessionAffinityConfig") && !spec.at("sessionAffinityConfig").is_null()) {
    errs.push_back(ForbiddenError(sp.Child("sessionAffinityConfig"), "must not be set when session affinity is None"));
  }
  add(ValidateServiceClusterIps(svc));
  auto external = Strings(spec, "externalIPs");
  for (size_t i = 0; i < external.size(); ++i) {
    FieldPath p = sp.Child("externalIPs").Index(i);
    auto addr = registry::IpAddress::Parse(external[i]);
    if (!addr) {
      errs.push_back(InvalidError(p, external[i], kIpMessage));
    } else if (addr->IsUnspecified()) {
      errs.push_back(InvalidError(p, external[i], "may not be unspecified (0.0.0.0)"));
    } else if (addr->IsLoopback()) {
      errs.push_back(InvalidError(p, external[i], "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
    }
  }
  if (type.empty()) {
    errs.push_back(RequiredError(sp.Child("type"), ""));
  } else if (type != "ClusterIP" && type != "ExternalName" && type != "LoadBalancer" && type != "NodePort") {
    errs.push_back(NotSupportedError(sp.Child("type"), type, {"ClusterIP", "ExternalName", "LoadBalancer", "NodePort"}));
  }
  if (type == "ClusterIP") {
    for (size_t i = 0; i < nports; ++i) {
      const auto& p = ports->get_array()[i];
      if (p.is_object() && IntOf(p.get_object().if_contains("nodePort")) != 0) {
        errs.push_back(ForbiddenError(sp.Child("ports").Index(i).Child("nodePort"), "may not be used when `type` is 'ClusterIP'"));
      }
    }
  }
  std::set<std::pair<std::string, int64_t>> node_ports, keys;
  for (size_t i = 0; i < nports; ++i) {
    const auto& pv = ports->get_array()[i];
    if (!pv.is_object()) continue;
    std::string proto = StrOf(pv.get_object().if_contains("protocol"));
    int64_t np = IntOf(pv.get_object().if_contains("nodePort"));
    if (np != 0 && !node_ports.insert({proto, np}).second) {
      errs.push_back(DuplicateError(sp.Child("ports").Index(i).Child("nodePort"), np));
    }
  }
  for (size_t i = 0; i < nports; ++i) {
    const auto& pv = ports->get_array()[i];
    if (!pv.is_object()) continue;
    std::string proto = StrOf(pv.get_object().if_contains("protocol"));
    int64_t port = IntOf(pv.get_object().if_contains("port"));
    if (!keys.insert({proto, port}).second) {
      FieldError e = DuplicateError(sp.Child("ports").Index(i), "");
      e.omit_value = true;
      e.detail = GoServicePortKey(proto, port);
      errs.push_back(std::move(e));
    }
  }
  std::string etp = StrOf(spec.if_contains("externalTrafficPolicy"));
  if (ExternallyAccessible(spec)) {
    if (etp.empty()) {
      errs.push_back(RequiredError(sp.Child("externalTrafficPolicy"), ""));
    } else if (etp != "Cluster" && etp != "Local") {
      errs.push_back(NotSupportedError(sp.Child("externalTrafficPolicy"), etp, {"Cluster", "Local"}));
    }
  } else if (!etp.empty()) {
    errs.push_back(InvalidError(sp.Child("externalTrafficPolicy"), etp,
                                "may only be set for externally-accessible services"));
  }
  if (const auto* itp = spec.if_contains("internalTrafficPolicy"); itp && itp->is_string()) {
    std::string v(itp->get_string());
    if (v != "Cluster" && v != "Local") errs.push_back(NotSupportedError(sp.Child("internalTrafficPolicy"), v, {"Cluster", "Local"}));
  } else if (type == "ClusterIP" || type == "NodePort" || type == "LoadBalancer") {
    errs.push_back(RequiredError(sp.Child("internalTrafficPolicy"), ""));
  }
  int64_t hc = IntOf(spec.if_contains("healthCheckNodePort"));
  if (hc != 0 && !(type == "LoadBalancer" && etp == "Local")) {
    errs.push_back(InvalidError(sp.Child("healthCheckNodePort"), hc,
                                "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'"));
  }
  return errs;
}

ErrorList ValidateServiceUpdate(const json::object& svc, const json::object& old) {
  ErrorList errs;
  const json::object& spec = Spec(svc);
  const json::object& os = Spec(old);
  std::string nt = StrOf(spec.if_contains("type")), ot = StrOf(os.if_contains("type"));
  if (nt != "ExternalName" && ot != "ExternalName" && !(Headless(spec) && Headless(os))) {
    auto ips = Strings(spec, "clusterIPs");
    auto old_ips = Strings(os, "clusterIPs");
    FieldPath p = FieldPath("spec").Child("clusterIPs");
    if (ips.size() == old_ips.size()) {
      for (size_t i = 0; i < old_ips.size(); ++i) {
        if (old_ips[i] != ips[i]) errs.push_back(InvalidGoValue(p.Index(i), GoStringSlice(ips), "may not change once set"));
      }
    } else if (old_ips.size() > ips.size()) {
      if (ips.empty()) errs.push_back(InvalidGoValue(p.Index(0), GoStringSlice(ips), "primary clusterIP can not be unset"));
      if (!old_ips.empty() && !ips.empty() && ips[0] != old_ips[0]) {
        errs.push_back(InvalidGoValue(p.Index(0), GoStringSlice(ips), "may not change once set"));
      }
    } else if (!old_ips.empty() && ips[0] != old_ips[0]) {
      errs.push_back(InvalidGoValue(p.Index(0), GoStringSlice(ips), "may not change once set"));
    }
    auto fams = Strings(spec, "ipFamilies");
    auto old_fams = Strings(os, "ipFamilies");
    FieldPath fp = FieldPath("spec").Child("ipFamilies");
    for (size_t i = 0; i < old_fams.size() && i < fams.size(); ++i) {
      if (fams[i] != old_fams[i]) errs.push_back(InvalidGoValue(fp.Index(i), GoStringSlice(fams), "may not change once set"));
    }
    if (fams.empty() && !old_fams.empty()) errs.push_back(InvalidGoValue(fp.Index(0), GoStringSlice(fams), "primary ipFamily can not be unset"));
  }
  ErrorList more = ValidateService(svc);
  errs.insert(errs.end(), more.begin(), more.end());
  return errs;
}

ErrorList ValidateServiceStatus(const json::object& svc) {
  ErrorList errs;
  const auto* ing = PathAt(svc, {"status", "loadBalancer", "ingress"});
  if (!ing || !ing->is_array()) return errs;
  FieldPath p = FieldPath("status").Child("loadBalancer").Child("ingress");
  for (size_t i = 0; i < ing->get_array().size(); ++i) {
    const auto& e = ing->get_array()[i];
    if (!e.is_object()) continue;
    std::string ip = StrOf(e.get_object().if_contains("ip"));
    if (!ip.empty() && !ValidIp(ip)) errs.push_back(InvalidError(p.Index(i).Child("ip"), ip, "must be a valid IP address"));
    std::string host = StrOf(e.get_object().if_contains("hostname"));
    if (!host.empty()) {
      auto more = ProblemsAt(am::IsDNS1123Subdomain(host), p.Index(i).Child("hostname"), host);
      errs.insert(errs.end(), more.begin(), more.end());
      if (ValidIp(host)) errs.push_back(InvalidError(p.Index(i).Child("hostname"), host, "must be a DNS name, not an IP address"));
    }
  }
  return errs;
}

}  // namespace capstan::api::core
