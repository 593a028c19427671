// api/core/pod_validation_containers.cpp: containers (regular, init, ephemeral) as kube's
// validateContainers / validateInitContainers / validateEphemeralContainers check them.
#include <algorithm>
#include <set>

#include "api/core/capabilities.h"
#include "api/core/core_helpers.h"
#include "api/core/pod_validation.h"
#include "api/core/pod_validation_internal.h"
#include "apimachinery/int_or_string.h"
#include "apimachinery/quantity.h"
#include "apimachinery/validation.h"
#include "util/strings.h"

namespace capstan::api::core {

namespace am = capstan::apimachinery;

namespace {

const json::object& ObjOr(const json::value* v) {
  static const json::object kEmpty;
  return v && v->is_object() ? v->get_object() : kEmpty;
}

bool IsHugePages(std::string_view n) { return StartsWith(n, "hugepages-"); }
bool IsNative(std::string_view n) { return n.find('/') == std::string_view::npos || n.find("kubernetes.io/") != std::string_view::npos; }
bool IsExtended(std::string_view n) {
  if (IsNative(n) || StartsWith(n, "requests.")) return false;
  return am::IsQualifiedName("requests." + std::string(n)).empty();
}
bool IsOvercommitAllowed(std::string_view n) { return IsNative(n) && !IsHugePages(n); }

bool IsStandardResourceName(std::string_view n) {
  static const std::set<std::string, std::less<>> kStandard = {
      "cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
      "limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "services", "replicationcontrollers",
      "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims", "storage", "requests.storage",
      "services.nodeports", "services.loadbalancers"};
  return kStandard.count(n) > 0 || IsHugePages(n) || StartsWith(n, "requests.hugepages-");
}

ErrorList ValidateContainerResourceName(const std::string& name, const FieldPath& p) {
  ErrorList errs = ProblemsAt(am::IsQualifiedName(name), p, name);
  if (errs.empty() && name.find('/') == std::string::npos && !IsStandardResourceName(name)) {
    errs.push_back(InvalidError(p, name, "must be a standard resource type or fully qualified"));
  }
  if (name.find('/') == std::string::npos) {
    if (name != "cpu" && name != "memory" && name != "ephemeral-storage" && !IsHugePages(name)) {
      errs.push_back(InvalidError(p, name, "must be a standard resource for containers"));
    }
  } else if (!IsNative(name) && !IsExtended(name)) {
    errs.push_back(InvalidError(p, name, "doesn't follow extended resource name standard"));
  }
  return errs;
}

ErrorList ValidateHandler(const json::object& h, const FieldPath& p, bool allow_sleep) {
  ErrorList errs;
  int n = 0;
  auto one = [&](const char* key) -> const json::object* {
    const auto* v = h.if_contains(key);
    if (!v || v->is_null()) return nullptr;
    if (n > 0) {
      errs.push_back(ForbiddenError(p.Child(key), "may not specify more than 1 handler type"));
      return nullptr;
    }
    ++n;
    return v->is_object() ? &v->get_object() : nullptr;
  };
  if (const auto* exec = one("exec")) {
    if (CountAt(*exec, "command") == 0) errs.push_back(RequiredError(p.Child("exec").Child("command"), ""));
  }
  if (const auto* http = one("httpGet")) {
    FieldPath hp = p.Child("httpGet");
    if (StrOf(http->if_contains("path")).empty()) errs.push_back(RequiredError(hp.Child("path"), ""));
    auto more = ValidatePortNumOrName(http->if_contains("port"), hp.Child("port"));
    errs.insert(errs.end(), more.begin(), more.end());
    std::string scheme = StrOf(http->if_contains("scheme"));
    if (scheme != "HTTP" && scheme != "HTTPS") errs.push_back(NotSupportedError(hp.Child("scheme"), scheme, {"HTTP", "HTTPS"}));
  }
  if (const auto* tcp = one("tcpSocket")) {
    auto more = ValidatePortNumOrName(tcp->if_contains("port"), p.Child("tcpSocket").Child("port"));
    errs.insert(errs.end(), more.begin(), more.end());
  }
  if (const auto* grpc = one("grpc")) {
    int64_t port = IntOf(grpc->if_contains("port"));
    if (port < 1 || port > 65535) {
      errs.push_back(InvalidError(p.Child("grpc").Child("port"), port, "must be between 1 and 65535, inclusive"));
    }
  }
  if (allow_sleep) {
    if (const auto* sleep = one("sleep")) {
      int64_t s = IntOf(sleep->if_contains("seconds"));
      if (s < 0) errs.push_back(InvalidError(p.Child("sleep").Child("seconds"), s, "must be non-negative"));
    }
  }
  if (n == 0) errs.push_back(RequiredError(p, "must specify a handler type"));
  return errs;
}

ErrorList ValidateProbe(const json::value* v, const FieldPath& p, bool success_must_be_one) {
  ErrorList errs;
  if (!v || !v->is_object()) return errs;
  const auto& probe = v->get_object();
  errs = ValidateHandler(probe, p, false);
  for (const char* f : {"initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"}) {
    int64_t x = IntOf(probe.if_contains(f));
    if (x < 0) errs.push_back(InvalidError(p.Child(f), x, std::string(am::kIsNegativeErrorMsg)));
  }
  if (const auto* g = probe.if_contains("terminationGracePeriodSeconds"); g && !g->is_null() && IntOf(g) <= 0) {
    errs.push_back(InvalidError(p.Child("terminationGracePeriodSeconds"), IntOf(g), "must be greater than 0"));
  }
  if (success_must_be_one && IntOf(probe.if_contains("successThreshold"), 1) != 1) {
    errs.push_back(InvalidError(p.Child("successThreshold"), IntOf(probe.if_contains("successThreshold")), "must be 1"));
  }
  return errs;
}

ErrorList ValidatePorts(const json::value* ports, const FieldPath& path) {
  ErrorList errs;
  if (!ports || !ports->is_array()) return errs;
  std::set<std::string> names;
  const auto& arr = ports->get_array();
  for (size_t i = 0; i < arr.size(); ++i) {
    const json::object& port = ObjOr(&arr[i]);
    FieldPath p = path.Index(i);
    std::string name = StrOf(port.if_contains("name"));
    if (!name.empty()) {
      auto problems = PortNameProblems(name);
      if (!problems.empty()) {
        for (auto& msg : problems) errs.push_back(InvalidError(p.Child("name"), name, msg));
      } else if (!names.insert(name).second) {
        errs.push_back(DuplicateError(p.Child("name"), name));
      }
    }
    int64_t cp = IntOf(port.if_contains("containerPort"));
    if (cp == 0) {
      errs.push_back(RequiredError(p.Child("containerPort"), ""));
    } else if (cp < 1 || cp > 65535) {
      errs.push_back(InvalidError(p.Child("containerPort"), cp, "must be between 1 and 65535, inclusive"));
    }
    int64_t hp = IntOf(port.if_contains("hostPort"));
    if (hp != 0 && (hp < 1 || hp > 65535)) {
      errs.push_back(InvalidError(p.Child("hostPort"), hp, "must be between 1 and 65535, inclusive"));
    }
    std::string proto = StrOf(port.if_contains("protocol"));
    if (proto.empty()) {
      errs.push_back(RequiredError(p.Child("protocol"), ""));
    } else if (proto != "TCP" && proto != "UDP" && proto != "SCTP") {
      errs.push_back(NotSupportedError(p.Child("protocol"), proto, {"SCTP", "TCP", "UDP"}));
    }
  }
  return errs;
}

bool RelaxedEnvName(std::string_view n) {
  return std::all_of(n.begin(), n.end(), [](char c) { return c >= 0x20 && c < 0x7f && c != '='; });
}

ErrorList ValidateKeySelector(const json::object& sel, const FieldPath& p) {
  ErrorList errs;
  if (StrOf(sel.if_contains("name")).empty()) errs.push_back(RequiredError(p.Child("name"), ""));
  std::string key = StrOf(sel.if_contains("key"));
  if (key.empty()) {
    errs.push_back(RequiredError(p.Child("key"), ""));
  } else {
    auto more = ProblemsAt(am::IsConfigMapKey(key), p.Child("key"), key);
    errs.insert(errs.end(), more.begin(), more.end());
  }
  return errs;
}

ErrorList ValidateEnv(const json::value* env, const FieldPath& path) {
  ErrorList errs;
  if (!env || !env->is_array()) return errs;
  const auto& arr = env->get_array();
  for (size_t i = 0; i < arr.size(); ++i) {
    const json::object& e = ObjOr(&arr[i]);
    FieldPath p = path.Index(i);
    std::string name = StrOf(e.if_contains("name"));
    if (name.empty()) {
      errs.push_back(RequiredError(p.Child("name"), ""));
    } else if (!RelaxedEnvName(name)) {
      errs.push_back(InvalidError(p.Child("name"), name,
                                  "a valid environment variable name must consist only of printable ASCII characters other than '='"));
    }
    const auto* vf = e.if_contains("valueFrom");
    if (!vf || !vf->is_object()) continue;
    FieldPath vp = p.Child("valueFrom");
    const auto& from = vf->get_object();
    int n = 0;
    for (const char* k : {"fieldRef", "resourceFieldRef", "configMapKeyRef", "secretKeyRef"}) {
      const auto* x = from.if_contains(k);
      if (!x || !x->is_object()) continue;
      ++n;
      const auto& sel = x->get_object();
      if (std::string_view(k) == "fieldRef") {
        if (StrOf(sel.if_contains("apiVersion")).empty()) errs.push_back(RequiredError(vp.Child(k).Child("apiVersion"), ""));
        std::string fp = StrOf(sel.if_contains("fieldPath"));
        static const std::vector<std::string> kSupported = {
            "metadata.name", "metadata.namespace", "metadata.uid", "spec.nodeName", "spec.serviceAccountName",
            "status.hostIP", "status.hostIPs", "status.podIP", "status.podIPs"};
        if (fp.empty()) {
          errs.push_back(RequiredError(vp.Child(k).Child("fieldPath"), ""));
        } else if (!StartsWith(fp, "metadata.labels[") && !StartsWith(fp, "metadata.annotations[") &&
                   std::find(kSupported.begin(), kSupported.end(), fp) == kSupported.end()) {
          errs.push_back(NotSupportedError(vp.Child(k).Child("fieldPath"), fp, kSupported));
        }
      } else if (std::string_view(k) == "resourceFieldRef") {
        if (StrOf(sel.if_contains("resource")).empty()) errs.push_back(RequiredError(vp.Child(k).Child("resource"), ""));
      } else {
        auto more = ValidateKeySelector(sel, vp.Child(k));
        errs.insert(errs.end(), more.begin(), more.end());
      }
    }
    if (n == 0) {
      errs.push_back(InvalidError(vp, "", "must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`"));
    } else if (n > 1) {
      errs.push_back(InvalidError(vp, "", "may not have more than one field specified at a time"));
    } else if (!StrOf(e.if_contains("value")).empty()) {
      errs.push_back(InvalidError(vp, "", "may not be specified when `value` is not empty"));
    }
  }
  return errs;
}

ErrorList ValidateVolumeMounts(const json::value* mounts, const FieldPath& path, const std::set<std::string>& volumes,
                               bool ephemeral) {
  ErrorList errs;
  if (!mounts || !mounts->is_array()) return errs;
  std::set<std::string> points;
  const auto& arr = mounts->get_array();
  for (size_t i = 0; i < arr.size(); ++i) {
    const json::object& m = ObjOr(&arr[i]);
    FieldPath p = path.Index(i);
    std::string name = StrOf(m.if_contains("name"));
    if (name.empty()) errs.push_back(RequiredError(p.Child("name"), ""));
    if (!volumes.count(name)) errs.push_back(NotFoundError(p.Child("name"), name));
    std::string mp = StrOf(m.if_contains("mountPath"));
    if (mp.empty()) errs.push_back(RequiredError(p.Child("mountPath"), ""));
    if (points.count(mp)) errs.push_back(InvalidError(p.Child("mountPath"), mp, "must be unique"));
    points.insert(mp);
    std::string sub = StrOf(m.if_contains("subPath"));
    if (!sub.empty()) {
      if (ephemeral) errs.push_back(ForbiddenError(p.Child("subPath"), "cannot be set for an Ephemeral Container"));
      if (sub.front() == '/') errs.push_back(InvalidError(p.Child("subPath"), sub, "must be a relative path"));
      for (const auto& part : Split(sub, '/')) {
        if (part == "..") {
          errs.push_back(InvalidError(p.Child("subPath"), sub, "must not contain '..'"));
          break;
        }
      }
    }
    if (const auto* mpg = m.if_contains("mountPropagation"); mpg && mpg->is_string()) {
      std::string v(mpg->get_string());
      if (v != "None" && v != "HostToContainer" && v != "Bidirectional") {
        errs.push_back(NotSupportedError(p.Child("mountPropagation"), v, {"Bidirectional", "HostToContainer", "None"}));
      }
    }
  }
  return errs;
}

}  // namespace

ErrorList ValidatePortNumOrName(const json::value* port, const FieldPath& path) {
  ErrorList errs;
  auto ios = port ? am::IntOrString::FromJson(*port) : std::nullopt;
  if (!ios) {
    errs.push_back(InvalidError(path, port ? *port : json::value(0), "must be between 1 and 65535, inclusive"));
    return errs;
  }
  if (!ios->is_string()) {
    int v = ios->int_value();
    if (v < 1 || v > 65535) errs.push_back(InvalidError(path, v, "must be between 1 and 65535, inclusive"));
  } else {
    for (auto& msg : PortNameProblems(ios->str_value())) errs.push_back(InvalidError(path, ios->str_value(), msg));
  }
  return errs;
}

ErrorList ValidateResourceRequirements(const json::value* resources, const FieldPath& path) {
  ErrorList errs;
  const json::object& res = ObjOr(resources);
  const json::object& limits = ObjOr(res.if_contains("limits"));
  const json::object& requests = ObjOr(res.if_contains("requests"));
  FieldPath lp = path.Child("limits"), rp = path.Child("requests");
  auto quantity_errors = [&](const std::string& name, const json::value& v, const FieldPath& p) {
    auto q = am::ParseQuantityJson(v);
    if (!q.ok()) {
      errs.push_back(InvalidError(p, v, q.status().message()));
      return;
    }
    if (q->Sign() < 0) errs.push_back(InvalidError(p, q->String(), std::string(am::kIsNegativeErrorMsg)));
    if (IsExtended(name) && q->MilliValue() % 1000 != 0) {
      FieldError e = InvalidError(p, "", "must be an integer");
      e.omit_value = true;
      e.detail = q->String() + ": must be an integer";
      errs.push_back(std::move(e));
    }
  };
  for (const auto& name : SortedKeys(&limits)) {
    FieldPath p = lp.Key(name);
    auto more = ValidateContainerResourceName(name, p);
    errs.insert(errs.end(), more.begin(), more.end());
    quantity_errors(name, limits.at(name), p);
  }
  for (const auto& name : SortedKeys(&requests)) {
    FieldPath p = rp.Key(name);
    auto more = ValidateContainerResourceName(name, p);
    errs.insert(errs.end(), more.begin(), more.end());
    quantity_errors(name, requests.at(name), p);
    auto req = am::ParseQuantityJson(requests.at(name));
    if (!req.ok()) continue;
    if (const auto* lim_v = limits.if_contains(name)) {
      auto lim = am::ParseQuantityJson(*lim_v);
      if (!lim.ok()) continue;
      if (req->Cmp(*lim) != 0 && !IsOvercommitAllowed(name)) {
        errs.push_back(InvalidError(rp, req->String(), "must be equal to " + name + " limit of " + lim->String()));
      } else if (req->Cmp(*lim) > 0) {
        errs.push_back(InvalidError(rp, req->String(), "must be less than or equal to " + name + " limit of " + lim->String()));
      }
    } else if (!IsOvercommitAllowed(name)) {
      errs.push_back(RequiredError(lp, "Limit must be set for non overcommitable resources"));
    }
  }
  return errs;
}

ErrorList ValidateContainerList(const json::value* list, const FieldPath& path, const std::set<std::string>& volumes,
                                std::set<std::string>& names, ContainerKind kind) {
  ErrorList errs;
  auto add = [&](ErrorList more) { errs.insert(errs.end(), more.begin(), more.end()); };
  if (!list || !list->is_array() || list->get_array().empty()) {
    if (kind == ContainerKind::kRegular) errs.push_back(RequiredError(path, ""));
    return errs;
  }
  const auto& arr = list->get_array();
  for (size_t i = 0; i < arr.size(); ++i) {
    const json::object& c = ObjOr(&arr[i]);
    FieldPath p = path.Index(i);
    std::string name = StrOf(c.if_contains("name"));
    if (name.empty()) {
      errs.push_back(RequiredError(p.Child("name"), ""));
    } else {
      add(ProblemsAt(am::IsDNS1123Label(name), p.Child("name"), name));
    }
    if (StrOf(c.if_contains("image")).empty()) errs.push_back(RequiredError(p.Child("image"), ""));
    std::string tmp = StrOf(c.if_contains("terminationMessagePolicy"));
    if (tmp.empty()) {
      errs.push_back(RequiredError(p.Child("terminationMessagePolicy"), ""));
    } else if (tmp != "File" && tmp != "FallbackToLogsOnError") {
      errs.push_back(NotSupportedError(p.Child("terminationMessagePolicy"), tmp, {"File", "FallbackToLogsOnError"}));
    }
    add(ValidatePorts(c.if_contains("ports"), p.Child("ports")));
    add(ValidateEnv(c.if_contains("env"), p.Child("env")));
    if (const auto* ef = c.if_contains("envFrom"); ef && ef->is_array()) {
      for (size_t j = 0; j < ef->get_array().size(); ++j) {
        const json::object& src = ObjOr(&ef->get_array()[j]);
        FieldPath ep = p.Child("envFrom").Index(j);
        int n = 0;
        for (const char* k : {"configMapRef", "secretRef"}) {
          const auto* r = src.if_contains(k);
          if (!r || !r->is_object()) continue;
          if (++n > 1) {
            errs.push_back(InvalidError(ep, "", "may not have more than one field specified at a time"));
            break;
          }
          if (StrOf(r->get_object().if_contains("name")).empty()) errs.push_back(RequiredError(ep.Child(k).Child("name"), ""));
        }
        if (n == 0) errs.push_back(InvalidError(ep, "", "must specify one of: `configMapRef` or `secretRef`"));
      }
    }
    add(ValidateVolumeMounts(c.if_contains("volumeMounts"), p.Child("volumeMounts"), volumes, kind == ContainerKind::kEphemeral));
    ValidateContainerCapabilities(c, p, errs);
    std::string pull = StrOf(c.if_contains("imagePullPolicy"));
    if (pull.empty()) {
      errs.push_back(RequiredError(p.Child("imagePullPolicy"), ""));
    } else if (pull != "Always" && pull != "IfNotPresent" && pull != "Never") {
      errs.push_back(NotSupportedError(p.Child("imagePullPolicy"), pull, {"Always", "IfNotPresent", "Never"}));
    }
    const bool restartable = kind == ContainerKind::kInit && StrOf(c.if_contains("restartPolicy")) == "Always";
    if (kind == ContainerKind::kEphemeral) {
      for (const char* f : {"ports", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "resources", "resizePolicy"}) {
        const auto* x = c.if_contains(f);
        bool set = x && !x->is_null() && !(x->is_object() && x->get_object().empty()) && !(x->is_array() && x->get_array().empty());
        if (set) errs.push_back(ForbiddenError(p.Child(f), "cannot be set for an Ephemeral Container"));
      }
      std::string target = StrOf(c.if_contains("targetContainerName"));
      if (!target.empty() && !names.count(target)) errs.push_back(NotFoundError(p.Child("targetContainerName"), target));
    } else {
      add(ValidateResourceRequirements(c.if_contains("resources"), p.Child("resources")));
      if (kind == ContainerKind::kRegular) {
        if (c.contains("restartPolicy") && !c.at("restartPolicy").is_null()) {
          errs.push_back(ForbiddenError(p.Child("restartPolicy"), "may not be set for non-init containers"));
        }
      } else if (c.contains("restartPolicy") && !c.at("restartPolicy").is_null() && !restartable) {
        errs.push_back(NotSupportedError(p.Child("restartPolicy"), StrOf(c.if_contains("restartPolicy")), {"Always"}));
      }
      if (kind == ContainerKind::kInit && !restartable) {
        for (const char* f : {"lifecycle", "livenessProbe", "readinessProbe", "startupProbe"}) {
          const auto* x = c.if_contains(f);
          if (x && !x->is_null()) {
            errs.push_back(ForbiddenError(p.Child(f), "may not be set for init containers without restartPolicy=Always"));
          }
        }
      } else {
        add(ValidateProbe(c.if_contains("livenessProbe"), p.Child("livenessProbe"), true));
        add(ValidateProbe(c.if_contains("readinessProbe"), p.Child("readinessProbe"), false));
        add(ValidateProbe(c.if_contains("startupProbe"), p.Child("startupProbe"), true));
        if (const auto* lc = c.if_contains("lifecycle"); lc && lc->is_object()) {
          for (const char* hook : {"postStart", "preStop"}) {
            const auto* h = lc->get_object().if_contains(hook);
            if (h && h->is_object()) add(ValidateHandler(h->get_object(), p.Child("lifecycle").Child(hook), true));
          }
        }
      }
    }
    if (!name.empty()) {
      if (!names.insert(name).second) errs.push_back(DuplicateError(p.Child("name"), name));
    }
  }
  return errs;
}

}  // namespace capstan::api::core
