// The baseline level's checks (kube's pod-security-admission policy/check_*.go with Level baseline).
#include <set>

#include "admission/pod_security_checks.h"
#include "admission/pod_security_json.h"
#include "util/strings.h"

namespace capstan::admission::psa::checks {

namespace json = boost::json;
using namespace psa::detail;

namespace {

CheckResult Allowed() { return CheckResult{}; }
CheckResult Forbidden(std::string reason, std::string detail) { return CheckResult{false, std::move(reason), std::move(detail)}; }

std::vector<std::string> Sorted(const std::set<std::string>& s) { return std::vector<std::string>(s.begin(), s.end()); }

// "container \"a\"" / "containers \"a\", \"b\"".
std::string Containers(const std::vector<std::string>& names) {
  return Pluralize("container", "containers", names.size()) + " " + JoinQuote(names);
}

const json::object* SecurityContext(const json::object& c) { return Obj(&c, "securityContext"); }

}  // namespace

CheckResult AppArmorProfile_1_0(const json::object* md, const json::object& spec) {
  auto allowed_type = [](std::string_view t) { return t == "RuntimeDefault" || t == "Localhost"; };
  std::vector<std::string> bad_setters;
  std::set<std::string> bad_values;
  if (const json::object* p = Obj(Obj(&spec, "securityContext"), "appArmorProfile")) {
    std::string t = StrOr(p, "type");
    if (!allowed_type(t)) {
      bad_setters.push_back("pod");
      bad_values.insert(t);
    }
  }
  std::vector<std::string> bad_containers;
  VisitContainers(spec, [&](const json::object& c) {
    if (const json::object* p = Obj(SecurityContext(c), "appArmorProfile")) {
      std::string t = StrOr(p, "type");
      if (!allowed_type(t)) {
        bad_containers.push_back(ContainerName(c));
        bad_values.insert(t);
      }
    }
  });
  if (!bad_containers.empty()) bad_setters.push_back(Containers(bad_containers));
  std::vector<std::string> forbidden_annotations;
  if (const json::object* annotations = Obj(md, "annotations")) {
    static constexpr std::string_view kPrefix = "container.apparmor.security.beta.kubernetes.io/";
    for (const auto& [k, v] : *annotations) {
      if (!StartsWith(k, kPrefix) || !v.is_string()) continue;
      std::string_view value = v.get_string();
      if (value.empty() || value == "runtime/default" || StartsWith(value, "localhost/")) continue;
      forbidden_annotations.push_back(std::string(k) + "=" + GoQuote(value));
    }
  }
  std::vector<std::string> bad_list = Sorted(bad_values);
  if (!forbidden_annotations.empty()) {
    std::sort(forbidden_annotations.begin(), forbidden_annotations.end());
    bad_list.insert(bad_list.end(), forbidden_annotations.begin(), forbidden_annotations.end());
    bad_setters.push_back(Pluralize("annotation", "annotations", forbidden_annotations.size()));
  }
  if (bad_setters.empty()) return Allowed();
  return Forbidden(Pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", bad_list.size()),
                   JoinWith(bad_setters, " and ") + " must not set AppArmor profile type to " + JoinQuote(bad_list));
}

CheckResult CapabilitiesBaseline_1_0(const json::object*, const json::object& spec) {
  static const std::set<std::string, std::less<>> kAllowed = {
      "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
      "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"};
  std::vector<std::string> bad_containers;
  std::set<std::string> non_default;
  VisitContainers(spec, [&](const json::object& c) {
    const json::array* add = Arr(Obj(SecurityContext(c), "capabilities"), "add");
    if (!add) return;
    bool valid = true;
    for (const auto& cap : *add) {
      std::string name = cap.is_string() ? std::string(cap.get_string()) : std::string();
      if (!kAllowed.count(name)) {
        valid = false;
        non_default.insert(name);
      }
    }
    if (!valid) bad_containers.push_back(ContainerName(c));
  });
  if (bad_containers.empty()) return Allowed();
  return Forbidden("non-default capabilities", Containers(bad_containers) + " must not include " +
                                                   JoinQuote(Sorted(non_default)) +
                                                   " in securityContext.capabilities.add");
}

CheckResult HostNamespaces_1_0(const json::object*, const json::object& spec) {
  std::vector<std::string> host;
  if (Bool(&spec, "hostNetwork").value_or(false)) host.push_back("hostNetwork=true");
  if (Bool(&spec, "hostPID").value_or(false)) host.push_back("hostPID=true");
  if (Bool(&spec, "hostIPC").value_or(false)) host.push_back("hostIPC=true");
  if (host.empty()) return Allowed();
  return Forbidden("host namespaces", JoinWith(host, ", "));
}

CheckResult HostPathVolumes_1_0(const json::object*, const json::object& spec) {
  std::vector<std::string> volumes;
  if (const json::array* list = Arr(&spec, "volumes")) {
    for (const auto& v : *list) {
      if (v.is_object() && Obj(&v.get_object(), "hostPath")) volumes.push_back(StrOr(&v.get_object(), "name"));
    }
  }
  if (volumes.empty()) return Allowed();
  return Forbidden("hostPath volumes", Pluralize("volume", "volumes", volumes.size()) + " " + JoinQuote(volumes));
}

CheckResult HostPorts_1_0(const json::object*, const json::object& spec) {
  std::vector<std::string> bad_containers;
  std::set<std::string> ports;
  VisitContainers(spec, [&](const json::object& c) {
    bool valid = true;
    if (const json::array* list = Arr(&c, "ports")) {
      for (const auto& p : *list) {
        if (!p.is_object()) continue;
        int64_t hp = Int(&p.get_object(), "hostPort").value_or(0);
        if (hp != 0) {
          valid = false;
          ports.insert(std::to_string(static_cast<int32_t>(hp)));
        }
      }
    }
    if (!valid) bad_containers.push_back(ContainerName(c));
  });
  if (bad_containers.empty()) return Allowed();
  return Forbidden("hostPort", Containers(bad_containers) + " " + Pluralize("uses", "use", bad_containers.size()) + " " +
                                   Pluralize("hostPort", "hostPorts", ports.size()) + " " +
                                   JoinWith(Sorted(ports), ", "));
}

CheckResult Privileged_1_0(const json::object*, const json::object& spec) {
  std::vector<std::string> bad;
  VisitContainers(spec, [&](const json::object& c) {
    if (Bool(SecurityContext(c), "privileged").value_or(false)) bad.push_back(ContainerName(c));
  });
  if (bad.empty()) return Allowed();
  return Forbidden("privileged", Containers(bad) + " must not set securityContext.privileged=true");
}

CheckResult ProcMount_1_0(const json::object*, const json::object& spec) {
  std::vector<std::string> bad;
  std::set<std::string> types;
  VisitContainers(spec, [&](const json::object& c) {
    auto pm = Str(SecurityContext(c), "procMount");
    if (pm && *pm != "Default") {
      bad.push_back(ContainerName(c));
      types.insert(std::string(*pm));
    }
  });
  if (bad.empty()) return Allowed();
  return Forbidden("procMount", Containers(bad) + " must not set securityContext.procMount to " + JoinQuote(Sorted(types)));
}

namespace {

CheckResult SeLinuxOptions(const json::object& spec, const std::set<std::string, std::less<>>& allowed_types) {
  std::vector<std::string> bad_setters;
  std::set<std::string> bad_types;
  bool set_user = false, set_role = false;
  auto valid = [&](const json::object& opts) {
    bool ok = true;
    std::string t = StrOr(&opts, "type");
    if (!allowed_types.count(t)) {
      ok = false;
      bad_types.insert(t);
    }
    if (!StrOr(&opts, "user").empty()) {
      ok = false;
      set_user = true;
    }
    if (!StrOr(&opts, "role").empty()) {
      ok = false;
      set_role = true;
    }
    return ok;
  };
  if (const json::object* o = Obj(Obj(&spec, "securityContext"), "seLinuxOptions")) {
    if (!valid(*o)) bad_setters.push_back("pod");
  }
  std::vector<std::string> bad_containers;
  VisitContainers(spec, [&](const json::object& c) {
    if (const json::object* o = Obj(SecurityContext(c), "seLinuxOptions")) {
      if (!valid(*o)) bad_containers.push_back(ContainerName(c));
    }
  });
  if (!bad_containers.empty()) bad_setters.push_back(Containers(bad_containers));
  if (bad_setters.empty()) return Allowed();
  std::vector<std::string> bad_data;
  if (!bad_types.empty()) {
    bad_data.push_back(Pluralize("type", "types", bad_types.size()) + " " + JoinQuote(Sorted(bad_types)));
  }
  if (set_user) bad_data.push_back("user may not be set");
  if (set_role) bad_data.push_back("role may not be set");
  return Forbidden("seLinuxOptions", JoinWith(bad_setters, " and ") + " set forbidden securityContext.seLinuxOptions: " +
                                         JoinWith(bad_data, "; "));
}

}  // namespace

CheckResult SeLinuxOptions_1_0(const json::object*, const json::object& spec) {
  static const std::set<std::string, std::less<>> kTypes = {"", "container_t", "container_init_t", "container_kvm_t"};
  return SeLinuxOptions(spec, kTypes);
}

CheckResult SeLinuxOptions_1_31(const json::object*, const json::object& spec) {
  static const std::set<std::string, std::less<>> kTypes = {"", "container_t", "container_init_t", "container_kvm_t",
                                                            "container_engine_t"};
  return SeLinuxOptions(spec, kTypes);
}

CheckResult SeccompBaseline_1_0(const json::object* md, const json::object& spec) {
  auto valid = [](std::string_view v) {
    return v == "runtime/default" || v == "docker/default" || StartsWith(v, "localhost/");
  };
  const json::object* annotations = Obj(md, "annotations");
  std::set<std::string> forbidden;
  const std::string pod_key = "seccomp.security.alpha.kubernetes.io/pod";
  if (auto v = Str(annotations, pod_key); v && !valid(*v)) forbidden.insert(pod_key + "=" + GoQuote(*v));
  VisitContainers(spec, [&](const json::object& c) {
    std::string key = "container.seccomp.security.alpha.kubernetes.io/" + ContainerName(c);
    if (auto v = Str(annotations, key); v && !valid(*v)) forbidden.insert(key + "=" + GoQuote(*v));
  });
  if (forbidden.empty()) return Allowed();
  return Forbidden("seccompProfile", "forbidden " + Pluralize("annotation", "annotations", forbidden.size()) + " " +
                                         JoinWith(Sorted(forbidden), ", "));
}

CheckResult SeccompBaseline_1_19(const json::object*, const json::object& spec) {
  auto valid = [](std::string_view t) { return t == "Localhost" || t == "RuntimeDefault"; };
  std::vector<std::string> bad_setters;
  std::set<std::string> bad_values;
  if (const json::object* p = Obj(Obj(&spec, "securityContext"), "seccompProfile")) {
    std::string t = StrOr(p, "type");
    if (!valid(t)) {
      bad_setters.push_back("pod");
      bad_values.insert(t);
    }
  }
  std::vector<std::string> bad_containers;
  VisitContainers(spec, [&](const json::object& c) {
    if (const json::object* p = Obj(SecurityContext(c), "seccompProfile")) {
      std::string t = StrOr(p, "type");
      if (!valid(t)) {
        bad_containers.push_back(ContainerName(c));
        bad_values.insert(t);
      }
    }
  });
  if (!bad_containers.empty()) bad_setters.push_back(Containers(bad_containers));
  if (bad_setters.empty()) return Allowed();
  return Forbidden("seccompProfile", JoinWith(bad_setters, " and ") + " must not set securityContext.seccompProfile.type to " +
                                         JoinQuote(Sorted(bad_values)));
}

namespace {

CheckResult Sysctls(const json::object& spec, int minor) {
  static const std::set<std::string, std::less<>> k1_0 = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range",
                                                          "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range",
                                                          "net.ipv4.ip_unprivileged_port_start"};
  static const std::set<std::string, std::less<>> k1_27 = {"net.ipv4.ip_local_reserved_ports"};
  static const std::set<std::string, std::less<>> k1_29 = {"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout",
                                                           "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"};
  static const std::set<std::string, std::less<>> k1_32 = {"net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"};
  auto allowed = [&](const std::string& n) {
    return k1_0.count(n) || (minor >= 27 && k1_27.count(n)) || (minor >= 29 && k1_29.count(n)) ||
           (minor >= 32 && k1_32.count(n));
  };
  std::vector<std::string> forbidden;
  if (const json::array* list = Arr(Obj(&spec, "securityContext"), "sysctls")) {
    for (const auto& s : *list) {
      if (!s.is_object()) continue;
      std::string name = StrOr(&s.get_object(), "name");
      if (!allowed(name)) forbidden.push_back(name);
    }
  }
  if (forbidden.empty()) return Allowed();
  return Forbidden("forbidden sysctls", JoinWith(forbidden, ", "));
}

}  // namespace

CheckResult Sysctls_1_0(const json::object*, const json::object& spec) { return Sysctls(spec, 0); }
CheckResult Sysctls_1_27(const json::object*, const json::object& spec) { return Sysctls(spec, 27); }
CheckResult Sysctls_1_29(const json::object*, const json::object& spec) { return Sysctls(spec, 29); }
CheckResult Sysctls_1_32(const json::object*, const json::object& spec) { return Sysctls(spec, 32); }

CheckResult WindowsHostProcess_1_0(const json::object*, const json::object& spec) {
  std::vector<std::string> bad;
  VisitContainers(spec, [&](const json::object& c) {
    if (Bool(Obj(SecurityContext(c), "windowsOptions"), "hostProcess").value_or(false)) bad.push_back(ContainerName(c));
  });
  std::vector<std::string> setters;
  if (Bool(Obj(Obj(&spec, "securityContext"), "windowsOptions"), "hostProcess").value_or(false)) setters.push_back("pod");
  if (!bad.empty()) setters.push_back(Containers(bad));
  if (setters.empty()) return Allowed();
  return Forbidden("hostProcess", JoinWith(setters, " and ") + " must not set securityContext.windowsOptions.hostProcess=true");
}

}  // namespace capstan::admission::psa::checks
