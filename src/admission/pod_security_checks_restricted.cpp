// The restricted level's checks (kube's pod-security-admission policy/check_*.go with Level restricted).
#include <set>

#include "admission/pod_security_checks.h"
#include "admission/pod_security_json.h"

namespace capstan::admission::psa::checks {

namespace json = boost::json;
using namespace psa::detail;

namespace {

CheckResult Allowed() { return CheckResult{}; }
CheckResult Forbidden(std::string reason, std::string detail) { return CheckResult{false, std::move(reason), std::move(detail)}; }
std::string Containers(const std::vector<std::string>& names) {
  return Pluralize("container", "containers", names.size()) + " " + JoinQuote(names);
}
const json::object* SecurityContext(const json::object& c) { return Obj(&c, "securityContext"); }

}  // namespace

CheckResult AllowPrivilegeEscalation_1_8(const json::object*, const json::object& spec) {
  std::vector<std::string> bad;
  VisitContainers(spec, [&](const json::object& c) {
    auto ape = Bool(SecurityContext(c), "allowPrivilegeEscalation");
    if (!ape || *ape) bad.push_back(ContainerName(c));
  });
  if (bad.empty()) return Allowed();
  return Forbidden("allowPrivilegeEscalation != false",
                   Containers(bad) + " must set securityContext.allowPrivilegeEscalation=false");
}

CheckResult AllowPrivilegeEscalation_1_25(const json::object* md, const json::object& spec) {
  if (IsWindowsPod(spec)) return Allowed();
  return AllowPrivilegeEscalation_1_8(md, spec);
}

CheckResult CapabilitiesRestricted_1_22(const json::object*, const json::object& spec) {
  std::vector<std::string> missing_drop_all, adding_forbidden;
  std::set<std::string> forbidden_caps;
  VisitContainers(spec, [&](const json::object& c) {
    const json::object* caps = Obj(SecurityContext(c), "capabilities");
    if (!caps) {
      missing_drop_all.push_back(ContainerName(c));
      return;
    }
    bool dropped_all = false;
    if (const json::array* drop = Arr(caps, "drop")) {
      for (const auto& d : *drop) dropped_all = dropped_all || (d.is_string() && d.get_string() == "ALL");
    }
    if (!dropped_all) missing_drop_all.push_back(ContainerName(c));
    bool added = false;
    if (const json::array* add = Arr(caps, "add")) {
      for (const auto& a : *add) {
        std::string name = a.is_string() ? std::string(a.get_string()) : std::string();
        if (name != "NET_BIND_SERVICE") {
          added = true;
          forbidden_caps.insert(name);
        }
      }
    }
    if (added) adding_forbidden.push_back(ContainerName(c));
  });
  std::vector<std::string> details;
  if (!missing_drop_all.empty()) {
    details.push_back(Containers(missing_drop_all) + " must set securityContext.capabilities.drop=[\"ALL\"]");
  }
  if (!adding_forbidden.empty()) {
    details.push_back(Containers(adding_forbidden) + " must not include " +
                      JoinQuote(std::vector<std::string>(forbidden_caps.begin(), forbidden_caps.end())) +
                      " in securityContext.capabilities.add");
  }
  if (details.empty()) return Allowed();
  return Forbidden("unrestricted capabilities", JoinWith(details, "; "));
}

CheckResult CapabilitiesRestricted_1_25(const json::object* md, const json::object& spec) {
  if (IsWindowsPod(spec)) return Allowed();
  return CapabilitiesRestricted_1_22(md, spec);
}

CheckResult RestrictedVolumes_1_0(const json::object*, const json::object& spec) {
  static const char* const kAllowed[] = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral",
                                         "persistentVolumeClaim", "projected", "secret"};
  // In kube's order of precedence; the JSON key is the name the message uses.
  static const char* const kRestricted[] = {
      "hostPath", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "nfs", "iscsi", "glusterfs",
      "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc", "azureFile", "vsphereVolume", "quobyte",
      "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos"};
  std::vector<std::string> bad_volumes;
  std::set<std::string> bad_types;
  if (const json::array* list = Arr(&spec, "volumes")) {
    for (const auto& v : *list) {
      if (!v.is_object()) continue;
      const json::object& vol = v.get_object();
      bool ok = false;
      for (const char* k : kAllowed) ok = ok || Obj(&vol, k) != nullptr;
      if (ok) continue;
      bad_volumes.push_back(StrOr(&vol, "name"));
      std::string type = "unknown";
      for (const char* k : kRestricted) {
        if (Obj(&vol, k)) {
          type = k;
          break;
        }
      }
      bad_types.insert(type);
    }
  }
  if (bad_volumes.empty()) return Allowed();
  return Forbidden("restricted volume types",
                   Pluralize("volume", "volumes", bad_volumes.size()) + " " + JoinQuote(bad_volumes) + " " +
                       Pluralize("uses", "use", bad_volumes.size()) + " " +
                       Pluralize("restricted volume type", "restricted volume types", bad_types.size()) + " " +
                       JoinQuote(std::vector<std::string>(bad_types.begin(), bad_types.end())));
}

CheckResult RunAsNonRoot_1_0(const json::object*, const json::object& spec) {
  std::vector<std::string> bad_setters;
  bool pod_non_root = false;
  if (auto v = Bool(Obj(&spec, "securityContext"), "runAsNonRoot")) {
    if (!*v) {
      bad_setters.push_back("pod");
    } else {
      pod_non_root = true;
    }
  }
  std::vector<std::string> explicit_bad, implicit_bad;
  VisitContainers(spec, [&](const json::object& c) {
    if (auto v = Bool(SecurityContext(c), "runAsNonRoot")) {
      if (!*v) explicit_bad.push_back(ContainerName(c));
    } else if (!pod_non_root) {
      implicit_bad.push_back(ContainerName(c));
    }
  });
  if (!explicit_bad.empty()) bad_setters.push_back(Containers(explicit_bad));
  if (!bad_setters.empty()) {
    return Forbidden("runAsNonRoot != true", JoinWith(bad_setters, " and ") + " must not set securityContext.runAsNonRoot=false");
  }
  if (!implicit_bad.empty()) {
    return Forbidden("runAsNonRoot != true",
                     "pod or " + Containers(implicit_bad) + " must set securityContext.runAsNonRoot=true");
  }
  return Allowed();
}

CheckResult RunAsUser_1_23(const json::object*, const json::object& spec) {
  std::vector<std::string> bad_setters;
  auto v = Int(Obj(&spec, "securityContext"), "runAsUser");
  if (v && *v == 0) bad_setters.push_back("pod");
  std::vector<std::string> bad;
  VisitContainers(spec, [&](const json::object& c) {
    auto u = Int(SecurityContext(c), "runAsUser");
    if (u && *u == 0) bad.push_back(ContainerName(c));
  });
  if (!bad.empty()) bad_setters.push_back(Containers(bad));
  if (bad_setters.empty()) return Allowed();
  return Forbidden("runAsUser=0", JoinWith(bad_setters, " and ") + " must not set runAsUser=0");
}

CheckResult SeccompRestricted_1_19(const json::object*, const json::object& spec) {
  auto valid = [](std::string_view t) { return t == "Localhost" || t == "RuntimeDefault"; };
  std::vector<std::string> bad_setters;
  std::set<std::string> bad_values;
  bool pod_set = false;
  if (const json::object* p = Obj(Obj(&spec, "securityContext"), "seccompProfile")) {
    std::string t = StrOr(p, "type");
    if (!valid(t)) {
      bad_setters.push_back("pod");
      bad_values.insert(t);
    } else {
      pod_set = true;
    }
  }
  std::vector<std::string> explicit_bad, implicit_bad;
  VisitContainers(spec, [&](const json::object& c) {
    if (const json::object* p = Obj(SecurityContext(c), "seccompProfile")) {
      std::string t = StrOr(p, "type");
      if (!valid(t)) {
        explicit_bad.push_back(ContainerName(c));
        bad_values.insert(t);
      }
    } else if (!pod_set) {
      implicit_bad.push_back(ContainerName(c));
    }
  });
  if (!explicit_bad.empty()) bad_setters.push_back(Containers(explicit_bad));
  if (!bad_setters.empty()) {
    return Forbidden("seccompProfile", JoinWith(bad_setters, " and ") +
                                           " must not set securityContext.seccompProfile.type to " +
                                           JoinQuote(std::vector<std::string>(bad_values.begin(), bad_values.end())));
  }
  if (!implicit_bad.empty()) {
    return Forbidden("seccompProfile", "pod or " + Containers(implicit_bad) +
                                           " must set securityContext.seccompProfile.type to \"RuntimeDefault\" or \"Localhost\"");
  }
  return Allowed();
}

CheckResult SeccompRestricted_1_25(const json::object* md, const json::object& spec) {
  if (IsWindowsPod(spec)) return Allowed();
  return SeccompRestricted_1_19(md, spec);
}

}  // namespace capstan::admission::psa::checks
